/**
 * Paste encoder: turns text an agent or person pastes into the bytes a terminal would deliver for that paste.
 *
 * Owns line-ending conversion and bracketed-paste framing (DECSET ?2004). Pure: no I/O.
 */

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/**
 * Encodes `text` as a paste. Line endings become CR: a terminal delivers a pasted newline as the Enter key does
 * (xterm rewrites LF to CR in pasted selections too), and a program reading a tty in raw mode expects CR. A CRLF pair
 * becomes a single CR so Windows-style text does not turn into double line breaks.
 *
 * With `bracketed` (the application set ?2004) the text is wrapped in `ESC[200~` ... `ESC[201~` so the application
 * can treat it as data rather than typed keys. Any end marker inside the text is removed first: otherwise pasted
 * text could end the paste early and have its remainder executed as keystrokes, which is exactly what bracketed
 * paste exists to prevent. Removal repeats until none is left, because deleting one marker can join its neighbours
 * into a new one ("\x1b[20" + marker + "1~").
 */
export function encodePaste(text: string, bracketed: boolean): Buffer {
  let body = text.replace(/\r?\n/g, '\r');
  if (!bracketed) return Buffer.from(body, 'utf8');
  while (body.includes(PASTE_END)) body = body.split(PASTE_END).join('');
  return Buffer.from(PASTE_START + body + PASTE_END, 'utf8');
}
