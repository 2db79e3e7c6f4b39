/** The API's wire types, from the schemas the server validates with (type-only: nothing of the server is bundled). */
import type { Static } from '@sinclair/typebox';
import type { AuditPage } from '../../src/protocol/audit.js';
import type { ModerationState } from '../../src/protocol/moderation.js';
import type { AttachTokenSchema, LeaseSchema, ProfilesAnswer, SecretStateSchema, SessionInfo, SessionRecord, SignalAnswer, TranscriptPageSchema, Screen } from '../../src/protocol/http.js';

export type { SessionInfo, SessionRecord, Screen, SignalAnswer, AuditPage, ModerationState, ProfilesAnswer };
export type Lease = Static<typeof LeaseSchema>;
export type SecretState = Static<typeof SecretStateSchema>;
export type AttachToken = Static<typeof AttachTokenSchema>;
export type TranscriptPage = Static<typeof TranscriptPageSchema>;
export type AnySession = SessionInfo | SessionRecord;
export interface Me {
  actor: { name: string; kind: string };
  expires_at: string | null;
}
