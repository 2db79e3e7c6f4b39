/** Table tests for the mouse encoder: every tracking mode x event type, both encodings, modifiers, bounds. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeMouse, type MouseEvent, type MouseModes, type MouseTracking, type MouseType } from './mouse.js';

const SIZE = { cols: 80, rows: 24 };
const SGR: MouseModes = { tracking: 'any_event', encoding: 'sgr' };
const LEGACY: MouseModes = { tracking: 'any_event', encoding: 'default' };
const X10: MouseModes = { tracking: 'x10', encoding: 'default' };

/** Legacy report ESC [ M Cb Cx Cy, written with the raw values so the table reads like the spec. */
const legacy = (b: number, x: number, y: number) => `\x1b[M${String.fromCharCode(32 + b, 32 + x + 1, 32 + y + 1)}`;

function bytesOf(ev: MouseEvent, modes: MouseModes, size = SIZE): Buffer {
  const r = encodeMouse(ev, modes, size);
  assert.ok(r.ok, r.ok ? '' : `${r.code}: ${r.error}`);
  return r.bytes;
}

// [event, modes, expected bytes as latin1 (one char per byte)]
const ENCODE: ReadonlyArray<readonly [MouseEvent, MouseModes, string]> = [
  // SGR: 1-based coordinates in decimal, 'M' for press/motion, 'm' for release naming the button
  [{ type: 'press', x: 0, y: 0 }, SGR, '\x1b[<0;1;1M'],
  [{ type: 'press', button: 'middle', x: 9, y: 4 }, SGR, '\x1b[<1;10;5M'],
  [{ type: 'press', button: 'right', x: 79, y: 23 }, SGR, '\x1b[<2;80;24M'],
  [{ type: 'release', x: 3, y: 2 }, SGR, '\x1b[<0;4;3m'],
  [{ type: 'release', button: 'right', x: 3, y: 2 }, SGR, '\x1b[<2;4;3m'],
  [{ type: 'click', x: 10, y: 5 }, SGR, '\x1b[<0;11;6M\x1b[<0;11;6m'],
  [{ type: 'click', button: 'middle', x: 10, y: 5 }, SGR, '\x1b[<1;11;6M\x1b[<1;11;6m'],
  [{ type: 'drag', x: 1, y: 1 }, SGR, '\x1b[<32;2;2M'],
  [{ type: 'drag', button: 'right', x: 1, y: 1 }, SGR, '\x1b[<34;2;2M'],
  [{ type: 'move', x: 1, y: 1 }, SGR, '\x1b[<35;2;2M'],
  [{ type: 'move', button: 'none', x: 1, y: 1 }, SGR, '\x1b[<35;2;2M'],
  [{ type: 'scroll', button: 'wheel-up', x: 5, y: 6 }, SGR, '\x1b[<64;6;7M'],
  [{ type: 'scroll', button: 'wheel-down', x: 5, y: 6 }, SGR, '\x1b[<65;6;7M'],
  // SGR modifiers: shift 4, alt 8, ctrl 16, on every kind of report
  [{ type: 'press', x: 0, y: 0, modifiers: ['shift'] }, SGR, '\x1b[<4;1;1M'],
  [{ type: 'press', x: 0, y: 0, modifiers: ['alt'] }, SGR, '\x1b[<8;1;1M'],
  [{ type: 'press', x: 0, y: 0, modifiers: ['ctrl'] }, SGR, '\x1b[<16;1;1M'],
  [{ type: 'press', x: 0, y: 0, modifiers: ['shift', 'alt', 'ctrl'] }, SGR, '\x1b[<28;1;1M'],
  [{ type: 'press', x: 0, y: 0, modifiers: ['ctrl', 'ctrl'] }, SGR, '\x1b[<16;1;1M'],
  [{ type: 'click', x: 0, y: 0, modifiers: ['ctrl'] }, SGR, '\x1b[<16;1;1M\x1b[<16;1;1m'],
  [{ type: 'drag', button: 'middle', x: 0, y: 0, modifiers: ['alt'] }, SGR, '\x1b[<41;1;1M'],
  [{ type: 'move', x: 0, y: 0, modifiers: ['shift'] }, SGR, '\x1b[<39;1;1M'],
  [{ type: 'scroll', button: 'wheel-down', x: 0, y: 0, modifiers: ['ctrl'] }, SGR, '\x1b[<81;1;1M'],
  // legacy: 32+b, 32+x+1, 32+y+1 as raw bytes; every release is code 3 (plus modifiers)
  [{ type: 'press', x: 0, y: 0 }, LEGACY, legacy(0, 0, 0)],
  [{ type: 'press', button: 'middle', x: 9, y: 4 }, LEGACY, legacy(1, 9, 4)],
  [{ type: 'press', button: 'right', x: 79, y: 23 }, LEGACY, legacy(2, 79, 23)],
  [{ type: 'release', button: 'right', x: 3, y: 2 }, LEGACY, legacy(3, 3, 2)],
  [{ type: 'click', x: 10, y: 5 }, LEGACY, legacy(0, 10, 5) + legacy(3, 10, 5)],
  [{ type: 'click', x: 10, y: 5, modifiers: ['shift'] }, LEGACY, legacy(4, 10, 5) + legacy(7, 10, 5)],
  [{ type: 'drag', x: 1, y: 1 }, LEGACY, legacy(32, 1, 1)],
  [{ type: 'move', x: 1, y: 1 }, LEGACY, legacy(35, 1, 1)],
  [{ type: 'move', x: 1, y: 1, modifiers: ['ctrl'] }, LEGACY, legacy(51, 1, 1)],
  [{ type: 'scroll', button: 'wheel-up', x: 5, y: 6 }, LEGACY, legacy(64, 5, 6)],
  [{ type: 'scroll', button: 'wheel-down', x: 5, y: 6, modifiers: ['alt'] }, LEGACY, legacy(73, 5, 6)],
  // X10 (?9): press only
  [{ type: 'press', button: 'right', x: 2, y: 3 }, X10, legacy(2, 2, 3)],
  [{ type: 'press', x: 2, y: 3 }, { tracking: 'x10', encoding: 'sgr' }, '\x1b[<0;3;4M'],
];

