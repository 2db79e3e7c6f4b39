/**
 * The termhost page: who is signed in, the event stream, and a router that rebuilds the whole view from the URL.
 *
 *   /ui/                         the session list (?ended=1 also lists sessions that are gone)
 *   /ui/wall                     every session's screen at once (?label=k=v filters, repeatable)
 *   /ui/sessions/{id}            one session, as a driver
 *   /ui/sessions/{id}?role=viewer  one session, watching only
 *
 * The browser holds no terminal state of its own: every view is built from the server, so a reload, a lost tab or a
 * restarted daemon land on the same view.
 */
import { adoptSignIn, api, ApiError, forgetKey } from './api.js';
import { fill, h } from './dom.js';
import { EventStream } from './events.js';
import { SessionList } from './SessionList.js';
import type { Role } from './paneParts.js';
import { SessionPane } from './SessionPane.js';
import { Wall } from './Wall.js';
import type { TerminalView } from './terminalView.js';
import type { Me } from './types.js';

// First, before anything routes on the address: the sign-in page hands over its key and leaves its URL.
adoptSignIn();
const appEl = document.getElementById('app')!;
const events = new EventStream();
const mainEl = h('main', { class: 'main' });
const streamEl = h('span', { class: 'stream', title: 'Live updates from the daemon' });
const whoEl = h('div', { class: 'who' });
let me: Me | undefined;
let current: { dispose(): void } | undefined;

/** xterm.js lives in its own bundle file; when it cannot load, the pane falls back to its DOM renderer. */
async function loadXterm(host: HTMLElement): Promise<TerminalView> {
  const mod = await import('./xtermView.js');
  return mod.createXtermView(host);
}

function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  if (!replace) route();
}

function route(): void {
  current?.dispose();
  current = undefined;
  const m = /^\/ui\/sessions\/([A-Za-z0-9][A-Za-z0-9._-]{0,63})\/?$/.exec(location.pathname);
  if (m) {
    const role: Role = new URLSearchParams(location.search).get('role') === 'viewer' ? 'viewer' : 'driver';
    const pane = new SessionPane({ id: m[1]!, me, events, navigate }, role, loadXterm);
    fill(mainEl, pane.root);
    current = pane;
    document.title = `${m[1]} · termhost`;
    void pane.connect();
    return;
  }
  document.title = 'termhost';
  if (!me) return signedOut();
  if (/^\/ui\/wall\/?$/.test(location.pathname)) {
    const wall = new Wall({ me, events, navigate });
    fill(mainEl, wall.root);
    current = wall;
    document.title = 'wall · termhost';
    // For the tests and the bench: how many pictures the wall fetched, and how many came back unchanged.
    (window as unknown as { __wall?: Wall }).__wall = wall;
    return;
  }
  const list = new SessionList({ me, events, navigate });
  fill(mainEl, list.root);
  current = list;
}

function signedOut(): void {
  fill(
    mainEl,
    h(
      'div',
      { class: 'card signin' },
      h('h1', {}, 'Not signed in'),
      h('p', {}, 'This browser has no termhost sign-in, or it has ended. On the machine that runs the daemon, run:'),
      h('pre', {}, 'termhost ui'),
      h('p', { class: 'muted' }, 'It opens this page signed in through a link that works once, for 60 seconds. Your token never goes into the browser.'),
    ),
  );
}

function unreachable(message: string): void {
  fill(
    mainEl,
    h(
      'div',
      { class: 'card' },
      h('h1', {}, h('span', { class: 'dot tone-amber' }), ' Cannot connect to the daemon'),
      h('p', {}, message),
      h('button', { class: 'btn', onclick: () => void boot() }, 'Retry'),
    ),
  );
}

function renderWho(): void {
  if (!me) return fill(whoEl);
  const kind = me.actor.kind === 'viewer' ? 'viewer (read-only)' : 'person';
  fill(
    whoEl,
    h('span', { class: 'who-name' }, me.actor.name),
    h('span', { class: `badge ${me.actor.kind === 'viewer' ? 'badge-readonly' : 'badge-person'}` }, kind),
    h(
      'button',
      {
        class: 'btn btn-small',
        onclick: async () => {
          await api('POST', '/ui/logout').catch(() => undefined);
          forgetKey();
          me = undefined;
          events.stop();
          renderWho();
          route();
        },
      },
      'Sign out',
    ),
  );
}

async function boot(): Promise<void> {
  try {
    me = await api<Me>('GET', '/ui/me');
  } catch (err) {
    const e = err as ApiError;
    me = undefined;
    // The pane shows its own refused or cannot-connect state; the list needs a sign-in first.
    if (e.status === 0 && !location.pathname.startsWith('/ui/sessions/')) return unreachable(e.message);
  }
  renderWho();
  if (me) events.start();
  route();
}

events.beforeReopen = async () => {
  try {
    await api('GET', '/ui/me');
  } catch (err) {
    if ((err as ApiError).status !== 401) return true; // the daemon is down or failing: keep trying
    // The sign-in ended (expired, signed out elsewhere, or its token was revoked): stop, and say so.
    me = undefined;
    renderWho();
    streamEl.dataset.status = 'off';
    streamEl.textContent = 'signed out';
    if (!location.pathname.startsWith('/ui/sessions/')) route();
    return false;
  }
  return true;
};
events.onStatus((s) => {
  streamEl.dataset.status = s;
  streamEl.textContent = s === 'live' ? 'live' : 'reconnecting…';
});
window.addEventListener('popstate', route);
fill(
  appEl,
  h(
    'header',
    { class: 'topbar' },
    h('a', { class: 'brand', href: '/ui/', onclick: (e: MouseEvent) => (e.preventDefault(), navigate('/ui/')) }, h('span', { class: 'brand-mark' }, '▌'), 'termhost'),
    streamEl,
    h('div', { class: 'spacer' }),
    whoEl,
  ),
  mainEl,
);
void boot();
