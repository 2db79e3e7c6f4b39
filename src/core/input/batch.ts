/**
 * An input batch (text, key, paste, raw items) -> one buffer, validated whole before any byte is written.
 * Pure: the caller supplies the application's current modes.
 */
import { TermError, fail, ok, type Result } from '../errors.js';
import { encodeKey } from './keys.js';
import { encodePaste } from './paste.js';

export type InputItem = { text: string } | { key: string } | { paste: string } | { raw: string };

export interface InputModes {
  appCursorKeys: boolean;
  bracketedPaste: boolean;
}

export function encodeInput(items: readonly InputItem[], modes: InputModes): Result<Buffer> {
  const parts: Buffer[] = [];
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    if ('key' in item) {
      const enc = encodeKey(item.key, { appCursorKeys: modes.appCursorKeys });
      if (!enc.ok) {
        return fail(new TermError('invalid_key', `input[${index}]: ${enc.error}`, { index, key: item.key, ...(enc.suggestion ? { did_you_mean: enc.suggestion } : {}) }));
      }
      parts.push(enc.bytes);
    } else if ('paste' in item) {
      parts.push(encodePaste(item.paste, modes.bracketedPaste));
    } else if ('text' in item) {
      parts.push(Buffer.from(item.text, 'utf8'));
    } else if ('raw' in item) {
      parts.push(Buffer.from(item.raw, 'utf8'));
    } else {
      return fail(new TermError('invalid_input', `input[${index}] must have exactly one of text, key, paste or raw`, { index }));
    }
  }
  return ok(Buffer.concat(parts));
}
