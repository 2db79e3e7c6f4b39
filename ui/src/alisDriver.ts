/**
 * A live termhost session in asciinema-player, with the token kept out of the URL.
 *
 * asciinema-player's own WebSocket driver opens the socket itself and never sends a message, so it could only carry
 * a credential in its URL, where proxies, logs and browser history keep it. This adaptor is a custom driver (the
 * player accepts a function as its source): it opens the ALiS socket, sends the attach auth frame with a fresh
 * single-use token as its first message, reads the ALiS frames, and hands the player what they say: a reset with the
 * screen, output, resizes, and the end. It reconnects after a dropped connection, with a new token each time.
 *
 *   import { termhostLive } from './alis-driver.js';
 *   AsciinemaPlayer.create(termhostLive({ url: 'ws://127.0.0.1:7681/v1/sessions/ID/alis', token: fetchToken }), el);
 *
 * `token` is called for every connection and returns an attach token (POST /v1/sessions/{id}/attach-tokens, made by
 * a backend that holds an API token, or by a signed-in termhost page); any role may watch.
 */
import { ALIS_SUBPROTOCOL, decodeAlisFrame, isAlisMagic } from '../../src/protocol/alis.js';

export interface LiveOptions {
  /** The stream's WebSocket URL: ws(s)://HOST/v1/sessions/{id}/alis, with no query string. */
  url: string;
  /** A fresh attach token, for each connection: they are single-use and expire after 60 s. */
  token: () => string | Promise<string>;
}

/** The parts of asciinema-player's driver interface this adaptor uses. */
interface PlayerCallbacks {
  dispatch: (event: string, data?: unknown) => void;
  logger: { info: (...a: unknown[]) => void; debug: (...a: unknown[]) => void };
}

interface Timing {
  time: number | null;
  rate: number;
  sampledAt: number;
}

/** Reconnect delays: doubling from half a second, at most ten. */
const RECONNECT_BASE_MS = 500;
const RECONNECT_MAX_MS = 10_000;

/** Close codes that mean the stream is over, not that the network dropped: normal, and termhost's 4xxx refusals. */
const isFinal = (code: number) => code === 1000 || code === 1008 || (code >= 4000 && code <= 4999);

export function termhostLive(opts: LiveOptions) {
  return ({ dispatch, logger }: PlayerCallbacks) => {
    let socket: WebSocket | undefined;
    let started = false;
    let stopped = false;
    let attempt = 0;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let timing: Timing = { time: null, rate: 0, sampledAt: performance.timeOrigin + performance.now() };

    const setTime = (time: number | null, rate: number) => {
      timing = { time, rate, sampledAt: performance.timeOrigin + performance.now() };
      dispatch('timing', timing);
    };

    const connect = async () => {
      if (stopped) return;
      let token: string;
      try {
        token = await opts.token();
      } catch (e) {
        return dispatch('ended', { message: `Cannot watch: ${(e as Error).message}` });
      }
      if (stopped) return;
      const ws = new WebSocket(opts.url, [ALIS_SUBPROTOCOL]);
      socket = ws;
      ws.binaryType = 'arraybuffer';
      let magic = false;
      let ended = false;
      const text = new TextDecoder();
      ws.onopen = () => ws.send(JSON.stringify({ kind: 'auth', token }));
      ws.onmessage = (m: MessageEvent) => {
        if (!(m.data instanceof ArrayBuffer)) return;
        const bytes = new Uint8Array(m.data);
        if (!magic) {
          magic = isAlisMagic(bytes);
          if (!magic) ws.close(1002, 'not an ALiS v1 stream');
          return;
        }
        const d = decodeAlisFrame(bytes);
        if (!d.ok) return logger.debug(`termhost live: ${d.error}`);
        const f = d.frame;
        if (f.type === 'reset') {
          attempt = 0;
          dispatch('reset', { size: { cols: f.cols, rows: f.rows }, init: f.init, theme: null });
          setTime(f.timeUs / 1e6, 1);
          dispatch('playing');
        } else if (f.type === 'output') {
          dispatch('output', text.decode(f.data, { stream: true }));
        } else if (f.type === 'resize') {
          dispatch('resize', { cols: f.cols, rows: f.rows });
        } else if (f.type === 'eot') {
          ended = true;
        }
      };
      ws.onclose = (e: CloseEvent) => {
        if (socket !== ws || stopped) return;
        socket = undefined;
        if (ended || isFinal(e.code)) {
          setTime(timing.time === null ? null : currentTime(), 0);
          return dispatch('ended', { message: e.reason || 'Stream ended' });
        }
        const delay = Math.min(RECONNECT_BASE_MS * 2 ** attempt++, RECONNECT_MAX_MS);
        logger.info(`termhost live: connection lost (${e.code}), reconnecting in ${delay} ms`);
        dispatch('loading');
        retry = setTimeout(() => void connect(), delay);
      };
    };

    const currentTime = () => (timing.time === null ? null : timing.time + ((performance.timeOrigin + performance.now() - timing.sampledAt) / 1000) * timing.rate);

    return {
      play: () => {
        if (started || stopped) return true;
        started = true;
        dispatch('play');
        void connect();
        return true;
      },
      stop: () => {
        stopped = true;
        clearTimeout(retry);
        socket?.close();
      },
      getTiming: () => ({ ...timing, time: currentTime(), sampledAt: performance.timeOrigin + performance.now() }),
    };
  };
}
