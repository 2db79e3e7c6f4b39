/**
 * Request targets an adversary tries for one path: fragments, `;`, encoded slashes, doubled slashes, dot segments and
 * detours through other routes. Shared by the attacks on authentication (route-auth) and on scopes (scope-isolation).
 */

/** A registered route's URL with its parameters filled in. */
export function concrete(url: string, id: string): string {
  return url
    .replace(':id', id)
    .replace(':lease_id', 'lease1')
    .replace(':cid', 'c1')
    .replace(':name.json', 'attach-auth-frame.json')
    .replace(':name', 'victim')
    .replace(':file', 'app.js');
}

/** The raw request targets an adversary would try for one path. */
export function variants(p: string, id: string): string[] {
  const last = p.lastIndexOf('/');
  return [
    p,
    `${p}#/attach`,
    `${p}#`,
    `${p}?x=1#/attach`,
    `${p}#/../../health`,
    `${p};/attach`,
    `${p};`,
    `${p}%2Fattach`,
    `${p}%2F..%2F..%2Fhealth`,
    `${p}%23/attach`,
    // The live stream authenticates itself too: the same tricks with its path.
    `${p}#/alis`,
    `${p};/alis`,
    `${p}%2Falis`,
    `/${p}`,
    p.replace(/\//g, '//'),
    `/.${p}`,
    `${p.slice(0, last)}/.${p.slice(last)}`,
    `/ui/..${p}`,
    `/ui/%2e%2e${p}`,
    `/health/..${p}`,
    `/v1/sessions/${id}/attach/..${p}`,
    `/v1/sessions/${id}/attach/../..${p.slice(p.indexOf('/', 1))}`,
  ];
}

/** Run `fn` over `items`, `width` at a time. */
export async function pool<T>(items: T[], width: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}
