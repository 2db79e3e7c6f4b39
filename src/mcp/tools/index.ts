/** Every tool the MCP server offers, one file each. */
import type { AnyTool } from '../tool.js';
import await_command from './await_command.js';
import lease_acquire from './lease_acquire.js';
import lease_release from './lease_release.js';
import mouse from './mouse.js';
import read_screen from './read_screen.js';
import read_scrollback from './read_scrollback.js';
import resize from './resize.js';
import run from './run.js';
import send from './send.js';
import session_create from './session_create.js';
import session_kill from './session_kill.js';
import session_list from './session_list.js';
import signal from './signal.js';
import wait_for from './wait_for.js';

export const TOOLS = [
  run,
  await_command,
  session_create,
  session_list,
  session_kill,
  send,
  read_screen,
  read_scrollback,
  wait_for,
  mouse,
  resize,
  signal,
  lease_acquire,
  lease_release,
] as unknown as readonly AnyTool[];
