/**
 * The MCP server: the tools in tools/ and the screen resources over one backend (a daemon through the client, or a
 * runtime in this process). One instance serves one MCP client, so "changes since my last read" is per client.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { VERSION } from '../version.js';
import type { Backend } from './backend.js';
import { registerScreenResources } from './resources.js';
import { registerTools } from './tool.js';
import { TOOLS } from './tools/index.js';

const INSTRUCTIONS = [
  'termhost runs programs in real terminals. Typical loop: session_create, send (text and keys such as Enter or C-c),',
  'wait_for (text, regex, stable_ms or exit; never sleep), then read_screen (changes_only=true to pay only for rows',
  'that changed). If the screen is hidden (secret_input_active), the program asked for a password: a person must type',
  'it (the error says how to ask one), or abort the prompt with send C-c.',
].join(' ');

export interface TermhostMcp {
  server: McpServer;
  close(): Promise<void>;
}

export function createMcpServer(backend: Backend, opts: { ownsBackend?: boolean } = {}): TermhostMcp {
  const server = new McpServer({ name: 'termhost', version: VERSION }, { instructions: INSTRUCTIONS });
  registerTools(server, { backend, lastSeq: new Map(), lastLines: new Map() }, TOOLS);
  const stopResources = registerScreenResources(server, backend);
  let closed = false;
  return {
    server,
    async close() {
      if (closed) return;
      closed = true;
      stopResources();
      await server.close();
      if (opts.ownsBackend) await backend.close();
    },
  };
}
