/** The error catalogue is one table (protocol/errors.ts): docs/api.md lists exactly its codes, statuses and retryability. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ERROR_CATALOGUE, INPUT_STATUS, type ErrorCode } from '../src/protocol/errors.js';
import { STATUS } from '../src/server/errors.js';
import { ROOT } from './helpers.js';

/** Rows of the "Error codes" table: | `code` | status | retryable | when |. */
function documentedCodes(): Array<{ code: string; status: number; retryable: boolean }> {
  const md = fs.readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
  const section = md.slice(md.indexOf('### Error codes'), md.indexOf('\n## ', md.indexOf('### Error codes')));
  const rows: Array<{ code: string; status: number; retryable: boolean }> = [];
  for (const line of section.split('\n')) {
    const m = /^\| `([a-z_]+)` \| (\d{3}) \| (\*\*yes\*\*|no) \|/.exec(line);
    if (m) rows.push({ code: m[1]!, status: Number(m[2]), retryable: m[3] !== 'no' });
  }
  return rows;
}

test('docs/api.md lists exactly the catalogue\'s error codes, each with its status and retryability', () => {
  const documented = documentedCodes();
  const expected = [
    ...Object.entries(ERROR_CATALOGUE).map(([code, spec]) => ({ code, status: spec.status, retryable: spec.retryable })),
    ...Object.entries(INPUT_STATUS).map(([code, status]) => ({ code, status: status!, retryable: ERROR_CATALOGUE[code as ErrorCode].retryable })),
  ];
  const key = (r: { code: string; status: number }) => `${r.code} ${r.status}`;
  assert.deepEqual(documented.map(key).sort(), expected.map(key).sort(), 'the table and the catalogue differ');
  for (const row of documented) {
    const want = expected.find((e) => key(e) === key(row))!;
    assert.equal(row.retryable, want.retryable, `${row.code}: docs say retryable=${row.retryable}`);
  }
});

test('the server takes every status from the catalogue', () => {
  for (const [code, spec] of Object.entries(ERROR_CATALOGUE)) assert.equal(STATUS[code as ErrorCode], spec.status, code);
});
