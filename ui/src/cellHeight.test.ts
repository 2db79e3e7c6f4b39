import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BASE_LINE_HEIGHT, cellLineHeight, type FontMetrics } from './cellHeight.js';

/** The cell height xterm.js's DOM renderer derives from a lineHeight, in device pixels. */
const cellDevice = (m: FontMetrics, lineHeight: number) => Math.floor(Math.ceil((m.ascent + m.descent) * m.dpr) * lineHeight);

test('a cell holds the underscore however the baseline rounds, at DPR 1 and 2', () => {
  // [what, metrics as Chromium reports them, the cell height in device pixels we expect]
  for (const [what, m, cell] of [
    // DejaVu Sans Mono 14 px, as Chromium reports it: ascent 13, descent 3 (3.3 rounded), the underscore inks to 4.
    ['DejaVu at DPR 1', { ascent: 13, descent: 3, underscoreInkDevice: 4, dpr: 1 }, 19],
    ['DejaVu at DPR 2', { ascent: 13, descent: 3, underscoreInkDevice: 8, dpr: 2 }, 37],
    // A font whose lowest ink stays inside its descent keeps the base line height.
    ['a roomy font', { ascent: 13, descent: 4, underscoreInkDevice: 2, dpr: 1 }, Math.floor(17 * BASE_LINE_HEIGHT)],
  ] as const) {
    const lh = cellLineHeight(m);
    assert.ok(lh >= BASE_LINE_HEIGHT, what);
    const got = cellDevice(m, lh);
    assert.equal(got, cell, what);
    const charDevice = Math.ceil((m.ascent + m.descent) * m.dpr);
    // The room below the baseline, less half a pixel for rounding, still holds the ink.
    assert.ok(m.descent * m.dpr + (got - charDevice) / 2 - 0.5 >= m.underscoreInkDevice, what);
  }
});

test('unmeasurable metrics (a hidden page) fall back to the base line height', () => {
  assert.equal(cellLineHeight({ ascent: 0, descent: 0, underscoreInkDevice: 0, dpr: 1 }), BASE_LINE_HEIGHT);
});
