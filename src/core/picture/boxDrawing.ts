/**
 * Box drawing (U+2500..U+257F), block elements (U+2580..U+259F) and braille (U+2800..U+28FF) drawn from geometry
 * rather than from the font, as terminals do: a font's line glyphs rarely reach the cell's edges exactly, so frames
 * drawn from them show gaps between cells. Here every line runs to the edge at the same place in every cell, so
 * lines join cell to cell at any size. Pure: a code point and a cell size in, a coverage mask out.
 */

/** Arms of a box-drawing character, up right down left: 0 none, 1 light, 2 heavy, 3 double. */
const ARMS: Record<number, string> = {};
/** U+2500..U+257F in order; "-" marks the characters drawn specially below (dashes, arcs, diagonals). */
const TABLE = [
  '0101 0202 1010 2020 - - - - - - - - 0110 0210 0120 0220',
  '0011 0012 0021 0022 1100 1200 2100 2200 1001 1002 2001 2002 1110 1210 2110 1120',
  '2120 2210 1220 2220 1011 1012 2011 1021 2021 2012 1022 2022 0111 0112 0211 0212',
  '0121 0122 0221 0222 1101 1102 1201 1202 2101 2102 2201 2202 1111 1112 1211 1212',
  '2111 1121 2121 2112 2211 1122 1221 2212 1222 2122 2221 2222 - - - -',
  '0303 3030 0310 0130 0330 0013 0031 0033 1300 3100 3300 1003 3001 3003 1310 3130',
  '3330 1013 3031 3033 0313 0131 0333 1303 3101 3303 1313 3131 3333 - - -',
  '- - - - 0001 1000 0100 0010 0002 2000 0200 0020 0201 1020 0102 2010',
]
  .join(' ')
  .split(' ');
TABLE.forEach((arms, i) => {
  if (arms !== '-') ARMS[0x2500 + i] = arms;
});

/** Dashed lines: [vertical, weight, dashes]. */
const DASHES: Record<number, [boolean, number, number]> = {
  0x2504: [false, 1, 3],
  0x2505: [false, 2, 3],
  0x2506: [true, 1, 3],
  0x2507: [true, 2, 3],
  0x2508: [false, 1, 4],
  0x2509: [false, 2, 4],
  0x250a: [true, 1, 4],
  0x250b: [true, 2, 4],
  0x254c: [false, 1, 2],
  0x254d: [false, 2, 2],
  0x254e: [true, 1, 2],
  0x254f: [true, 2, 2],
};

/** Quadrants of U+2596..U+259F: upper left 1, upper right 2, lower left 4, lower right 8. */
const QUADRANTS = [4, 8, 1, 1 | 4 | 8, 1 | 8, 1 | 2 | 4, 1 | 2 | 8, 2, 2 | 4, 2 | 4 | 8];

/** Is this character drawn here rather than from the font? */
export function isGeometric(cp: number): boolean {
  return (cp >= 0x2500 && cp <= 0x259f) || (cp >= 0x2800 && cp <= 0x28ff);
}

class Mask {
  readonly data: Uint8Array;
  constructor(
    readonly w: number,
    readonly h: number,
  ) {
    this.data = new Uint8Array(w * h);
  }
  /** Fill [x0, x1) x [y0, y1), clipped to the cell. */
  rect(x0: number, y0: number, x1: number, y1: number, value = 255): void {
    const ax = Math.max(0, Math.round(x0));
    const bx = Math.min(this.w, Math.round(x1));
    const ay = Math.max(0, Math.round(y0));
    const by = Math.min(this.h, Math.round(y1));
    for (let y = ay; y < by; y++) this.data.fill(value, y * this.w + ax, y * this.w + bx);
  }
  /** Anti-aliased coverage from a signed distance: `dist(x, y)` in pixels from the stroke's centre line. */
  stroke(half: number, dist: (x: number, y: number) => number | undefined): void {
    for (let y = 0; y < this.h; y++) {
      for (let x = 0; x < this.w; x++) {
        const d = dist(x + 0.5, y + 0.5);
        if (d === undefined) continue;
        const cover = Math.min(1, Math.max(0, half + 0.5 - Math.abs(d)));
        const i = y * this.w + x;
        this.data[i] = Math.max(this.data[i]!, Math.round(cover * 255));
      }
    }
  }
}

