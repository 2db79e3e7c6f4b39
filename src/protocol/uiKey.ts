/**
 * The browser UI's page key: the second secret of a sign-in, beside its HttpOnly cookie (docs/security.md). The
 * sign-in page carries it once in a meta tag; the page's script keeps it in localStorage, which only pages of this
 * daemon's origin can read, and sends it with every API request. Imports nothing, so the page's bundle stays small.
 */

/** The request header the page sends the key in. */
export const UI_KEY_HEADER = 'x-termhost-ui-key';
/** The sign-in page's meta tags: the key, and where to go next (a path under /ui/). */
export const UI_KEY_META = 'termhost-ui-key';
export const UI_NEXT_META = 'termhost-next';
/** Where the page keeps the key (localStorage is per scheme, host and port). */
export const UI_KEY_STORAGE = 'termhost-ui-key';
