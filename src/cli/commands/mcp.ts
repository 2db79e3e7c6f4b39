/**
 * termhost mcp: an MCP server on stdin/stdout. By default its tools drive a running daemon (TERMHOST_ADDR,
 * TERMHOST_TOKEN, or the state dir's token); with --embedded it runs its own runtime in this process, so nothing
 * else is needed, and its sessions end when the MCP client disconnects. Nothing but MCP is written to stdout.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Runtime } from '../../core/index.js';
import { ClientBackend, type Backend } from '../../mcp/backend.js';
import { RuntimeBackend } from '../../mcp/RuntimeBackend.js';
import { createMcpServer } from '../../mcp/server.js';
import { parseArgs } from '../args.js';
import { clientFrom } from '../context.js';
import type { Command } from './types.js';

export const mcp: Command = {
  name: 'mcp',
  usage: 'mcp [--embedded] [--actor NAME]',
  summary: 'serve MCP over stdio, against the daemon or (--embedded) an in-process runtime',
  async run(argv, io) {
    const parsed = parseArgs(argv, { embedded: 'boolean', actor: 'string' });
    const name = (parsed.flags.actor as string | undefined) ?? 'mcp';
    let backend: Backend;
    if (parsed.flags.embedded) {
      const runtime = new Runtime();
      // Sessions start where the MCP client started this server, as a program run from there would.
      backend = new RuntimeBackend(runtime, { name, kind: 'agent' }, () => runtime.close(), process.cwd(), undefined, false);
    } else {
      const client = clientFrom(parsed);
      if (parsed.flags.token === undefined && process.env.TERMHOST_TOKEN === undefined) {
        io.err(
          'termhost mcp: warning: no TERMHOST_TOKEN; using the daemon\'s own admin token, so the agent acts as a person ' +
            '(it preempts other agents and types during secret windows). Give it an agent token: termhost token create --name NAME --role agent\n',
        );
      }
      await client.health().catch((err: Error) => io.err(`termhost mcp: warning: ${err.message}; tools will fail until the daemon is up\n`));
      backend = new ClientBackend(client);
    }
    const mcpServer = createMcpServer(backend, { ownsBackend: true });
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
    });
    await mcpServer.server.connect(transport);
    await closed;
    await mcpServer.close();
    return 0;
  },
};