for (const [ev, modes, want] of ENCODE) {
  test(`mouse ${JSON.stringify(ev)} ${modes.tracking}/${modes.encoding} -> ${JSON.stringify(want)}`, () => {
    assert.deepEqual(bytesOf(ev, modes), Buffer.from(want, 'latin1'));
  });
}

// Which tracking mode accepts which event type; 'ok' or the refusal code.
type Outcome = 'ok' | 'mouse_not_enabled' | 'mouse_mode_mismatch';
const N: Outcome = 'mouse_not_enabled';
const X: Outcome = 'mouse_mode_mismatch';
const MATRIX: Record<MouseTracking, Record<MouseType, Outcome>> = {
  off: { press: N, release: N, click: N, move: N, drag: N, scroll: N },
  x10: { press: 'ok', release: X, click: X, move: X, drag: X, scroll: X },
  normal: { press: 'ok', release: 'ok', click: 'ok', move: X, drag: X, scroll: 'ok' },
  button_event: { press: 'ok', release: 'ok', click: 'ok', move: X, drag: 'ok', scroll: 'ok' },
  any_event: { press: 'ok', release: 'ok', click: 'ok', move: 'ok', drag: 'ok', scroll: 'ok' },
};
const SAMPLE: Record<MouseType, MouseEvent> = {
  press: { type: 'press', x: 1, y: 1 },
  release: { type: 'release', x: 1, y: 1 },
  click: { type: 'click', x: 1, y: 1 },
  move: { type: 'move', x: 1, y: 1 },
  drag: { type: 'drag', x: 1, y: 1 },
  scroll: { type: 'scroll', button: 'wheel-up', x: 1, y: 1 },
};

for (const [tracking, row] of Object.entries(MATRIX) as Array<[MouseTracking, Record<MouseType, Outcome>]>) {
  for (const [type, want] of Object.entries(row) as Array<[MouseType, Outcome]>) {
    for (const encoding of ['default', 'sgr'] as const) {
      test(`mouse ${type} under ${tracking}/${encoding} -> ${want}`, () => {
        const r = encodeMouse(SAMPLE[type], { tracking, encoding }, SIZE);
        assert.equal(r.ok ? 'ok' : r.code, want, r.ok ? '' : r.error);
        if (!r.ok) assert.ok(r.error.length > 20);
      });
    }
  }
}

test('refusal messages explain what the application would need', () => {
  const msg = (ev: MouseEvent, tracking: MouseTracking) => {
    const r = encodeMouse(ev, { tracking, encoding: 'sgr' }, SIZE);
    assert.equal(r.ok, false);
    return r.ok ? '' : r.error;
  };
  assert.match(msg(SAMPLE.press, 'off'), /not enabled mouse tracking/);
  assert.match(msg(SAMPLE.click, 'x10'), /only button presses.*"press" instead/);
  const withMods = encodeMouse({ type: 'press', x: 0, y: 0, modifiers: ['ctrl'] }, X10, SIZE);
  assert.equal(withMods.ok ? 'ok' : withMods.code, 'mouse_mode_mismatch', 'x10 cannot carry modifiers: refused, not dropped');
  assert.match(msg(SAMPLE.drag, 'normal'), /\?1002.*\?1003/);
  assert.match(msg(SAMPLE.move, 'button_event'), /\?1003/);
});

