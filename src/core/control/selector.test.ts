/** Table tests for label selectors: parsing (good and bad) and matching. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchesSelector, parseSelector } from './selector.js';

const MATCHES: ReadonlyArray<readonly [string, Record<string, string>, boolean]> = [
  ['team=red', { team: 'red' }, true],
  ['team=red', { team: 'blue' }, false],
  ['team=red', {}, false],
  ['team=red,env!=prod', { team: 'red', env: 'dev' }, true],
  ['team=red,env!=prod', { team: 'red' }, true],
  ['team=red,env!=prod', { team: 'red', env: 'prod' }, false],
  ['team', { team: '' }, true],
  ['team', { other: 'x' }, false],
  ['!secret', {}, true],
  ['!secret', { secret: 'yes' }, false],
  [' team = red , env != prod ', { team: 'red', env: 'qa' }, true],
  ['k8s.io/app=web', { 'k8s.io/app': 'web' }, true],
  ['note=a=b', { note: 'a=b' }, true],
];
for (const [sel, labels, want] of MATCHES) {
  test(`selector ${JSON.stringify(sel)} on ${JSON.stringify(labels)} -> ${want}`, () => {
    const p = parseSelector(sel);
    assert.ok(p.ok, p.ok ? '' : p.error.message);
    assert.equal(matchesSelector(p.value, labels), want);
  });
}

const BAD: ReadonlyArray<readonly [string, string]> = [
  ['', 'empty'],
  ['team=red,,env=x', 'empty term'],
  ['team=red,', 'empty term'],
  ['=red', 'not a label key'],
  ['te am=red', 'not a label key'],
  ['!', 'not a label key'],
  [Array.from({ length: 33 }, (_, i) => `k${i}`).join(','), 'more than 32'],
  ['x'.repeat(3000), 'longer than'],
];
for (const [sel, fragment] of BAD) {
  test(`selector ${JSON.stringify(sel.slice(0, 30))} is refused (${fragment})`, () => {
    const p = parseSelector(sel);
    assert.equal(p.ok, false);
    if (!p.ok) {
      assert.equal(p.error.code, 'invalid_request');
      assert.ok(p.error.message.includes(fragment), p.error.message);
    }
  });
}

test('a selector is normalised: spaces around terms go', () => {
  const p = parseSelector(' team = red , !x ');
  assert.ok(p.ok);
  assert.equal(p.value.text, 'team=red,!x');
});
