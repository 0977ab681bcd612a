// Writer primitives of the record JSON: bytes appended at a cursor in the output area the host
// reserved. Every value is written exactly as JSON.stringify writes it, so that the records made
// here equal the object path's text byte for byte.
//
// Texts the host renders (template parts, per-country fragments, clock and security blocks) are
// "fragments": 8 bytes in memory, the address (u32) of UTF-8 JSON text, its byte length (u16) and
// its characters (u16: 0 ASCII, 1 some beyond ASCII, 3 some beyond Latin-1).
//
// A record is written as UTF-8 and handed over in the form its host turns into a string fastest
// (V8 keeps strings as Latin-1 or UTF-16; decoding UTF-8 with a non-ASCII character in it costs
// several times more than copying either): as it is when all ASCII, else converted to Latin-1 in
// place where every character fits and the host reads Latin-1, else to UTF-16.

let output: usize = 0;
let safeEnd: usize = 0;
let cursor: usize = 0;
let overflowed = false;
/** what the record holds: bit 0 some character beyond ASCII, bit 1 some beyond Latin-1 */
let characters: u32 = 0;
let utf16Output: usize = 0;
let latin1Allowed = false;

/** A record the writer cannot give: the host takes the object path. */
export const OBJECT_PATH: i32 = -3;

const LOWER_HEX = memory.data<u8>([0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66]);
const UPPER_HEX = memory.data<u8>([0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46]);
const NULL_TEXT = memory.data<u8>([0x6e, 0x75, 0x6c, 0x6c]);
const TRUE_TEXT = memory.data<u8>([0x74, 0x72, 0x75, 0x65]);
const FALSE_TEXT = memory.data<u8>([0x66, 0x61, 0x6c, 0x73, 0x65]);
/** Scratch for the digits of a number, written backwards. */
const DIGITS = memory.data(24);
/** "00" to "99" */
const PAIRS = memory.data(200);
/** the decimal text of 0 to 255 (one to three bytes, the rest zero), for dotted IPv4 */
const OCTETS = memory.data(256 * 4);
const OCTET_LENGTHS = memory.data(256);

function fillTables(): void {
  for (let i: u32 = 0; i < 100; i++) {
    store<u8>(PAIRS + (i << 1), <u8>(0x30 + i / 10));
    store<u8>(PAIRS + (i << 1) + 1, <u8>(0x30 + i % 10));
  }
  for (let i: u32 = 0; i < 256; i++) {
    const at = OCTETS + (i << 2);
    let length: u32 = 1;
    if (i >= 100) {
      store<u8>(at, <u8>(0x30 + i / 100));
      store<u16>(at + 1, load<u16>(PAIRS + ((i % 100) << 1)));
      length = 3;
    } else if (i >= 10) {
      store<u16>(at, load<u16>(PAIRS + (i << 1)));
      length = 2;
    } else store<u8>(at, <u8>(0x30 + i));
    store<u8>(OCTET_LENGTHS + i, <u8>length);
  }
}

/**
 * Where records are written. The area past `end` leaves room for everything of bounded size
 * (fragments, numbers, addresses): only strings from the tables are checked against `end`.
 */
export function jsonOutput(at: usize, end: usize, utf16At: usize, latin1: bool): void {
  output = at;
  safeEnd = end;
  utf16Output = utf16At;
  latin1Allowed = latin1;
  fillTables();
}

export function begin(): void {
  cursor = output;
  overflowed = false;
  characters = 0;
}

/** Record forms: ASCII or Latin-1 bytes at the output, or UTF-16LE code units at the UTF-16 output. */
const FORM_SHIFT = 20;
const LATIN1_FORM: i32 = 1 << FORM_SHIFT;
const UTF16_FORM: i32 = 2 << FORM_SHIFT;

/**
 * The record written: its length (bytes, or UTF-16 code units) plus its form (0 ASCII, 1 Latin-1,
 * 2 UTF-16, times 2^20), or OBJECT_PATH when a string did not fit.
 */
export function finish(): i32 {
  if (overflowed) return OBJECT_PATH;
  if (characters == 0) return <i32>(cursor - output);
  if (characters == 1 && latin1Allowed) return LATIN1_FORM | toLatin1();
  return UTF16_FORM | toUtf16();
}

