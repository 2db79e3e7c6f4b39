/**
 * JSON Schemas of the attach protocol's text frames (see attach.ts and docs/protocol.md), published at
 * /schemas/client-frame.json and /schemas/server-frame.json. Binary frames (stdin, stdout, repaint) are a tag byte,
 * a big-endian u64 stream offset for the server's, and raw bytes; they have no JSON form. The type checks at the end
 * keep these schemas and the TypeScript frame types in step.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { AuthFrame, ServerFrame } from './attach.js';

const Role = Type.Union([Type.Literal('viewer'), Type.Literal('driver')]);
const View = Type.Union([Type.Literal('stream'), Type.Literal('render')]);
const Size = (d: string) => Type.Integer({ minimum: 1, maximum: 1000, description: d });

export const AuthFrameSchema = Type.Object(
  {
    kind: Type.Literal('auth'),
    token: Type.Optional(Type.String({ maxLength: 4096, description: 'An attach token, or the bearer token.' })),
    role: Type.Optional(Role),
    view: Type.Optional(View),
    since_seq: Type.Optional(Type.Integer({ minimum: 0, description: 'Resume after this stream offset.' })),
    cols: Type.Optional(Size('The client terminal width (render view).')),
    rows: Type.Optional(Size('The client terminal height (render view).')),
  },
  { description: 'Always the first frame: credentials and options.', additionalProperties: false },
);

export const ClientFrameSchema = Type.Union(
  [
    AuthFrameSchema,
    Type.Object({ kind: Type.Literal('resize'), cols: Size('columns'), rows: Size('rows') }, { description: 'Resize the session (drivers only).' }),
  ],
  { description: 'Text frames a client sends. Keystrokes go as binary frames: 0x02 followed by the bytes.' },
);

const ExitReason = Type.Union([Type.Literal('completed'), Type.Literal('crashed'), Type.Literal('closed')]);
const SecretInputState = Type.Object({
  active: Type.Boolean(),
  since: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  started_by: Type.Union([Type.Object({ name: Type.String(), kind: Type.String() }), Type.Null()]),
});

export const ServerTextFrameSchema = Type.Union(
  [
    Type.Object(
      {
        kind: Type.Literal('hello'),
        session: Type.Object({
          id: Type.String(),
          command: Type.Array(Type.String()),
          cols: Type.Integer(),
          rows: Type.Integer(),
          title: Type.String(),
          exited: Type.Boolean(),
        }),
        role: Role,
        view: View,
        seq: Type.Integer({ description: 'Where the live stream starts.' }),
      },
      { description: 'First frame after a successful auth.' },
    ),
    Type.Object({ kind: Type.Literal('resized'), cols: Type.Integer(), rows: Type.Integer() }, { description: "The session's size changed." }),
    Type.Object(
      { kind: Type.Literal('error'), message: Type.String(), code: Type.Optional(Type.String()) },
      { description: 'A notice for people (banners, refusals); never terminal bytes.' },
    ),
    Type.Object({ kind: Type.Literal('state'), secret_input: SecretInputState }, { description: 'While a secret-input window is open no output is sent.' }),
    Type.Object(
      {
        kind: Type.Literal('exit'),
        code: Type.Union([Type.Integer(), Type.Null()]),
        signal: Type.Union([Type.String(), Type.Null()]),
        reason: ExitReason,
      },
      { description: 'The process ended; always delivered and always the last frame.' },
    ),
  ],
  { description: 'Text frames the server sends. Output arrives as binary frames: 0x01 (stdout) or 0x03 (repaint), a u64 BE seq, then bytes.' },
);

// Compile-time: the schemas describe exactly the TypeScript frame types.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type TextServerFrame = Exclude<ServerFrame, { data: Buffer }>;
const checks: [Same<Static<typeof AuthFrameSchema>, AuthFrame>, Same<Static<typeof ServerTextFrameSchema>, TextServerFrame>] = [true, true];
void checks;
