/**
 * Mouse-event encoder: turns one high-level mouse event (click at a cell, drag, wheel...) into the report bytes an
 * xterm would send, given the tracking mode and encoding the application enabled with DECSET.
 *
 * Owns event validation, the rules for which events each tracking mode can carry, and both wire encodings (SGR ?1006
 * and the legacy `CSI M` bytes). Pure: no I/O. An event the application cannot receive is refused with a reason,
 * never dropped or approximated, so the caller learns that its click went nowhere.
 */

/** DECSET ?9 (x10), ?1000 (normal), ?1002 (button_event), ?1003 (any_event). */
export type MouseTracking = 'off' | 'x10' | 'normal' | 'button_event' | 'any_event';
/** `sgr` is DECSET ?1006; `default` is the legacy byte encoding. */
export type MouseEncoding = 'default' | 'sgr';
export interface MouseModes {
  tracking: MouseTracking;
  encoding: MouseEncoding;
}
export type MouseButton = 'left' | 'middle' | 'right' | 'wheel-up' | 'wheel-down' | 'none';
export type MouseType = 'press' | 'release' | 'click' | 'move' | 'drag' | 'scroll';
export type MouseModifier = 'shift' | 'alt' | 'ctrl';
/** x and y are 0-based screen cells. */
export interface MouseEvent {
  type: MouseType;
  button?: MouseButton;
  x: number;
  y: number;
  modifiers?: MouseModifier[];
}
export type MouseEncoded =
  | { ok: true; bytes: Buffer }
  | { ok: false; code: 'mouse_not_enabled' | 'mouse_mode_mismatch' | 'invalid_mouse'; error: string };

const TYPES: readonly string[] = ['press', 'release', 'click', 'move', 'drag', 'scroll'];
const BUTTON_CODE: Readonly<Record<string, number>> = {
  left: 0,
  middle: 1,
  right: 2,
  'wheel-up': 64,
  'wheel-down': 65,
};
const MODIFIER_BITS: Readonly<Record<string, number>> = { shift: 4, alt: 8, ctrl: 16 };
/** Legacy release code: the old protocol cannot say which button went up. */
const LEGACY_RELEASE = 3;
/** Added to the button code for motion reports (drag, move). */
const MOTION = 32;
/** The legacy encoding sends 32 + value in one byte, so a 1-based coordinate above 223 does not fit. */
const LEGACY_MAX_COORD = 255 - 32;

export function encodeMouse(ev: MouseEvent, modes: MouseModes, size: { cols: number; rows: number }): MouseEncoded {
  // 1. Is the event well-formed on its own? Checked before the modes so a bad event is reported as bad whatever the
  //    application is doing.
  if (typeof ev !== 'object' || ev === null || !TYPES.includes(ev.type)) {
    return invalid(`Mouse event type ${JSON.stringify(ev?.type)} is not one of ${TYPES.join(', ')}.`);
  }
  const { type, x, y } = ev;
  if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0) {
    return invalid(`Mouse position (${String(x)}, ${String(y)}) must be two non-negative integer cells (0-based).`);
  }
  if (x >= size.cols || y >= size.rows) {
    return invalid(
      `Mouse position (${x}, ${y}) is outside the ${size.cols}x${size.rows} screen; ` +
        `cells are 0-based, so x must be below ${size.cols} and y below ${size.rows}.`,
    );
  }
  const button = checkButton(type, ev.button);
  if (typeof button !== 'number') return button;
  let mods = 0;
  for (const m of ev.modifiers ?? []) {
    const bit = Object.hasOwn(MODIFIER_BITS, m) ? MODIFIER_BITS[m] : undefined;
    if (bit === undefined) return invalid(`Mouse modifier ${JSON.stringify(m)} is not one of shift, alt, ctrl.`);
    mods |= bit; // a repeated modifier is harmless
  }

  // 2. Can the application receive it?
  const refusal = checkMode(type, modes.tracking);
  if (refusal) return refusal;
  // X10 compatibility mode has no way to report modifier keys. xterm drops them; we refuse instead, so a caller
  // that asked for ctrl-click never believes the application saw one.
  if (modes.tracking === 'x10' && mods !== 0) {
    return mismatch('The application enabled X10 mouse mode (?9), which cannot report modifier keys; send the press without modifiers.');
  }

  // 3. Encode. Each report is (code, final) where final 'M' is press/motion and 'm' an SGR release.
  const reports: Array<[number, 'M' | 'm']> = [];
  if (type === 'press' || type === 'scroll') reports.push([button | mods, 'M']); // a wheel notch is a press only
  else if (type === 'release') reports.push([button | mods, 'm']);
  else if (type === 'click') reports.push([button | mods, 'M'], [button | mods, 'm']);
  else if (type === 'drag') reports.push([(button + MOTION) | mods, 'M']);
  else reports.push([(LEGACY_RELEASE + MOTION) | mods, 'M']); // move: no button held

  if (modes.encoding === 'sgr') {
    // SGR names the released button in the code and marks the release with a lower-case final.
    return { ok: true, bytes: Buffer.from(reports.map(([b, f]) => `\x1b[<${b};${x + 1};${y + 1}${f}`).join('')) };
  }
  if (x + 1 > LEGACY_MAX_COORD || y + 1 > LEGACY_MAX_COORD) {
    return invalid(
      `Mouse position (${x}, ${y}) cannot be sent: the application uses the legacy mouse encoding, which only ` +
        `reaches column and row ${LEGACY_MAX_COORD - 1} (0-based); it would need to enable SGR mouse mode ` +
        '(?1006) to receive this event.',
    );
  }
  const bytes: number[] = [];
  for (const [b, f] of reports) {
    // Legacy release replaces the button bits with 3 but keeps the modifier bits.
    const code = f === 'm' ? LEGACY_RELEASE | mods : b;
    bytes.push(0x1b, 0x5b, 0x4d, 32 + code, 32 + x + 1, 32 + y + 1); // ESC [ M Cb Cx Cy, raw single bytes
  }
  return { ok: true, bytes: Buffer.from(bytes) };
}

