import type { Io } from '../context.js';

export interface Command {
  name: string;
  /** One line: arguments and flags. */
  usage: string;
  summary: string;
  run(argv: string[], io: Io): Promise<number>;
}
