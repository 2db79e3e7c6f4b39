/** The terminal colours, shared by xterm.js and the DOM fallback renderer so both draw a session alike. */
export const THEME = {
  background: '#11151c',
  foreground: '#d8dee9',
  cursor: '#f0c674',
  cursorAccent: '#11151c',
  selectionBackground: '#3a4556',
  black: '#1b1f27',
  red: '#e06c75',
  green: '#98c379',
  yellow: '#e5c07b',
  blue: '#61afef',
  magenta: '#c678dd',
  cyan: '#56b6c2',
  white: '#d7dae0',
  brightBlack: '#5c6370',
  brightRed: '#ff7b86',
  brightGreen: '#b5e890',
  brightYellow: '#ffd68a',
  brightBlue: '#82c4ff',
  brightMagenta: '#de9bf5',
  brightCyan: '#7fd6e0',
  brightWhite: '#ffffff',
} as const;

const ANSI16 = [
  THEME.black, THEME.red, THEME.green, THEME.yellow, THEME.blue, THEME.magenta, THEME.cyan, THEME.white,
  THEME.brightBlack, THEME.brightRed, THEME.brightGreen, THEME.brightYellow, THEME.brightBlue, THEME.brightMagenta, THEME.brightCyan, THEME.brightWhite,
];

const hex2 = (n: number) => n.toString(16).padStart(2, '0');

/** xterm's 256-colour palette: the 16 theme colours, a 6x6x6 cube, then 24 greys. */
export function paletteColor(index: number): string {
  if (index < 16) return ANSI16[index]!;
  if (index < 232) {
    const i = index - 16;
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    return `#${hex2(level(Math.floor(i / 36)))}${hex2(level(Math.floor(i / 6) % 6))}${hex2(level(i % 6))}`;
  }
  const g = 8 + (index - 232) * 10;
  return `#${hex2(g)}${hex2(g)}${hex2(g)}`;
}
