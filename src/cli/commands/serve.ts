/** termhost serve: run the daemon in the foreground until SIGINT/SIGTERM. */
import path from 'node:path';
import { DAEMON_DEFAULTS as D } from '../../config.js';
import { noMoreArgs, UsageError } from '../args.js';
import { tokenFromFile } from '../context.js';
import type { Command } from './types.js';

export const serve: Command = {
  name: 'serve',
  summary: 'run the daemon in the foreground (until SIGINT or SIGTERM)',
  client: false,
  details: [
    'It writes <state dir>/daemon.json (its address and pid, 0600) so that the CLI, the SDK and `termhost mcp` on this',
    'machine find it, and removes it on exit. A second daemon on the same state dir refuses to start.',
    '--config FILE reads the settings (and the command profiles) from a JSON file (TOML when it ends in .toml), checked at start; flags win over it.',
  ],
  flags: [
    { name: 'listen', kind: 'string', value: 'HOST:PORT', help: 'TCP address; port 0 picks a free one', default: D.listen },
    { name: 'unix', kind: 'string', value: 'PATH', help: 'listen on a unix socket instead (its directory must be 0700)', complete: 'file' },
    { name: 'token', kind: 'string', value: 'T', help: "the daemon's own (admin) token; visible in ps: prefer --token-file", default: '$TERMHOST_TOKEN, else generated into <state dir>/token' },
    { name: 'token-file', kind: 'string', value: 'FILE', help: 'read the token from this file (its first line)', complete: 'file' },
    { name: 'state-dir', kind: 'string', value: 'DIR', help: 'token, records, transcripts and daemon.json', default: '$XDG_STATE_HOME/termhost', complete: 'dir' },
    { name: 'allow-host', kind: 'list', value: 'NAME', help: 'accept this Host header besides the loopback names' },
    { name: 'allow-origin', kind: 'list', value: 'URL', help: 'a browser origin allowed to attach besides the daemon\'s own' },
    { name: 'max-sessions', kind: 'int', value: 'N', help: 'running sessions at once (exited ones do not count)', default: String(D.maxSessions), min: 1 },
    { name: 'exited-ttl', kind: 'int', value: 'S', help: 'seconds an exited session stays readable (final screen, exit status) before it is freed', default: String(D.exitedTtlMs / 1000), min: 0 },
    { name: 'require-leases', kind: 'boolean', help: 'agents must hold an input lease to type' },
    { name: 'no-secret-detect', kind: 'boolean', help: 'do not open secret-input windows on password prompts' },
    { name: 'transcript-retention-days', kind: 'int', value: 'N', help: 'days stored output is kept; 0 stores none, -1 keeps it forever', default: String(D.transcriptRetentionDays), min: -1 },
    { name: 'no-transcripts', kind: 'boolean', help: 'store no session output at all (records are still kept)' },
    { name: 'config', kind: 'string', value: 'FILE', help: 'read settings and command profiles from this JSON file, or TOML if it ends in .toml (docs/api.md, The config file)', complete: 'file' },
    { name: 'restrict-commands', kind: 'boolean', help: 'sessions start only from the config\'s profiles: a caller\'s argv, cwd or env is refused (403)' },
    { name: 'tls-cert', kind: 'string', value: 'FILE', help: 'serve HTTPS and WSS with this PEM certificate (chain); needs --tls-key', complete: 'file' },
    { name: 'tls-key', kind: 'string', value: 'FILE', help: "the certificate's PEM private key", complete: 'file' },
    { name: 'allow-plain-http', kind: 'boolean', help: 'listen off loopback without TLS all the same (tokens cross the network in the clear)' },
    { name: 'rate-limit', kind: 'list', value: 'KIND=N', help: 'per minute, 0 for none: attach-tokens (per token, default 30), session-starts (10), login-codes (10), failed-auths (per address, 60)' },
    { name: 'log-level', kind: 'string', value: 'L', help: 'log level (requests are logged at debug)', default: D.logLevel, choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    { name: 'log-format', kind: 'string', value: 'F', help: 'text: a short line per event, for people; json: pino lines, for collectors', default: D.logFormat, choices: ['text', 'json'] },
  ],
  examples: [
    'termhost serve',
    'termhost serve --listen 127.0.0.1:9000',
    'termhost serve --unix /run/user/1000/termhost/sock',
    'termhost serve --listen 0.0.0.0:7070 --token-file ~/.config/termhost/token --allow-host build-box --tls-cert cert.pem --tls-key key.pem',
    'termhost serve --rate-limit session-starts=30 --rate-limit failed-auths=0',
  ],
  async run(parsed, io) {
    noMoreArgs(parsed, 0);
    const flags = parsed.flags;
    if (flags.token !== undefined && flags['token-file'] !== undefined) throw new UsageError('give --token or --token-file, not both');
    // The config file first; every flag given on the command line wins over it.
    const config = flags.config === undefined ? undefined : (await import('../../configFile.js')).loadConfig(path.resolve(flags.config as string));
    const c = config?.options ?? {};
    const flagOr = <T>(flag: unknown, fromFile: T | undefined): T | undefined => (flag !== undefined ? (flag as T) : fromFile);
    const yes = (flag: unknown, fromFile: boolean | undefined) => (flag === true ? true : fromFile);
    const tokenFile = flags['token-file'] !== undefined ? path.resolve(flags['token-file'] as string) : flags.token === undefined ? c.tokenFile : undefined;
    const token = tokenFile ? tokenFromFile(tokenFile, 'token-file', (w) => io.err(`termhost serve: ${w}`)) : ((flags.token as string | undefined) ?? (process.env.TERMHOST_TOKEN || undefined));
    if ((flags['tls-cert'] === undefined) !== (flags['tls-key'] === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
    const { parseRateLimit } = await import('../../server/rateLimits.js');
    let rateLimits: Record<string, number> | undefined;
    try {
      rateLimits = Object.fromEntries(((flags['rate-limit'] as string[] | undefined) ?? []).map(parseRateLimit));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const { startDaemon } = await import('../../main.js');
    const daemon = await startDaemon({
      ...c,
      listen: flagOr(flags.listen, c.listen),
      unix: flagOr(flags.unix, c.unix),
      token,
      tokenFile,
      stateDir: flagOr(flags['state-dir'], c.stateDir),
      allowedHosts: flagOr(flags['allow-host'], c.allowedHosts),
      allowedOrigins: flagOr(flags['allow-origin'], c.allowedOrigins),
      requireLeases: yes(flags['require-leases'], c.requireLeases),
      secretDetect: flags['no-secret-detect'] === true ? false : c.secretDetect,
      transcriptRetentionDays: flagOr(flags['transcript-retention-days'], c.transcriptRetentionDays),
      transcripts: flags['no-transcripts'] === true ? false : c.transcripts,
      maxSessions: flagOr(flags['max-sessions'], c.maxSessions),
      tls: flags['tls-cert'] === undefined ? c.tls : { certFile: path.resolve(flags['tls-cert'] as string), keyFile: path.resolve(flags['tls-key'] as string) },
      allowPlainHttp: yes(flags['allow-plain-http'], c.allowPlainHttp),
      rateLimits: { ...c.rateLimits, ...rateLimits },
      restrictCommands: yes(flags['restrict-commands'], c.restrictCommands),
      exitedTtlMs: flags['exited-ttl'] === undefined ? c.exitedTtlMs : (flags['exited-ttl'] as number) * 1000,
      logger: {
        level: (flags['log-level'] as string | undefined) ?? config?.logLevel ?? D.logLevel,
        format: (flags['log-format'] as string | undefined) ?? config?.logFormat ?? D.logFormat,
      },
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
