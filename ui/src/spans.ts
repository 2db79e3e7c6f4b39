/**
 * The server's styled spans (GET .../screen?format=styled) as CSS, for the DOM fallback renderer. Pure: the
 * renderer turns these into elements.
 */
import type { Static } from '@sinclair/typebox';
import type { SpanSchema } from '../../src/protocol/styled.js';
import { THEME, paletteColor } from './theme.js';

/** One span as the server sends it; the wire schema is the single definition. */
export type Span = Static<typeof SpanSchema>;

export interface SpanStyle {
  color?: string;
  backgroundColor?: string;
  fontWeight?: string;
  opacity?: string;
  fontStyle?: string;
  textDecoration?: string;
  visibility?: string;
}

const colorOf = (c: number | string | undefined): string | undefined => (c === undefined ? undefined : typeof c === 'string' ? c : paletteColor(c));

export function spanStyle(span: Span): SpanStyle {
  let fg = colorOf(span.fg);
  let bg = colorOf(span.bg);
  if (span.inverse) [fg, bg] = [bg ?? THEME.background, fg ?? THEME.foreground];
  const style: SpanStyle = {};
  if (fg) style.color = fg;
  if (bg) style.backgroundColor = bg;
  if (span.bold) style.fontWeight = 'bold';
  if (span.dim) style.opacity = '0.6';
  if (span.italic) style.fontStyle = 'italic';
  const lines = [span.underline ? 'underline' : '', span.strike ? 'line-through' : ''].filter(Boolean).join(' ');
  if (lines) style.textDecoration = lines;
  if (span.invisible) style.visibility = 'hidden';
  return style;
}