// [event, size, a fragment of the invalid_mouse error]; checked under every tracking mode, since a malformed event
// is reported as malformed before the modes are consulted.
const INVALID: ReadonlyArray<readonly [MouseEvent, { cols: number; rows: number }, string]> = [
  [{ type: 'press', x: -1, y: 0 }, SIZE, 'non-negative integer'],
  [{ type: 'press', x: 0, y: -1 }, SIZE, 'non-negative integer'],
  [{ type: 'press', x: 1.5, y: 0 }, SIZE, 'non-negative integer'],
  [{ type: 'press', x: Number.NaN, y: 0 }, SIZE, 'non-negative integer'],
  [{ type: 'press', x: '3', y: 0 } as unknown as MouseEvent, SIZE, 'non-negative integer'],
  [{ type: 'press', x: 80, y: 0 }, SIZE, 'outside the 80x24 screen'],
  [{ type: 'press', x: 0, y: 24 }, SIZE, 'outside the 80x24 screen'],
  [{ type: 'tap', x: 0, y: 0 } as unknown as MouseEvent, SIZE, 'type "tap"'],
  [{ type: 'press', button: 'back', x: 0, y: 0 } as unknown as MouseEvent, SIZE, 'button "back"'],
  [{ type: 'press', button: 'toString', x: 0, y: 0 } as unknown as MouseEvent, SIZE, 'button "toString"'],
  [{ type: 'press', x: 0, y: 0, modifiers: ['super'] } as unknown as MouseEvent, SIZE, 'modifier "super"'],
  [{ type: 'scroll', x: 0, y: 0 }, SIZE, 'wheel-up" or "wheel-down'],
  [{ type: 'scroll', button: 'left', x: 0, y: 0 }, SIZE, 'wheel-up" or "wheel-down'],
  [{ type: 'scroll', button: 'none', x: 0, y: 0 }, SIZE, 'wheel-up" or "wheel-down'],
  [{ type: 'press', button: 'wheel-up', x: 0, y: 0 }, SIZE, 'type "scroll"'],
  [{ type: 'release', button: 'wheel-down', x: 0, y: 0 }, SIZE, 'type "scroll"'],
  [{ type: 'click', button: 'wheel-up', x: 0, y: 0 }, SIZE, 'type "scroll"'],
  [{ type: 'drag', button: 'wheel-down', x: 0, y: 0 }, SIZE, 'type "scroll"'],
  [{ type: 'press', button: 'none', x: 0, y: 0 }, SIZE, 'needs a button'],
  [{ type: 'drag', button: 'none', x: 0, y: 0 }, SIZE, 'needs a button'],
  [{ type: 'move', button: 'left', x: 0, y: 0 }, SIZE, 'use "drag"'],
  [{ type: 'move', button: 'wheel-up', x: 0, y: 0 }, SIZE, 'use "drag"'],
];

for (const [ev, size, fragment] of INVALID) {
  test(`mouse ${JSON.stringify(ev)} is invalid_mouse (${fragment})`, () => {
    for (const tracking of ['off', 'x10', 'normal', 'button_event', 'any_event'] as const) {
      const r = encodeMouse(ev, { tracking, encoding: 'sgr' }, size);
      assert.equal(r.ok ? 'ok' : r.code, 'invalid_mouse');
      if (!r.ok) assert.ok(r.error.includes(fragment), r.error);
    }
  });
}

test('legacy encoding reaches column/row 223 (byte 255) and refuses beyond, suggesting ?1006', () => {
  const big = { cols: 300, rows: 300 };
  const edge = bytesOf({ type: 'press', x: 222, y: 222 }, LEGACY, big);
  assert.deepEqual(edge, Buffer.from([0x1b, 0x5b, 0x4d, 32, 255, 255]));
  for (const [x, y] of [[223, 0], [0, 223], [299, 299]] as const) {
    const r = encodeMouse({ type: 'press', x, y }, LEGACY, big);
    assert.equal(r.ok ? 'ok' : r.code, 'invalid_mouse');
    if (!r.ok) assert.match(r.error, /\?1006/);
  }
});

test('SGR encoding has no coordinate limit', () => {
  const big = { cols: 1000, rows: 500 };
  assert.deepEqual(bytesOf({ type: 'press', x: 999, y: 499 }, SGR, big), Buffer.from('\x1b[<0;1000;500M'));
});

test('legacy reports are raw single bytes, not UTF-8', () => {
  const bytes = bytesOf({ type: 'press', x: 200, y: 0 }, LEGACY, { cols: 220, rows: 10 });
  assert.equal(bytes.length, 6);
  assert.equal(bytes[4], 32 + 201);
});
