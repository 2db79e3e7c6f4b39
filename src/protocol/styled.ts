/**
 * The styled screen on the wire (GET /v1/sessions/{id}/screen?format=styled): each row a list of spans, runs of text
 * that share colours and attributes. It is what the browser UI's DOM fallback renderer draws when xterm.js cannot
 * load. The spans come from core/snapshot/styled.ts.
 */
import { Type } from '@sinclair/typebox';

const ColorSchema = Type.Union([Type.Integer({ minimum: 0, maximum: 255 }), Type.String({ pattern: '^#[0-9a-f]{6}$' })], {
  description: 'A palette index 0..255, or "#rrggbb" for true colour; absent means the default colour.',
});
const Flag = Type.Optional(Type.Literal(true));

export const SpanSchema = Type.Object({
  text: Type.String(),
  fg: Type.Optional(ColorSchema),
  bg: Type.Optional(ColorSchema),
  bold: Flag,
  dim: Flag,
  italic: Flag,
  underline: Flag,
  blink: Flag,
  inverse: Flag,
  invisible: Flag,
  strike: Flag,
});

export const StyledRowsSchema = Type.Array(Type.Array(SpanSchema), {
  description: 'format=styled only: one list of spans per row; trailing default-styled blanks are dropped.',
});