/** Line thicknesses for a cell: light, heavy, and the half distance between the two lines of a double line. */
function weights(w: number): { light: number; heavy: number; gap: number } {
  const light = Math.max(1, Math.round(w / 8));
  return { light, heavy: Math.max(light + 1, light * 2), gap: light };
}

/**
 * The coverage mask (w x h bytes, 0..255) of a geometric character, or undefined for any other. Lines are centred on
 * the cell's centre pixel, so the same character in the next cell continues them exactly.
 */
export function geometricMask(cp: number, w: number, h: number): Uint8Array | undefined {
  const m = new Mask(w, h);
  const cx = Math.floor(w / 2);
  const cy = Math.floor(h / 2);
  const wt = weights(w);
  const arms = ARMS[cp];
  if (arms) drawArms(m, arms, cx, cy, wt);
  else if (DASHES[cp]) {
    const [vertical, weight, dashes] = DASHES[cp]!;
    const t = weight === 2 ? wt.heavy : wt.light;
    const len = vertical ? h : w;
    for (let i = 0; i < dashes; i++) {
      const a = (i * len) / dashes;
      const b = a + Math.max(1, Math.round(len / dashes / 2));
      if (vertical) m.rect(cx - Math.floor(t / 2), a, cx - Math.floor(t / 2) + t, b);
      else m.rect(a, cy - Math.floor(t / 2), b, cy - Math.floor(t / 2) + t);
    }
  } else if (cp >= 0x256d && cp <= 0x2570) drawArc(m, cp, cx, cy, wt.light);
  else if (cp >= 0x2571 && cp <= 0x2573) {
    const slope = h / w;
    const norm = Math.sqrt(1 + slope * slope);
    if (cp !== 0x2572) m.stroke(wt.light / 2, (x, y) => (y - (h - slope * x)) / norm);
    if (cp !== 0x2571) m.stroke(wt.light / 2, (x, y) => (y - slope * x) / norm);
  } else if (cp >= 0x2580 && cp <= 0x259f) drawBlock(m, cp);
  else if (cp >= 0x2800 && cp <= 0x28ff) drawBraille(m, cp - 0x2800);
  else return undefined;
  return m.data;
}

function drawArms(m: Mask, arms: string, cx: number, cy: number, wt: { light: number; heavy: number; gap: number }): void {
  const [up, right, down, left] = [...arms].map(Number) as [number, number, number, number];
  const l = wt.light;
  const g = wt.gap + l;
  const thick = (k: number) => (k === 2 ? wt.heavy : l);
  const start = (c: number, t: number) => c - Math.floor(t / 2);
  /**
   * The span [from, to) that lines crossing one axis occupy around centre `c`, given the arms across it (a, b): a
   * double pair covers both its lines, single arms their own thickness.
   */
  const across = (c: number, a: number, b: number): [number, number] => {
    if (a === 3 || b === 3) return [start(c - g, l), start(c + g, l) + l];
    const t = Math.max(a ? thick(a) : 0, b ? thick(b) : 0);
    return t === 0 ? [c, c] : [start(c, t), start(c, t) + t];
  };
  const [hFrom, hTo] = across(cx, up, down);
  const [vFrom, vTo] = across(cy, left, right);
  const single = (k: number) => k === 1 || k === 2;
  // Single (light or heavy) arms run from the edge across whatever crosses them.
  if (single(right)) m.rect(hFrom === hTo ? start(cx, thick(right)) : hFrom, start(cy, thick(right)), m.w, start(cy, thick(right)) + thick(right));
  if (single(left)) m.rect(0, start(cy, thick(left)), hFrom === hTo ? start(cx, thick(left)) + thick(left) : hTo, start(cy, thick(left)) + thick(left));
  if (single(down)) m.rect(start(cx, thick(down)), vFrom === vTo ? start(cy, thick(down)) : vFrom, start(cx, thick(down)) + thick(down), m.h);
  if (single(up)) m.rect(start(cx, thick(up)), 0, start(cx, thick(up)) + thick(up), vFrom === vTo ? start(cy, thick(up)) + thick(up) : vTo);
  /**
   * Double arms: two lines at -g and +g. A line meets the arm on its own side at that arm's nearer line (an inner
   * corner), else the arm on the other side at its farther line (an outer corner), else runs to the centre.
   */
  const stop = (c: number, same: number, other: number, forward: boolean): number => {
    const pair = forward ? [start(c + g, l), start(c - g, l)] : [start(c - g, l) + l, start(c + g, l) + l];
    const body = (k: number) => (forward ? start(c, thick(k)) : start(c, thick(k)) + thick(k));
    if (same === 3) return pair[0]!;
    if (single(same)) return body(same);
    if (other === 3) return pair[1]!;
    if (single(other)) return body(other);
    return c;
  };
  for (const side of [-1, 1]) {
    const y = start(cy + side * g, l);
    const x = start(cx + side * g, l);
    const [vSame, vOther] = side < 0 ? [up, down] : [down, up];
    const [hSame, hOther] = side < 0 ? [left, right] : [right, left];
    if (right === 3) m.rect(stop(cx, vSame, vOther, true), y, m.w, y + l);
    if (left === 3) m.rect(0, y, stop(cx, vSame, vOther, false), y + l);
    if (down === 3) m.rect(x, stop(cy, hSame, hOther, true), x + l, m.h);
    if (up === 3) m.rect(x, 0, x + l, stop(cy, hSame, hOther, false));
  }
}

