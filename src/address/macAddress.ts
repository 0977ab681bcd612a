/**
 * Strict MAC address / OUI prefix parser (SPEC 2.5) and formatters.
 *
 * Accepted, case-insensitive, one separator kind per input, no whitespace, no leading or trailing
 * separator, 6..12 hex digits in total:
 * - colon groups of 2 digits, 3 to 6 groups (`00:1A:2B`, `00:1A:2B:3C:4D:5E`); groups of 1 digit
 *   (as `arp` prints them, `0:1a:2b:3c:4d:5e`) only in the full 6-group form;
 * - hyphen groups of 2 digits, 3 to 6 groups;
 * - dotted groups of exactly 4 digits, 3 groups or a 2-group prefix (`001a.2b3c`, 8 digits: the same
 *   prefix rule as the colon and hyphen forms);
 * - bare hex, 6 to 12 digits (odd counts too: MA-M and MA-S prefixes are 7 and 9 digits).
 * Platform-neutral and allocation-free: the parser walks the string with charCodeAt.
 */

export interface MacParts {
  /** The first 6 hex digits as a 24-bit integer. */
  hi24: number;
  /** The remaining hex digits, left-aligned into 24 bits and zero-padded. */
  lo24: number;
  /** How many hex digits the input gave, 6..12 (a 1-digit colon group counts as the 2 it stands for). */
  digits: number;
}

export const MAC_HEX_DIGITS_MIN = 6;
export const MAC_HEX_DIGITS_MAX = 12;

const CH_COLON = 58;
const CH_HYPHEN = 45;
const CH_DOT = 46;

const POW16 = new Float64Array(13);
for (let k = 0; k <= 12; k++) POW16[k] = 16 ** k;

/** Hex digit value by char code, -1 for anything else (ASCII only). */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d++) {
  HEX_VALUE['0123456789abcdef'.charCodeAt(d)] = d;
  HEX_VALUE['0123456789ABCDEF'.charCodeAt(d)] = d;
}

/** -1 also for the end of input (c = -1) and for NaN. */
function hexValue(c: number): number {
  return c >= 0 && c < 128 ? HEX_VALUE[c] : -1;
}

/** Digits a group of `length` digits must have for a separator, or 0 when the group is refused. */
function groupWidth(separator: number, length: number): number {
  if (separator === 0) return length;
  if (separator === CH_DOT) return length === 4 ? 4 : 0;
  if (separator === CH_COLON && length === 1) return 2;
  return length === 2 ? 2 : 0;
}

function groupCountAllowed(separator: number, groupCount: number, hasShortGroup: boolean): boolean {
  if (separator === 0) return groupCount === 1;
  if (separator === CH_DOT) return groupCount === 2 || groupCount === 3;
  if (hasShortGroup) return groupCount === 6;
  return groupCount >= 3 && groupCount <= 6;
}

/** Parses a MAC address or OUI prefix into `out`; false (out untouched) when invalid. */
export function parseMac(text: string, out: MacParts): boolean {
  const length = text.length;
  if (length < MAC_HEX_DIGITS_MIN || length > 17) return false;
  let separator = 0;
  let value = 0;
  let digits = 0;
  let groupValue = 0;
  let groupLength = 0;
  let groupCount = 0;
  let hasShortGroup = false;
  for (let i = 0; i <= length; i++) {
    const c = i < length ? text.charCodeAt(i) : -1;
    const hex = hexValue(c);
    if (hex >= 0) {
      if (++groupLength > MAC_HEX_DIGITS_MAX) return false;
      groupValue = groupValue * 16 + hex;
      continue;
    }
    if (c >= 0 && c !== CH_COLON && c !== CH_HYPHEN && c !== CH_DOT) return false;
    if (c >= 0) {
      if (separator === 0) separator = c;
      else if (separator !== c) return false;
    }
    const width = groupLength === 0 ? 0 : groupWidth(separator, groupLength);
    if (width === 0) return false;
    if (groupLength === 1) hasShortGroup = true;
    value = value * POW16[width] + groupValue;
    digits += width;
    if (digits > MAC_HEX_DIGITS_MAX) return false;
    groupCount++;
    groupValue = 0;
    groupLength = 0;
  }
  if (digits < MAC_HEX_DIGITS_MIN || !groupCountAllowed(separator, groupCount, hasShortGroup)) return false;
  const restDigits = digits - 6;
  const hi24 = Math.floor(value / POW16[restDigits]);
  out.hi24 = hi24;
  out.lo24 = (value - hi24 * POW16[restDigits]) * POW16[6 - restDigits];
  out.digits = digits;
  return true;
}

const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).toUpperCase().padStart(2, '0'));

function formatTriple(n24: number): string {
  return `${HEX_BYTE[(n24 >>> 16) & 255]}:${HEX_BYTE[(n24 >>> 8) & 255]}:${HEX_BYTE[n24 & 255]}`;
}

/** `AA:BB:CC`, uppercase. */
export function formatOui(hi24: number): string {
  return formatTriple(hi24);
}

/** `AA:BB:CC:DD:EE:FF`, uppercase. */
export function formatMac(hi24: number, lo24: number): string {
  return `${formatTriple(hi24)}:${formatTriple(lo24)}`;
}
