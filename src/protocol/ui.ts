/**
 * Wire types of the browser UI's sign-in: minting a login code (an API route, for the CLI) and what the page asks
 * about itself. The page, its assets and the code exchange are private routes of the UI and not in /openapi.json.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SESSION_REF_PATTERN } from './bounds.js';
import { ActorSchema, StringEnum } from './http.js';

export const LoginCodeBody = Type.Object(
  {
    as: Type.Optional(StringEnum(['human', 'viewer'], { description: 'The UI actor the browser signs in as; default human.' })),
    session: Type.Optional(Type.String({ pattern: SESSION_REF_PATTERN, description: 'Open this session after signing in.' })),
    role: Type.Optional(StringEnum(['driver', 'viewer'], { description: "The session pane's attach role; default driver for a person." })),
  },
  { additionalProperties: false },
);
export type LoginCodeRequest = Static<typeof LoginCodeBody>;

export const LoginCodeSchema = Type.Object({
  code: Type.String({ description: 'Single-use, valid for expires_in_s; exchanged at login_path.' }),
  login_path: Type.String({ description: 'Path (with the code) to open in a browser on the daemon\'s address.' }),
  expires_in_s: Type.Integer(),
});
export type LoginCode = Static<typeof LoginCodeSchema>;

export const UiWhoamiSchema = Type.Object({
  actor: ActorSchema,
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the browser sign-in ends' }),
});

export const LoginQuery = Type.Object({ code: Type.String({ maxLength: 256 }) }, { additionalProperties: false });