/** Resolves the button to its base code, applying defaults, or explains why the pairing makes no sense. */
function checkButton(type: MouseType, given: MouseButton | undefined): number | MouseEncoded {
  const named = given === undefined ? '' : ` ${JSON.stringify(given)}`;
  if (given !== undefined && given !== 'none' && !Object.hasOwn(BUTTON_CODE, given)) {
    return invalid(`Mouse button${named} is not one of left, middle, right, wheel-up, wheel-down, none.`);
  }
  if (type === 'scroll') {
    // No default direction: guessing "up" when the caller forgot would scroll the wrong way half the time.
    if (given === 'wheel-up' || given === 'wheel-down') return BUTTON_CODE[given];
    return invalid(`A scroll event needs button "wheel-up" or "wheel-down"; got${named || ' no button'}.`);
  }
  if (type === 'move') {
    if (given === undefined || given === 'none') return LEGACY_RELEASE;
    return invalid(`A move event has no button held (got${named}); use "drag" to move with a button down.`);
  }
  // press, release, click, drag: a real button, left by default.
  const button = given ?? 'left';
  if (button === 'left' || button === 'middle' || button === 'right') return BUTTON_CODE[button];
  if (button === 'none') return invalid(`A ${type} event needs a button (left, middle or right), not "none".`);
  return invalid(`A ${type} event cannot use the wheel button${named}; use type "scroll" for the wheel.`);
}

/** Which events each tracking mode can carry; undefined when the event is deliverable. */
function checkMode(type: MouseType, tracking: MouseTracking): MouseEncoded | undefined {
  switch (tracking) {
    case 'x10':
      // ?9 reports only presses of buttons 1-3: no releases (so no click either, since half of it would be lost),
      // no motion and no wheel.
      if (type === 'press') return undefined;
      return mismatch(
        `The application enabled X10 mouse mode (?9), which reports only button presses, so a ${type} cannot be ` +
          `delivered` + (type === 'click' ? '; send a "press" instead.' : '.'),
      );
    case 'normal':
      if (type === 'drag') {
        return mismatch(
          'A drag needs button-event (?1002) or any-event (?1003) mouse tracking, but the application enabled ' +
            'only normal tracking (?1000), which does not report motion.',
        );
      }
      if (type === 'move') return moveMismatch('normal tracking (?1000)');
      return undefined;
    case 'button_event':
      if (type === 'move') {
        return moveMismatch('button-event tracking (?1002), which reports motion only while a button is held');
      }
      return undefined;
    case 'any_event':
      return undefined;
    case 'off':
    default: // an unrecognised mode is treated as no tracking: nothing safe can be sent
      return {
        ok: false,
        code: 'mouse_not_enabled',
        error:
          'The application has not enabled mouse tracking (none of ?9, ?1000, ?1002, ?1003 is set), ' +
          'so it would not understand a mouse event; check modes.mouse before sending one.',
      };
  }
}

function moveMismatch(what: string): MouseEncoded {
  return mismatch(
    `A move without a button needs any-event mouse tracking (?1003), but the application enabled ${what}.`,
  );
}

function mismatch(error: string): MouseEncoded {
  return { ok: false, code: 'mouse_mode_mismatch', error };
}

function invalid(error: string): MouseEncoded {
  return { ok: false, code: 'invalid_mouse', error };
}