/** Rewrites the UTF-8 output, all of whose characters are below 0x100, as Latin-1 in place; its length. */
function toLatin1(): i32 {
  let from = output;
  let to = output;
  const stop = cursor;
  while (from < stop) {
    if (from + 8 <= stop && (load<u64>(from) & HIGHS) == 0) {
      store<u64>(to, load<u64>(from));
      from += 8;
      to += 8;
      continue;
    }
    const c = <u32>load<u8>(from);
    if (c < 0x80) {
      store<u8>(to, <u8>c);
      from += 1;
    } else {
      store<u8>(to, <u8>(((c & 0x1f) << 6) | (<u32>load<u8>(from, 1) & 0x3f)));
      from += 2;
    }
    to += 1;
  }
  return <i32>(to - output);
}

/** Writes the UTF-8 output as UTF-16LE at the UTF-16 output; its length in code units. */
function toUtf16(): i32 {
  let from = output;
  let to = utf16Output;
  const stop = cursor;
  while (from < stop) {
    if (from + 8 <= stop && (load<u64>(from) & HIGHS) == 0) {
      store<u64>(to, widen(load<u32>(from)));
      store<u64>(to, widen(load<u32>(from, 4)), 8);
      from += 8;
      to += 16;
      continue;
    }
    const c = <u32>load<u8>(from);
    let code: u32;
    if (c < 0x80) {
      code = c;
      from += 1;
    } else if (c < 0xe0) {
      code = ((c & 0x1f) << 6) | (<u32>load<u8>(from, 1) & 0x3f);
      from += 2;
    } else if (c < 0xf0) {
      code = ((c & 0x0f) << 12) | ((<u32>load<u8>(from, 1) & 0x3f) << 6) | (<u32>load<u8>(from, 2) & 0x3f);
      from += 3;
    } else {
      const point =
        ((c & 0x07) << 18) | ((<u32>load<u8>(from, 1) & 0x3f) << 12) | ((<u32>load<u8>(from, 2) & 0x3f) << 6) | (<u32>load<u8>(from, 3) & 0x3f);
      from += 4;
      store<u16>(to, <u16>(0xd800 + ((point - 0x10000) >>> 10)));
      to += 2;
      code = 0xdc00 + ((point - 0x10000) & 0x3ff);
    }
    store<u16>(to, <u16>code);
    to += 2;
  }
  return <i32>((to - utf16Output) >>> 1);
}

/** Four ASCII bytes as four UTF-16 code units. */
@inline function widen(x: u32): u64 {
  const w = <u64>x;
  return (w & 0xff) | ((w & 0xff00) << 8) | ((w & 0xff0000) << 16) | ((w & 0xff000000) << 24);
}

@inline export function byte(c: u32): void {
  store<u8>(cursor, <u8>c);
  cursor += 1;
}

/**
 * Copies `length` bytes sixteen at a time: most pieces are short, and memory.copy is a call out of
 * the compiled code. It may read up to fifteen bytes past the source (the host keeps memory
 * there) and write as far past the cursor (the output has room).
 */
@inline export function copy(from: usize, length: usize): void {
  const to = cursor;
  for (let done: usize = 0; done < length; done += 16) {
    store<u64>(to + done, load<u64>(from + done));
    store<u64>(to + done, load<u64>(from + done, 8), 8);
  }
  cursor = to + length;
}

/** Where the next byte goes: with copyBack, what was written since can be written again. */
@inline export function mark(): usize {
  return cursor;
}

/** Writes again the `length` bytes written at `at` (a JSON value that appears twice). */
@inline export function copyBack(at: usize, length: usize): void {
  copy(at, length);
}

/** Text copied from elsewhere (a time zone's slot) whose characters are of class `c` (see finish). */
@inline export function noteCharacters(c: u32): void {
  characters |= c;
}

/** The JSON text of fragment `ref`. */
@inline export function fragment(ref: usize): void {
  const word = load<u32>(ref, 4);
  copy(<usize>load<u32>(ref), <usize>(word & 0xffff));
  characters |= word >>> 16;
}

export function writeNull(): void {
  copy(NULL_TEXT, 4);
}

export function writeBool(value: bool): void {
  if (value) copy(TRUE_TEXT, 4);
  else copy(FALSE_TEXT, 5);
}

/**
 * A quoted JSON string of UTF-8 bytes, escaped as JSON.stringify escapes: `"` and `\` with a
 * backslash, backspace, form feed, newline, carriage return and tab by their letters, other
 * control characters as \u00xx (lower-case hex), every other byte as it is.
 */
