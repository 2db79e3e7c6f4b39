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
  /**
   * The rows this client last read of each session's normal screen and of its alternate screen (key: readKey), so a
   * wait answers with only the rows that changed since; leaving vim is compared with the shell screen read before
   * vim started. Bounded (LAST_READS_MAX).
   */
  lastLines: Map<string, LastRead>;
}

export interface ToolOutput {
  text: string;
  structured: Record<string, unknown>;
  /** Pictures, sent as MCP image content blocks after the text (never as base64 inside a text block). */
  images?: { data: Buffer; mimeType: string }[];
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

/**
 * What an agent should do about a secret-input window, which it can neither read through nor end: a person must
 * type the secret, or the agent aborts the prompt. Under `termhost mcp --embedded` no person can reach the session
 * at all, and the agent is told so plainly rather than "retry shortly".
 */
function secretHint(sessionId: string | undefined, peopleCanReach: boolean): string {
  const id = sessionId ?? 'ID';
  if (!peopleCanReach) {
    return ` No person can reach this session: it runs inside this MCP server (termhost mcp --embedded), so nobody can type the secret. Abort the prompt with send {"key":"C-c"} (or C-d), then run the command without the prompt (for example with the secret in the environment, set by a person).`;
  }
  return ` A person must type it: ask one to run \`termhost attach -write ${id}\` (or open it with \`termhost ui --session ${id}\`), then call wait_for again. Or abort the prompt with send {"key":"C-c"}.`;
}

/**
 * What an agent does about a moderated session that refuses it: wait for a person, never try to become one (its
 * token does not count, whatever it attaches as). Inside an embedded MCP server nobody can attach.
 */
function moderationHint(code: string, sessionId: string | undefined, reachable: boolean): string {
  const id = sessionId ?? 'ID';
  if (code === 'input_paused') return ` A moderator paused agent input: tell the user, and retry after they resume it (termhost moderate ${id} resume).`;
  if (!reachable) return ' No person can attach to this session: it runs inside this MCP server (termhost mcp --embedded). Start it without require_moderator, or use a daemon.';
  return ` Ask the user to attach as driver (\`termhost attach -write ${id}\`, or open it in the UI), then retry; attaching yourself does not count, an agent's token is not a person.`;
}

/** An error as the agent sees it: what went wrong, its stable code, whether retrying may help, and what to do. */
export function toolError(err: unknown, opts: { sessionId?: string; peopleCanReach?: boolean } = {}): CallToolResult {
  // A TermError (embedded) keeps extra fields in `extra`; a TermhostError (from the daemon) has the whole body.
  const e = err as { message?: string; code?: string; retryable?: boolean; body?: Record<string, unknown>; extra?: Record<string, unknown> };
  const code = typeof e.code === 'string' ? e.code : 'internal';
  const message = e.message ?? String(err);
  const secret = code === 'secret_input_active';
  const reachable = opts.peopleCanReach ?? true;
  // A window nobody can end is not worth retrying; with a person around it is, once they have typed.
  const moderated = code === 'moderator_required' || code === 'input_paused';
  const retryable = secret || code === 'moderator_required' ? reachable : e.retryable === true;
  const hint = secret ? secretHint(opts.sessionId, reachable) : moderated ? moderationHint(code, opts.sessionId, reachable) : '';
  const retry = retryable && !secret ? ' (retryable: try again shortly)' : '';
  return {
    isError: true,
    content: [{ type: 'text', text: `error ${code}: ${message}${retry}${hint}` }],
    structuredContent: { ...(e.body ?? {}), ...(e.extra ?? {}), error: message, code, retryable, ...(hint ? { hint: hint.trim() } : {}) },
  };
}

/** What a client last read of one screen of a session, and the text it typed there since (see format.ts markEcho). */
export interface LastRead {
  seq: number;
  lines: string[];
  typed: string[];
}

/** Text items remembered per read, and the longest one: enough for the echo of what was typed since a read. */
const TYPED_ITEMS_MAX = 32;
const TYPED_CHARS_MAX = 4096;

/** Sessions whose last read a client remembers; the oldest is forgotten first (a later wait then shows the full screen). */
export const LAST_READS_MAX = 64;

/** Where the rows last read of one of a session's two screens are kept. */
export function readKey(session: string, altScreen: boolean): string {
  return `${session}\u0000${altScreen ? 'alt' : 'normal'}`;
}

/** The rows this client last read of the screen that `screen` is on (normal or alternate). */
export function lastReadOf(ctx: ToolContext, session: string, screen: { alt_screen: boolean }): LastRead | undefined {
  return ctx.lastLines.get(readKey(session, screen.alt_screen));
}

/** What this client last saw of a session: its seq and rows, for "changes since my last read". */
export function rememberRead(ctx: ToolContext, session: string, screen: { seq: number; lines: string[]; alt_screen: boolean }): void {
  ctx.lastSeq.set(session, screen.seq);
  const key = readKey(session, screen.alt_screen);
  ctx.lastLines.delete(key);
  ctx.lastLines.set(key, { seq: screen.seq, lines: screen.lines, typed: [] });
  while (ctx.lastLines.size > LAST_READS_MAX) ctx.lastLines.delete(ctx.lastLines.keys().next().value as string);
}

/** This client typed these text items into a session: a later wait can mark their echo instead of repeating it. */
export function noteTyped(ctx: ToolContext, session: string, texts: readonly string[]): void {
  const kept = texts.filter((t) => t.length <= TYPED_CHARS_MAX);
  for (const alt of [false, true]) {
    const read = ctx.lastLines.get(readKey(session, alt));
    if (read) read.typed = [...read.typed, ...kept].slice(-TYPED_ITEMS_MAX);
  }
}

/** Forget what this client read of a session (it was killed). */
export function forgetReads(ctx: ToolContext, session: string): void {
  ctx.lastSeq.delete(session);
  ctx.lastLines.delete(readKey(session, false));
  ctx.lastLines.delete(readKey(session, true));
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
          const images = (out.images ?? []).map((i) => ({ type: 'image' as const, data: i.data.toString('base64'), mimeType: i.mimeType }));
          return { content: [{ type: 'text', text: out.text }, ...images], structuredContent: out.structured };
        } catch (err) {
          const sessionId = typeof args.session === 'string' ? args.session : undefined;
          return toolError(err, { sessionId, peopleCanReach: ctx.backend.peopleCanReach });
        }
      },
    );
  }
}

/** Shared input fragments. */
export const sessionId = z.string().regex(new RegExp(SESSION_REF_PATTERN)).describe('Session id (or name), as session_create or session_list give it.');
export const leaseId = z.string().min(1).max(64).optional().describe('Write under this lease (from lease_acquire).');
