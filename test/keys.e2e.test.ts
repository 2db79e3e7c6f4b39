/**
 * The exact bytes an application reads for each class of key, through the whole path:
 * HTTP -> validation -> mode-aware encoding -> write queue -> PTY -> the probe's raw stdin.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertNoLeaks, hex, startProbe, startTestDaemon, type TestDaemon } from './helpers.js';
import { TermhostError } from '../src/client/TermhostClient.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

const ESC = '\x1b';

describe('keys in normal cursor mode', () => {
  const rows: Array<[string, string]> = [
    ['Enter', '\r'],
    ['Escape', ESC],
    ['Esc', ESC],
    ['Tab', '\t'],
    ['BTab', `${ESC}[Z`],
    ['Space', ' '],
    ['Backspace', '\x7f'],
    ['BSpace', '\x7f'],
    ['Up', `${ESC}[A`],
    ['Down', `${ESC}[B`],
    ['Right', `${ESC}[C`],
    ['Left', `${ESC}[D`],
    ['Home', `${ESC}[H`],
    ['End', `${ESC}[F`],
    ['Insert', `${ESC}[2~`],
    ['IC', `${ESC}[2~`],
    ['Delete', `${ESC}[3~`],
    ['DC', `${ESC}[3~`],
    ['PgUp', `${ESC}[5~`],
    ['PPage', `${ESC}[5~`],
    ['PgDn', `${ESC}[6~`],
    ['NPage', `${ESC}[6~`],
    ['F1', `${ESC}OP`],
    ['F4', `${ESC}OS`],
    ['F5', `${ESC}[15~`],
    ['F12', `${ESC}[24~`],
    ['a', 'a'],
    ['Z', 'Z'],
    ['%', '%'],
    ['-', '-'],
    ['C-a', '\x01'],
    ['C-z', '\x1a'],
    ['C-Space', '\x00'],
    ['C-[', ESC],
    ['C-\\', '\x1c'],
    ['C-]', '\x1d'],
    ['C-^', '\x1e'],
    ['C-_', '\x1f'],
    ['M-x', `${ESC}x`],
    ['M-C-a', `${ESC}\x01`],
    ['C-M-a', `${ESC}\x01`],
    ['S-a', 'A'],
    ['C-Up', `${ESC}[1;5A`],
    ['S-F5', `${ESC}[15;2~`],
    ['C-M-Delete', `${ESC}[3;7~`],
    ['M-Left', `${ESC}[1;3D`],
    ['S-Home', `${ESC}[1;2H`],
    ['C-F1', `${ESC}[1;5P`],
  ];
  let probe: Awaited<ReturnType<typeof startProbe>>;
  before(async () => {
    probe = await startProbe(d);
  });
  for (const [key, want] of rows) {
    test(`key ${key} reaches the app as ${JSON.stringify(want)}`, async () => {
      assert.equal(await probe.send([{ key }]), hex(want));
    });
  }

  test('a batch of text and keys arrives as one contiguous sequence, text as UTF-8', async () => {
    const got = await probe.send([{ text: 'echo é' }, { key: 'Enter' }, { key: 'C-c' }, { raw: `${ESC}[200~x` }]);
    assert.equal(got, Buffer.from(`echo é\r\x03${ESC}[200~x`, 'utf8').toString('hex'));
  });

  test('paste is plain text when the app has not enabled bracketed paste', async () => {
    assert.equal(await probe.send([{ paste: 'line1\nline2' }]), hex('line1\rline2'));
  });

  test('an input batch with one unknown key writes nothing and names the bad element', async () => {
    await assert.rejects(
      d.client.input(probe.id, [{ text: 'should not arrive' }, { key: 'Enter' }, { key: 'Hyper-x' }]),
      (err: TermhostError) => err.status === 400 && err.code === 'invalid_key' && err.body.index === 2,
    );
    // The next bytes the probe sees are the next request's, so nothing of the refused batch was written.
    assert.equal(await probe.send([{ text: 'ok' }]), hex('ok'));
  });

  for (const key of ['C-Enter', 'C-1', 'F13', 'Foo', '', 'C-']) {
    test(`key ${JSON.stringify(key)} has no real encoding and is a 400`, async () => {
      await assert.rejects(d.client.input(probe.id, [{ key }]), (err: TermhostError) => err.status === 400 && err.code === 'invalid_key');
    });
  }
});

describe('keys under the modes the app enabled', () => {
  test('arrows and Home/End are SS3 under DECCKM (?1), modified arrows stay CSI', async () => {
    const probe = await startProbe(d, [1]);
    const screen = await d.client.screen(probe.id);
    assert.equal(screen.modes.app_cursor_keys, true);
    assert.equal(await probe.send([{ key: 'Up' }]), hex(`${ESC}OA`));
    assert.equal(await probe.send([{ key: 'Left' }]), hex(`${ESC}OD`));
    assert.equal(await probe.send([{ key: 'Home' }]), hex(`${ESC}OH`));
    assert.equal(await probe.send([{ key: 'C-Up' }]), hex(`${ESC}[1;5A`));
  });

  test('paste is wrapped in bracketed-paste markers under ?2004', async () => {
    const probe = await startProbe(d, [2004]);
    assert.equal((await d.client.screen(probe.id)).modes.bracketed_paste, true);
    assert.equal(await probe.send([{ paste: 'a\nb' }]), hex(`${ESC}[200~a\rb${ESC}[201~`));
  });
});