export function quoted(from: usize, length: usize): void {
  if (cursor + length * 6 > safeEnd) {
    overflowed = true;
    return;
  }
  byte(0x22);
  // Copied eight bytes at a time while looking for bytes to escape; the usual string has none.
  const to = cursor;
  let found: u64 = 0;
  let high: u64 = 0;
  let done: usize = 0;
  for (; done + 8 <= length; done += 8) {
    const w = load<u64>(from + done);
    store<u64>(to + done, w);
    found |= escapeBits(w);
    high |= w;
  }
  if (done < length) {
    // the last bytes, the rest of the word filled with a byte that needs no escaping
    const keep = (<u64>1 << (<u64>(length - done) << 3)) - 1;
    const w = load<u64>(from + done);
    store<u64>(to + done, w);
    found |= escapeBits((w & keep) | (ONES * 0x41 & ~keep));
    high |= w & keep;
  }
  if ((high & HIGHS) != 0) characters |= charactersOf(from, length);
  if (found == 0) {
    cursor = to + length;
    byte(0x22);
    return;
  }
  const stop = from + length;
  let plain = from;
  for (let p = from; p < stop; p++) {
    const c = <u32>load<u8>(p);
    if (c >= 0x20 && c != 0x22 && c != 0x5c) continue;
    copy(plain, p - plain);
    plain = p + 1;
    escapeByte(c);
  }
  copy(plain, stop - plain);
  byte(0x22);
}

const ONES: u64 = 0x0101010101010101;
const HIGHS: u64 = 0x8080808080808080;

/** 1 for UTF-8 text beyond ASCII, 3 when some character is beyond Latin-1 (a lead byte from 0xC4). */
function charactersOf(from: usize, length: usize): u32 {
  for (let p = from; p < from + length; p++) if (load<u8>(p) >= 0xc4) return 3;
  return 1;
}

