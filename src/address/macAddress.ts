/**
 * Strict MAC address / OUI prefix parser (SPEC 2.5) and formatters.
 *
 * Accepted, case-insensitive, one separator kind per input, no whitespace, no leading, trailing or
 * doubled separator, 6..12 hex digits in total:
 * - colon or hyphen groups of 2 digits (`00:1A:2B`, `00-1A-2B-3C-4D-5E`); the last group of a
 *   prefix may be a single digit, the prefix's last half byte (`70:B3:D5:00:1`, the MA-S block's
 *   nine digits). Six groups are a full address: there (colon only, as `arp` prints it) any group
 *   may be 1 digit, a byte with its leading zero left out (`0:1a:2b:3c:4d:5e`);
 * - the OUI as one 6-digit group, then one group of the other 1 to 6 digits, colon or hyphen
 *   (`001a2b-3c4d5e`);
 * - dotted groups of 4 digits; the last may be shorter (`001a.2b3c.4d5e`, `70b3.d500.1`);
 * - bare hex, 6 to 12 digits (odd counts too: MA-M and MA-S prefixes are 7 and 9 digits).
 * Every digit counts where it stands, so a prefix reads the same in every form. Platform-neutral and
 * allocation-free: the parser walks the string with charCodeAt.
 */

import { ApiError } from '../errors.js';

export interface MacParts {
  /** The first 6 hex digits as a 24-bit integer. */
  hi24: number;
  /** The remaining hex digits, left-aligned into 24 bits and zero-padded. */
  lo24: number;
  /** How many hex digits the input gave, 6..12 (a 1-digit group of a full colon address counts as the 2 it stands for). */
  digits: number;
}

export const MAC_HEX_DIGITS_MIN = 6;
export const MAC_HEX_DIGITS_MAX = 12;

const CH_COLON = 58;
const CH_HYPHEN = 45;
const CH_DOT = 46;
/** Groups of a full address written in byte groups. */
const FULL_BYTE_GROUPS = 6;
/** The longest accepted text: six colon groups of 2 digits. */
const MAX_TEXT_LENGTH = 17;

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

/**
 * How many digits a group of `length` digits stands for: `length`, 2 for a 1-digit byte of a full
 * colon address, or 0 when the group is refused. `index` counts groups from 1; `last` is the
 * final group; `ouiGroup` says the first group was the 6-digit OUI.
 */
function groupWidth(separator: number, length: number, index: number, last: boolean, ouiGroup: boolean): number {
  if (separator === 0) return length;
  if (separator === CH_DOT) return length === 4 || (last && length < 4) ? length : 0;
  if (index === 1 && length === 6) return 6;
  if (ouiGroup) return index === 2 && last && length <= 6 ? length : 0;
  if (length === 2) return 2;
  if (length !== 1) return 0;
  if (last && index < FULL_BYTE_GROUPS) return 1;
  return separator === CH_COLON ? 2 : 0;
}

/** Parses a MAC address or OUI prefix into `out`; false (out untouched) when invalid. */
export function parseMac(text: string, out: MacParts): boolean {
  const length = text.length;
  if (length === MAX_TEXT_LENGTH && sixPairs(text, out)) return true;
  if (length === MAC_HEX_DIGITS_MAX && twelveDigits(text, out)) return true;
  return anyForm(text, out);
}

/**
 * A full address as six pairs of digits between colons or hyphens, the commonest spelling, read
 * without the general walk (which accepts it too, to the same parts); false: some other form.
 */
function sixPairs(text: string, out: MacParts): boolean {
  const separator = text.charCodeAt(2);
  if (separator !== CH_COLON && separator !== CH_HYPHEN) return false;
  let hi24 = 0;
  let lo24 = 0;
  for (let at = 0; at < MAX_TEXT_LENGTH; at += 3) {
    if (at > 0 && text.charCodeAt(at - 1) !== separator) return false;
    const high = hexValue(text.charCodeAt(at));
    const low = hexValue(text.charCodeAt(at + 1));
    if ((high | low) < 0) return false;
    if (at < 9) hi24 = (hi24 << 8) | (high << 4) | low;
    else lo24 = (lo24 << 8) | (high << 4) | low;
  }
  out.hi24 = hi24;
  out.lo24 = lo24;
  out.digits = MAC_HEX_DIGITS_MAX;
  return true;
}

/** A full address as twelve bare digits; false: some other form. */
function twelveDigits(text: string, out: MacParts): boolean {
  let hi24 = 0;
  let lo24 = 0;
  for (let i = 0; i < MAC_HEX_DIGITS_MAX; i++) {
    const digit = hexValue(text.charCodeAt(i));
    if (digit < 0) return false;
    if (i < 6) hi24 = (hi24 << 4) | digit;
    else lo24 = (lo24 << 4) | digit;
  }
  out.hi24 = hi24;
  out.lo24 = lo24;
  out.digits = MAC_HEX_DIGITS_MAX;
  return true;
}

/** Every accepted form, one character at a time. */
function anyForm(text: string, out: MacParts): boolean {
  const length = text.length;
  if (length < MAC_HEX_DIGITS_MIN || length > MAX_TEXT_LENGTH) return false;
  let separator = 0;
  let value = 0;
  let digits = 0;
  let groupValue = 0;
  let groupLength = 0;
  let groupCount = 0;
  let ouiGroup = false;
  let hasPaddedGroup = false;
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
    if (groupLength === 0) return false;
    groupCount++;
    const width = groupWidth(separator, groupLength, groupCount, c < 0, ouiGroup);
    if (width === 0) return false;
    if (groupCount === 1 && groupLength === 6) ouiGroup = true;
    if (width > groupLength) hasPaddedGroup = true;
    value = value * POW16[width] + groupValue;
    digits += width;
    if (digits > MAC_HEX_DIGITS_MAX) return false;
    groupValue = 0;
    groupLength = 0;
  }
  if (digits < MAC_HEX_DIGITS_MIN || (hasPaddedGroup && groupCount !== FULL_BYTE_GROUPS)) return false;
  const restDigits = digits - 6;
  const hi24 = Math.floor(value / POW16[restDigits]);
  out.hi24 = hi24;
  out.lo24 = (value - hi24 * POW16[restDigits]) * POW16[6 - restDigits];
  out.digits = digits;
  return true;
}

