/**
 * Every command, in the order `termhost help` lists them. Each command's file holds its table and its run; a file is
 * loaded only when its command runs (or when help or completion needs every table), so `termhost ls` loads ls.
 */
import type { Command } from './types.js';

const LOADERS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.js')).serve,
  new: async () => (await import('./new.js')).newSession,
  ls: async () => (await import('./ls.js')).ls,
  send: async () => (await import('./send.js')).send,
  screen: async () => (await import('./screen.js')).screen,
  scrollback: async () => (await import('./scrollback.js')).scrollback,
  screenshot: async () => (await import('./screenshot.js')).screenshot,
  wait: async () => (await import('./wait.js')).wait,
  run: async () => (await import('./run.js')).run,
  commands: async () => (await import('./commands.js')).commands,
  resize: async () => (await import('./resize.js')).resize,
  mouse: async () => (await import('./mouse.js')).mouse,
  signal: async () => (await import('./signal.js')).signal,
  kill: async () => (await import('./kill.js')).kill,
  prune: async () => (await import('./prune.js')).prune,
  secret: async () => (await import('./secret.js')).secret,
  moderate: async () => (await import('./moderate.js')).moderate,
  attach: async () => (await import('./attach.js')).attach,
  transcript: async () => (await import('./transcript.js')).transcript,
  audit: async () => (await import('./audit.js')).audit,
  ui: async () => (await import('./ui.js')).ui,
  token: async () => (await import('./token.js')).token,
  profiles: async () => (await import('./profiles.js')).profiles,
  mcp: async () => (await import('./mcp.js')).mcp,
  doctor: async () => (await import('./doctor.js')).doctor,
  completion: async () => (await import('./completion.js')).completion,
  version: async () => (await import('./version.js')).version,
};

export const COMMAND_NAMES: readonly string[] = Object.keys(LOADERS);

export function loadCommand(name: string): Promise<Command> | undefined {
  return Object.hasOwn(LOADERS, name) ? LOADERS[name]!() : undefined;
}

export function loadAllCommands(): Promise<Command[]> {
  return Promise.all(COMMAND_NAMES.map((n) => LOADERS[n]!()));
}