/** Bits set where one of eight bytes is below 0x20, a quote or a backslash (0: none is). */
@inline function escapeBits(w: u64): u64 {
  const below = (w - ONES * 0x20) & ~w;
  const quote = w ^ (ONES * 0x22);
  const backslash = w ^ (ONES * 0x5c);
  return (below | ((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash)) & HIGHS;
}

function escapeByte(c: u32): void {
  byte(0x5c);
  if (c == 0x22 || c == 0x5c) byte(c);
  else if (c == 0x08) byte(0x62);
  else if (c == 0x0c) byte(0x66);
  else if (c == 0x0a) byte(0x6e);
  else if (c == 0x0d) byte(0x72);
  else if (c == 0x09) byte(0x74);
  else {
    byte(0x75);
    byte(0x30);
    byte(0x30);
    byte(load<u8>(LOWER_HEX + (c >>> 4)));
    byte(load<u8>(LOWER_HEX + (c & 15)));
  }
}

/**
 * String `id` of a table's pool (offsets STRO, bytes STRS) as JSON: id 0 stands for null, every
 * other id is a string, the empty one included.
 */
export function poolString(offsets: usize, bytes: usize, id: u32): void {
  if (id == 0) {
    writeNull();
    return;
  }
  const at = offsets + (<usize>id << 2);
  const start = load<u32>(at);
  quoted(bytes + <usize>start, <usize>(load<u32>(at, 4) - start));
}

/**
 * A country code packed as two bytes (first in the low byte; 0: none), which the TypeScript
 * reader turns into a string of two Latin-1 characters: quoted, escaped, UTF-8 encoded.
 */
export function countryCode(packed: u32): void {
  if (packed == 0) {
    writeNull();
    return;
  }
  byte(0x22);
  latin1(packed & 0xff);
  latin1(packed >>> 8);
  byte(0x22);
}

function latin1(c: u32): void {
  if (c < 0x20 || c == 0x22 || c == 0x5c) escapeByte(c);
  else if (c < 0x80) byte(c);
  else {
    characters |= 1;
    byte(0xc0 | (c >>> 6));
    byte(0x80 | (c & 0x3f));
  }
}

/** An unsigned integer in decimal. */
export function unsigned(n: u64): void {
  if (n > 0xffffffff) {
    let at = DIGITS + 24;
    do {
      at--;
      store<u8>(at, <u8>(0x30 + n % 10));
      n /= 10;
    } while (n != 0);
    copy(at, DIGITS + 24 - at);
    return;
  }
  let m = <u32>n;
  let at = DIGITS + 24;
  while (m >= 100) {
    const rest = m % 100;
    m /= 100;
    at -= 2;
    store<u16>(at, load<u16>(PAIRS + (rest << 1)));
  }
  if (m >= 10) {
    at -= 2;
    store<u16>(at, load<u16>(PAIRS + (m << 1)));
  } else {
    at--;
    store<u8>(at, <u8>(0x30 + m));
  }
  copy(at, DIGITS + 24 - at);
}

/** Two decimal digits (00 to 99). */
@inline export function twoDigits(n: u32): void {
  byte(0x30 + n / 10);
  byte(0x30 + n % 10);
}

/**
 * `Math.round(x * 1e4) / 1e4` as JSON.stringify prints it, or false (nothing written) for values
 * whose text this does not produce (not finite, or too large for plain decimals). Math.round
 * rounds halves up; the quotient of an integer k below 1e9 by 1e4 is printed as the shortest
 * decimal that reads back to it, which is k / 10^4 written out (no other decimal of at most as
 * many digits lies as close), trailing zeros dropped. -0 prints as 0.
 */
export function rounded4(x: f64): bool {
  const scaled = x * 1e4;
  if (!(Math.abs(scaled) < 1e9)) return false;
  let whole = Math.floor(scaled);
  if (scaled - whole >= 0.5) whole += 1;
  if (whole < 0) {
    byte(0x2d);
    whole = -whole;
  }
  const k = <u32>whole;
  unsigned(k / 10000);
  let fraction = k % 10000;
  if (fraction == 0) return true;
  byte(0x2e);
  let divisor: u32 = 1000;
  while (fraction != 0) {
    byte(0x30 + fraction / divisor);
    fraction %= divisor;
    divisor /= 10;
  }
  return true;
}

/** Dotted IPv4, without quotes. */
export function ipv4(n: u32): void {
  octet(n >>> 24);
  byte(0x2e);
  octet((n >>> 16) & 255);
  byte(0x2e);
  octet((n >>> 8) & 255);
  byte(0x2e);
  octet(n & 255);
}

@inline function octet(value: u32): void {
  store<u32>(cursor, load<u32>(OCTETS + (value << 2)));
  cursor += <usize>load<u8>(OCTET_LENGTHS + value);
}

/**
 * RFC 5952 IPv6 text without quotes, as src/address/ipAddress.ts formatIPv6 writes it: lower case,
 * no leading zeros, the first longest run of two or more zero groups as `::`, IPv4-mapped
 * addresses with a dotted tail.
 */
export function ipv6(hi: u64, lo: u64): void {
  if (hi == 0 && lo >>> 32 == 0xffff) {
    byte(0x3a);
    byte(0x3a);
    group(0xffff);
    byte(0x3a);
    ipv4(<u32>lo);
    return;
  }
  let bestStart: i32 = -1;
  let bestLength: i32 = 1;
  for (let g: i32 = 0; g < 8; g++) {
    if (groupOf(hi, lo, g) != 0) continue;
    let stop = g + 1;
    while (stop < 8 && groupOf(hi, lo, stop) == 0) stop++;
    if (stop - g > bestLength) {
      bestStart = g;
      bestLength = stop - g;
    }
    g = stop;
  }
  const after = bestStart + bestLength;
  for (let g: i32 = 0; g < 8; g++) {
    if (g == bestStart) {
      byte(0x3a);
      byte(0x3a);
      g += bestLength - 1;
      continue;
    }
    if (g > 0 && g != after) byte(0x3a);
    group(groupOf(hi, lo, g));
  }
}

@inline function groupOf(hi: u64, lo: u64, g: i32): u32 {
  const word = g < 4 ? hi : lo;
  return <u32>(word >>> (<u64>(3 - (g & 3)) << 4)) & 0xffff;
}

/** A group of an IPv6 address: lower-case hex without leading zeros. */
function group(value: u32): void {
  let shift: i32 = 12;
  while (shift > 0 && (value >>> shift) == 0) shift -= 4;
  for (; shift >= 0; shift -= 4) byte(load<u8>(LOWER_HEX + ((value >>> shift) & 15)));
}

/** `digits` upper-case hex digits of `value`, most significant first. */
export function upperHex(value: u64, digits: i32): void {
  for (let shift = (digits - 1) << 2; shift >= 0; shift -= 4) byte(load<u8>(UPPER_HEX + <usize>((value >>> <u64>shift) & 15)));
}

/** Upper-case byte pairs separated by colons, `bytes` of them from the top of a `bytes`-byte value. */
export function colonHex(value: u64, bytes: i32): void {
  for (let i = bytes - 1; i >= 0; i--) {
    upperHex(value >>> <u64>(i << 3), 2);
    if (i > 0) byte(0x3a);
  }
}
