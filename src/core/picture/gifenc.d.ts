/** The parts of gifenc 1.0.3 (which ships no types) that gif.ts uses. */
declare module 'gifenc' {
  type Format = 'rgb565' | 'rgb444' | 'rgba4444';
  export type Palette = number[][];
  interface Encoder {
    writeFrame(index: Uint8Array, width: number, height: number, opts?: { palette?: Palette; delay?: number; repeat?: number }): void;
    finish(): void;
    bytes(): Uint8Array;
  }
  const gifenc: {
    GIFEncoder(): Encoder;
    quantize(rgba: Uint8Array, maxColors: number, opts?: { format?: Format }): Palette;
    applyPalette(rgba: Uint8Array, palette: Palette, format?: Format): Uint8Array;
  };
  export default gifenc;
}
