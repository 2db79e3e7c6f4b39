/**
 * Screens as MCP resources, `termhost://sessions/{id}/screen` (numbered rows) and `.../screen.png` (the picture at
 * full size, default scale), with change notifications: a client that subscribes
 * to a screen hears `notifications/resources/updated` when it changes (at most every SCREEN_NOTIFY_INTERVAL_MS per
 * screen), and every client hears `list_changed` when sessions come and go.
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RuntimeEvent } from '../protocol/events.js';
import { formatScreen } from './format.js';
import type { Backend } from './backend.js';

export const SCREEN_NOTIFY_INTERVAL_MS = 100;
/** Subscriptions one client may hold. */
export const MAX_SUBSCRIPTIONS = 256;

const screenUri = (id: string) => `termhost://sessions/${id}/screen`;
const pictureUri = (id: string) => `termhost://sessions/${id}/screen.png`;
const URI_PATTERN = /^termhost:\/\/sessions\/([A-Za-z0-9][A-Za-z0-9._-]{0,63})\/screen(\.png)?$/;

export function registerScreenResources(server: McpServer, backend: Backend): () => void {
  server.registerResource(
    'screen',
    new ResourceTemplate('termhost://sessions/{id}/screen', {
      list: async () => ({
        resources: (await backend.list()).map((s) => ({
          uri: screenUri(s.id),
          name: `screen of ${s.id}`,
          description: `${s.command.join(' ')}${s.exited ? ' (exited)' : ''}`,
          mimeType: 'text/plain',
        })),
      }),
    }),
    { title: 'Terminal screen', description: 'The rendered screen of a session, as numbered rows with the cursor row marked.', mimeType: 'text/plain' },
    async (uri, vars) => {
      const id = String(vars.id);
      const screen = await backend.screen(id, {});
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: formatScreen(id, screen) }] };
    },
  );

  server.registerResource(
    'screen-png',
    new ResourceTemplate('termhost://sessions/{id}/screen.png', {
      list: async () => ({
        resources: (await backend.list()).map((s) => ({
          uri: pictureUri(s.id),
          name: `picture of the screen of ${s.id}`,
          description: `${s.command.join(' ')}${s.exited ? ' (exited)' : ''}`,
          mimeType: 'image/png',
        })),
      }),
    }),
    { title: 'Terminal screen (picture)', description: 'The screen of a session as a PNG, as a person sees it, at full size.', mimeType: 'image/png' },
    async (uri, vars) => {
      const shot = await backend.picture(String(vars.id), { format: 'png' });
      return { contents: [{ uri: uri.href, mimeType: 'image/png', blob: shot.bytes.toString('base64') }] };
    },
  );

  const subscribed = new Set<string>();
  const timers = new Map<string, NodeJS.Timeout>();
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    if (!URI_PATTERN.test(req.params.uri)) throw new Error(`unknown resource ${req.params.uri}; screens are termhost://sessions/{id}/screen and .../screen.png`);
    if (subscribed.size >= MAX_SUBSCRIPTIONS && !subscribed.has(req.params.uri)) throw new Error(`at most ${MAX_SUBSCRIPTIONS} subscriptions per client`);
    subscribed.add(req.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    subscribed.delete(req.params.uri);
    return {};
  });

  const notify = (uri: string) => {
    if (timers.has(uri)) return;
    timers.set(
      uri,
      setTimeout(() => {
        timers.delete(uri);
        if (subscribed.has(uri) && server.isConnected()) void server.server.sendResourceUpdated({ uri }).catch(() => {});
      }, SCREEN_NOTIFY_INTERVAL_MS),
    );
  };
  const unsubscribe = backend.subscribe((e: RuntimeEvent) => {
    if (!server.isConnected() || !e.session_id) return;
    const uris = [screenUri(e.session_id), pictureUri(e.session_id)];
    switch (e.type) {
      case 'session_opened':
      case 'session_closed':
        if (e.type === 'session_closed') for (const uri of uris) subscribed.delete(uri);
        server.sendResourceListChanged();
        break;
      case 'screen_changed':
      case 'process_exited':
      case 'resized':
      case 'secret_input_started':
      case 'secret_input_ended':
        for (const uri of uris) if (subscribed.has(uri)) notify(uri);
        break;
      default:
    }
  });
  return () => {
    unsubscribe();
    for (const t of timers.values()) clearTimeout(t);
    timers.clear();
  };
}
