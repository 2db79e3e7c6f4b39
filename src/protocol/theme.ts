/**
 * The terminal colour themes, one definition for every renderer: the browser UI (xterm.js and its DOM fallback) draws
 * with `dark`, and pictures of a screen (GET .../screen?format=png|svg) with `dark` or `light`. Imports nothing.
 */
export interface TerminalTheme {
  background: string;
  foreground: string;
  cursor: string;
  cursorAccent: string;
  selectionBackground: string;
  black: string;
  red: string;
  green: string;
  yellow: string;
  blue: string;
  magenta: string;
  cyan: string;
  white: string;
  brightBlack: string;
  brightRed: string;
  brightGreen: string;
  brightYellow: string;
  brightBlue: string;
  brightMagenta: string;
  brightCyan: string;
  brightWhite: string;
}

export const THEMES = {
  dark: {
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
  },
  /** For pages and documents with a white background. */
  light: {
    background: '#ffffff',
    foreground: '#1f2328',
    cursor: '#0969da',
    cursorAccent: '#ffffff',
    selectionBackground: '#b6e3ff',
    black: '#24292f',
    red: '#cf222e',
    green: '#116329',
    yellow: '#7d4e00',
    blue: '#0969da',
    magenta: '#8250df',
    cyan: '#1b7c83',
    white: '#6e7781',
    brightBlack: '#57606a',
    brightRed: '#a40e26',
    brightGreen: '#1a7f37',
    brightYellow: '#633c01',
    brightBlue: '#218bff',
    brightMagenta: '#a475f9',
    brightCyan: '#3192aa',
    brightWhite: '#8c959f',
  },
} as const satisfies Record<string, TerminalTheme>;

export type ThemeName = keyof typeof THEMES;
export const THEME_NAMES = Object.keys(THEMES) as ThemeName[];

/** The 16 ANSI colours of a theme, in SGR order (30-37, then 90-97). */
export function ansi16(t: TerminalTheme): string[] {
  return [t.black, t.red, t.green, t.yellow, t.blue, t.magenta, t.cyan, t.white, t.brightBlack, t.brightRed, t.brightGreen, t.brightYellow, t.brightBlue, t.brightMagenta, t.brightCyan, t.brightWhite];
}

const hex2 = (n: number) => n.toString(16).padStart(2, '0');

/** xterm's 256-colour palette: the 16 theme colours, a 6x6x6 cube, then 24 greys. */
export function paletteColor(index: number, theme: TerminalTheme = THEMES.dark): string {
  if (index < 16) return ansi16(theme)[index]!;
  if (index < 232) {
    const i = index - 16;
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    return `#${hex2(level(Math.floor(i / 36)))}${hex2(level(Math.floor(i / 6) % 6))}${hex2(level(i % 6))}`;
  }
  const g = 8 + (index - 232) * 10;
  return `#${hex2(g)}${hex2(g)}${hex2(g)}`;
}
