/**
 * One MCP tool: a name, a description that teaches its use in a few lines, a zod input shape (validated by the SDK
 * before the tool runs), and a function returning concise text plus the structured form. A failure from termhost
 * becomes a tool error carrying the server's message and code, never a protocol failure.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SESSION_REF_PATTERN } from '../protocol/bounds.js';
import type { Backend } from './backend.js';

export interface ToolContext {
  backend: Backend;
  /** seq of the last screen this client read, per session: "changes since my last read". */
  lastSeq: Map<string, number>;
}

export interface ToolOutput {
  text: string;
  structured: Record<string, unknown>;
}

export interface ToolSpec<S extends z.ZodRawShape> {
  title: string;
  description: string;
  input: S;
  /** MCP hints: the tool changes nothing / may destroy something. */
  readOnly?: boolean;
  destructive?: boolean;
  run(args: z.infer<z.ZodObject<S>>, ctx: ToolContext): Promise<ToolOutput>;
}

export function defineTool<S extends z.ZodRawShape>(name: string, spec: ToolSpec<S>) {
  return { name, ...spec };
}

export type AnyTool = ReturnType<typeof defineTool<z.ZodRawShape>>;

/** An error as the agent sees it: what went wrong, its stable code, and whether retrying may help. */
export function toolError(err: unknown): CallToolResult {
  // A TermError (embedded) keeps extra fields in `extra`; a TermhostError (from the daemon) has the whole body.
  const e = err as { message?: string; code?: string; retryable?: boolean; body?: Record<string, unknown>; extra?: Record<string, unknown> };
  const code = typeof e.code === 'string' ? e.code : 'internal';
  const message = e.message ?? String(err);
  const retry = e.retryable ? ' (retryable: try again shortly)' : '';
  return {
    isError: true,
    content: [{ type: 'text', text: `error ${code}: ${message}${retry}` }],
    structuredContent: { ...(e.body ?? {}), ...(e.extra ?? {}), error: message, code, retryable: e.retryable === true },
  };
}

export function registerTools(server: McpServer, ctx: ToolContext, tools: readonly AnyTool[]): void {
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: { title: tool.title, readOnlyHint: tool.readOnly ?? false, destructiveHint: tool.destructive ?? false, openWorldHint: false },
      },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        try {
          const out = await tool.run(args as never, ctx);
          return { content: [{ type: 'text', text: out.text }], structuredContent: out.structured };
        } catch (err) {
          return toolError(err);
        }
      },
    );
  }
}

/** Shared input fragments. */
export const sessionId = z.string().regex(new RegExp(SESSION_REF_PATTERN)).describe('Session id (or name), as session_create or session_list give it.');
export const leaseId = z.string().min(1).max(64).optional().describe('Write under this lease (from lease_acquire).');