/** The invalid_mac refusal of a text parseMac refused, saying what is wrong with it. */
export function invalidMac(text: string): ApiError {
  const problem = macProblem(text);
  return new ApiError('invalid_mac', problem === null ? undefined : `Not a MAC address or prefix: ${problem}`);
}

/**
 * What is wrong with a text parseMac refused, by the same rules, walked again apart from the
 * parser so that its fast readers stay as they are: the first of a character that is neither a
 * hex digit nor a separator, mixed separators, too few or too many digits, an empty group, a group
 * of the wrong length. Null when none of these is found (parseMac would accept the text).
 */
export function macProblem(text: string): string | null {
  let separator = -1;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (hexValue(c) >= 0) digits++;
    else if (c !== CH_COLON && c !== CH_HYPHEN && c !== CH_DOT)
      return `${characterAt(text, i)} (character ${i + 1}) is neither a hex digit nor a separator (: - .).`;
    else if (separator === -1) separator = c;
    else if (c !== separator)
      return `it mixes separators (${String.fromCharCode(separator)} and ${String.fromCharCode(c)}); use one kind throughout.`;
  }
  if (digits < MAC_HEX_DIGITS_MIN)
    return `it has ${digits === 0 ? 'no' : digits} hex digit${digits === 1 ? '' : 's'}; it needs ${MAC_HEX_DIGITS_MIN} to ${MAC_HEX_DIGITS_MAX}.`;
  if (digits > MAC_HEX_DIGITS_MAX) return `it has ${digits} hex digits; it needs ${MAC_HEX_DIGITS_MIN} to ${MAC_HEX_DIGITS_MAX}.`;
  if (separator === -1) return null;
  const mark = String.fromCharCode(separator);
  const groups = text.split(mark);
  if (groups[0] === '') return `it starts with a separator (${mark}).`;
  if (groups[groups.length - 1] === '') return `it ends with a separator (${mark}).`;
  if (groups.includes('')) return `it has two separators in a row (${mark}${mark}).`;
  const last = groups.length - 1;
  if (separator === CH_DOT) {
    const wrong = groups.find((group, i) => group.length > 4 || (group.length < 4 && i < last));
    return wrong === undefined ? null : `the group ${wrong} has ${wrong.length} digits; dotted groups have 4 (the last may have fewer).`;
  }
  if (groups[0].length === 6)
    return groups.length === 2 ? null : 'after the OUI as one group of 6 digits comes one group of the other 1 to 6, no more.';
  const wrong = groups.find((group) => group.length > 2);
  if (wrong !== undefined)
    return `the group ${wrong} has ${wrong.length} digits; ${separator === CH_COLON ? 'colon' : 'hyphen'} groups have 2 (or the OUI's 6 as the first group).`;
  if (groups.length > FULL_BYTE_GROUPS) return `it has ${groups.length} groups; a full address has ${FULL_BYTE_GROUPS}.`;
  const short = groups.findIndex((group, i) => group.length === 1 && (i < last || groups.length === FULL_BYTE_GROUPS));
  if (short === -1 || (separator === CH_COLON && groups.length === FULL_BYTE_GROUPS)) return null;
  return separator === CH_HYPHEN
    ? `the group ${groups[short]} has 1 digit; hyphen groups have 2 (a prefix's last group may have 1).`
    : `the group ${groups[short]} has 1 digit; a byte's leading zero may be left out only in a full address of six groups.`;
}

/** A character of a message: itself when printable ASCII, else its code point. */
function characterAt(text: string, at: number): string {
  const code = text.codePointAt(at)!;
  if (code === 0x20) return 'A space';
  if (code > 0x20 && code < 0x7f) return `'${text[at]}'`;
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Uppercase hex digits by value, as character codes. */
const HEX_UPPER = Uint8Array.from('0123456789ABCDEF', (c) => c.charCodeAt(0));

/**
 * `AA:BB:CC`, uppercase. The string is made at once from its character codes: joining the byte
 * pairs with colons made a string per step and cost about three times as much.
 */
export function formatOui(hi24: number): string {
  const h = HEX_UPPER;
  return String.fromCharCode(
    h[(hi24 >>> 20) & 15],
    h[(hi24 >>> 16) & 15],
    CH_COLON,
    h[(hi24 >>> 12) & 15],
    h[(hi24 >>> 8) & 15],
    CH_COLON,
    h[(hi24 >>> 4) & 15],
    h[hi24 & 15],
  );
}

/** `AA:BB:CC:DD:EE:FF`, uppercase. */
export function formatMac(hi24: number, lo24: number): string {
  return `${formatOui(hi24)}:${formatOui(lo24)}`;
}

/**
 * The first `digits` hex digits of an address as colon-separated byte pairs, an odd last digit
 * alone (`8C:1F:64:A0:0` for a 36-bit block). parseMac reads it back to the same prefix for every
 * count but 11, whose six groups would be a full address; registry blocks have 6, 7 or 9 digits.
 */
export function formatMacPrefix(hi24: number, lo24: number, digits: number): string {
  const hex = formatMac(hi24, lo24).replaceAll(':', '').slice(0, digits);
  return hex.replace(/(..)(?=.)/g, '$1:');
}