/** ╭ ╮ ╯ ╰: a quarter circle joining the two arms, which run on straight to the edges. */
function drawArc(m: Mask, cp: number, cx: number, cy: number, t: number): void {
  const r = Math.min(m.w, m.h) / 2;
  const px = cx + 0.5 - (t % 2 === 0 ? 0.5 : 0);
  const py = cy + 0.5 - (t % 2 === 0 ? 0.5 : 0);
  const toRight = cp === 0x256d || cp === 0x2570;
  const toBottom = cp === 0x256d || cp === 0x256e;
  const ox = px + (toRight ? r : -r);
  const oy = py + (toBottom ? r : -r);
  m.stroke(t / 2, (x, y) => {
    const inX = toRight ? x >= px - t && x <= ox : x <= px + t && x >= ox;
    const inY = toBottom ? y >= py - t && y <= oy : y <= py + t && y >= oy;
    if (inX && inY) return Math.hypot(x - ox, y - oy) - r;
    if (inY || (toBottom ? y > oy : y < oy)) return (toBottom ? y > oy : y < oy) ? x - px : undefined;
    if (toRight ? x > ox : x < ox) return y - py;
    return undefined;
  });
}

function drawBlock(m: Mask, cp: number): void {
  const { w, h } = m;
  const eighthsH = (n: number) => (h * n) / 8;
  const eighthsW = (n: number) => (w * n) / 8;
  if (cp === 0x2580) m.rect(0, 0, w, h / 2);
  else if (cp >= 0x2581 && cp <= 0x2588) m.rect(0, h - eighthsH(cp - 0x2580), w, h);
  else if (cp >= 0x2589 && cp <= 0x258f) m.rect(0, 0, eighthsW(0x2590 - cp), h);
  else if (cp === 0x2590) m.rect(w / 2, 0, w, h);
  else if (cp >= 0x2591 && cp <= 0x2593) m.rect(0, 0, w, h, (cp - 0x2590) * 64);
  else if (cp === 0x2594) m.rect(0, 0, w, eighthsH(1));
  else if (cp === 0x2595) m.rect(w - eighthsW(1), 0, w, h);
  else {
    const q = QUADRANTS[cp - 0x2596]!;
    const mx = Math.round(w / 2);
    const my = Math.round(h / 2);
    if (q & 1) m.rect(0, 0, mx, my);
    if (q & 2) m.rect(mx, 0, w, my);
    if (q & 4) m.rect(0, my, mx, h);
    if (q & 8) m.rect(mx, my, w, h);
  }
}

/** Braille: dots 1-3 and 7 down the left column, 4-6 and 8 down the right. */
const BRAILLE_DOTS: Array<[number, number]> = [
  [0, 0],
  [0, 1],
  [0, 2],
  [1, 0],
  [1, 1],
  [1, 2],
  [0, 3],
  [1, 3],
];

function drawBraille(m: Mask, bits: number): void {
  const size = Math.max(1, Math.round(m.w / 4));
  for (const [i, [col, row]] of BRAILLE_DOTS.entries()) {
    if (!(bits & (1 << i))) continue;
    const x = Math.round(((col * 2 + 1) * m.w) / 4 - size / 2);
    const y = Math.round(((row * 2 + 1) * m.h) / 8 - size / 2);
    m.rect(x, y, x + size, y + size);
  }
}
