/**
 * termhost mcp: an MCP server on stdin/stdout. By default its tools drive a running daemon; with --embedded it runs
 * its own runtime in this process, so nothing else is needed, and its sessions end when the MCP client disconnects.
 * Nothing but MCP is written to stdout.
 *
 * Against a daemon it never acts as the admin unasked. Without a token of its own (--token, $TERMHOST_TOKEN) it uses a
 * named agent token kept for it in the state dir, creating it once with the daemon's admin token; when it cannot, it
 * refuses and says what to do. An explicitly given admin token works, with a warning.
 */
import fs from 'node:fs';
import path from 'node:path';
import { noMoreArgs, UsageError } from '../args.js';
import { clientOptions, type Io } from '../context.js';
import type { TermhostClient } from '../../client/TermhostClient.js';
import type { Command } from './types.js';

/** `<state dir>/agent-tokens/<name>`: the secret of the agent token `termhost mcp --actor NAME` created. */
export function agentTokenPath(stateDir: string, name: string): string {
  return path.join(stateDir, 'agent-tokens', name);
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The client the MCP tools use: the given token, or the stored agent token (created on first use). */
async function agentClient(flags: Record<string, unknown>, name: string, io: Io): Promise<TermhostClient> {
  const { TermhostClient } = await import('../../client/TermhostClient.js');
  const { token: _given, ...global } = await clientOptions(flags);
  const opts = { ...global, transport: 'pool' as const };
  const given = (flags.token as string | undefined) ?? (process.env.TERMHOST_TOKEN || undefined);
  if (given !== undefined) {
    const client = new TermhostClient({ ...opts, token: given });
    // Only an admin may list tokens: a cheap way to learn whether this token is one.
    if (await client.listTokens().then(() => true, () => false)) {
      io.err(`termhost mcp: warning: this token is an admin's, so the agent acts as admin (it preempts other agents' leases); give it an agent token: termhost token create --name ${name} --role agent\n`);
    }
    return client;
  }
  const admin = new TermhostClient(opts);
  const file = agentTokenPath(admin.target.stateDir, name);
  const stored = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
  if (stored) {
    admin.close();
    const client = new TermhostClient({ ...opts, token: stored });
    const refused = await client.listSessions().then(() => undefined, (err: { status?: number; message: string }) => err);
    if (refused?.status === 401) {
      client.close();
      throw new Error(`the agent token stored in ${file} was refused (revoked?); remove that file to have a new one created, or pass --token`);
    }
    return client;
  }
  try {
    const created = await admin.createToken(name, 'agent');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, `${created.token}\n`, { mode: 0o600, flag: 'wx' });
    io.err(`termhost mcp: created the agent token "${name}" for this MCP server and stored it in ${file}\n`);
    return new TermhostClient({ ...opts, token: created.token });
  } catch (err) {
    const e = err as { code?: string; message: string };
    if (e.code === 'token_exists') {
      throw new Error(`a token named "${name}" exists, but its secret is not in ${file}: revoke it (termhost token revoke ${name}), choose another --actor, or pass --token`);
    }
    throw new Error(`cannot create an agent token for this MCP server (${e.message}); make one with \`termhost token create --name ${name} --role agent\` and pass it as --token or $TERMHOST_TOKEN`);
  } finally {
    admin.close();
  }
}

export const mcp: Command = {
  name: 'mcp',
  summary: 'serve MCP over stdio: against the daemon as an agent, or (--embedded) an in-process runtime',
  details: [
    'Against a daemon, without --token or $TERMHOST_TOKEN, it uses the agent token <state dir>/agent-tokens/NAME,',
    'created on first use with the daemon\'s admin token. It never acts as the admin unless given an admin token.',
  ],
  flags: [
    { name: 'embedded', kind: 'boolean', help: 'run an in-process runtime instead of using a daemon (sessions end with the MCP client)' },
    { name: 'actor', kind: 'string', value: 'NAME', help: 'the agent\'s name: its token\'s name, or the actor of --embedded', default: 'mcp' },
  ],
  examples: ['termhost mcp', 'termhost mcp --embedded', 'termhost mcp --actor claude'],
  async run(parsed, io) {
    noMoreArgs(parsed, 0);
    const name = (parsed.flags.actor as string | undefined) ?? 'mcp';
    if (!NAME.test(name)) throw new UsageError('--actor is 1-64 letters, digits, dots, dashes or underscores');
    const [{ StdioServerTransport }, { createMcpServer }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../../mcp/server.js'),
    ]);
    let backend: import('../../mcp/backend.js').Backend;
    if (parsed.flags.embedded) {
      const [{ Runtime }, { RuntimeBackend }] = await Promise.all([import('../../core/index.js'), import('../../mcp/RuntimeBackend.js')]);
      const runtime = new Runtime();
      // Sessions start where the MCP client started this server, as a program run from there would.
      backend = new RuntimeBackend(runtime, { name, kind: 'agent' }, () => runtime.close(), process.cwd(), undefined, false);
    } else {
      const client = await agentClient(parsed.flags, name, io);
      await client.health().catch((err: Error) => io.err(`termhost mcp: warning: ${err.message}; tools will fail until the daemon is up\n`));
      const { ClientBackend } = await import('../../mcp/backend.js');
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
