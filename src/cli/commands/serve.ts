/** termhost serve: run the daemon in the foreground until SIGINT/SIGTERM. */
import { startDaemon } from '../../main.js';
import { intFlag, parseArgs, UsageError } from '../args.js';

function retention(n: number | undefined): number | undefined {
  if (n !== undefined && n < -1) throw new UsageError('--transcript-retention-days is a number of days, 0 (write nothing) or -1 (keep forever)');
  return n;
}

function positive(n: number | undefined, flag: string): number | undefined {
  if (n !== undefined && n < 1) throw new UsageError(`-${flag} must be at least 1`);
  return n;
}
import type { Command } from './types.js';

/** text: one short line per event, for people; json: pino's lines, for log collectors. */
function logFormat(v: unknown): 'text' | 'json' {
  if (v === undefined || v === 'text' || v === 'json') return (v as 'text' | 'json' | undefined) ?? 'text';
  throw new UsageError('--log-format is text or json');
}

export const serve: Command = {
  name: 'serve',
  usage: 'serve [--listen HOST:PORT | --unix PATH] [--token T] [--allow-host NAME]... [--allow-origin URL]... [--max-sessions N] [--require-leases] [--no-secret-detect] [--transcript-retention-days N] [--no-transcripts] [--state-dir D] [--log-level L] [--log-format text|json]',
  summary: 'run the daemon (default 127.0.0.1:7070)',
  async run(argv, io) {
    const { flags } = parseArgs(argv, {
      listen: 'string',
      unix: 'string',
      'allow-host': 'multi',
      'allow-origin': 'multi',
      'max-sessions': 'string',
      'log-level': 'string',
      'log-format': 'string',
      'require-leases': 'boolean',
      'no-secret-detect': 'boolean',
      'transcript-retention-days': 'string',
      'no-transcripts': 'boolean',
    });
    const daemon = await startDaemon({
      listen: flags.listen as string | undefined,
      unix: flags.unix as string | undefined,
      token: (flags.token as string | undefined) ?? process.env.TERMHOST_TOKEN,
      stateDir: flags['state-dir'] as string | undefined,
      allowedHosts: flags['allow-host'] as string[] | undefined,
      allowedOrigins: flags['allow-origin'] as string[] | undefined,
      requireLeases: flags['require-leases'] === true,
      secretDetect: flags['no-secret-detect'] !== true,
      transcriptRetentionDays: retention(intFlag(flags['transcript-retention-days'], 'transcript-retention-days')),
      transcripts: flags['no-transcripts'] !== true,
      maxSessions: positive(intFlag(flags['max-sessions'], 'max-sessions'), 'max-sessions'),
      logger: { level: (flags['log-level'] as string | undefined) ?? 'info', format: logFormat(flags['log-format']) },
    });
    // Where it listens is in the log ("Server listening at ..."), between the start and the shutdown lines.
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await daemon.close();
    return 0;
  },
};
