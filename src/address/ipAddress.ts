/**
 * Strict IPv4 and IPv6 text parsers and canonical formatters.
 *
 * Platform-neutral (no `node:` imports) and on the hot path: the parsers walk the string with
 * charCodeAt and allocate nothing on success or failure. IPv4 is an unsigned 32-bit integer held in
 * a JS number; IPv6 is four 32-bit words, most significant first.
 */

export type IpVersion = 4 | 6;

const CH_0 = 48;
const CH_9 = 57;
const CH_DOT = 46;
const CH_COLON = 58;

/** Longest IPv6 text form: six 4-digit groups, six colons and a 15-character dotted IPv4. */
const IPV6_MAX_LENGTH = 45;
const IPV4_MAX_LENGTH = 15;

/** The 16-bit groups of the IPv6 address being parsed or formatted (module scratch, not per call). */
const groups = new Uint16Array(8);

/**
 * Parses strict dotted decimal text[start, end): four parts 0..255, no leading zeros, nothing else.
 * Returns the address as an unsigned 32-bit number, or -1.
 */
function parseIPv4Span(text: string, start: number, end: number): number {
  if (end - start > IPV4_MAX_LENGTH) return -1;
  let address = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === CH_DOT) {
      if (digits === 0 || dots === 3) return -1;
      address = address * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else if (c >= CH_0 && c <= CH_9) {
      if (digits === 1 && part === 0) return -1;
      part = part * 10 + (c - CH_0);
      if (part > 255) return -1;
      digits++;
    } else {
      return -1;
    }
  }
  if (dots !== 3 || digits === 0) return -1;
  return address * 256 + part;
}

/** Strict dotted-decimal IPv4 → unsigned 32-bit integer (0..4294967295), or -1 when invalid. */
export function parseIPv4(text: string): number {
  return parseIPv4Span(text, 0, text.length);
}

/** Hex digit value by char code, -1 for anything else (ASCII only). */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d++) {
  HEX_VALUE['0123456789abcdef'.charCodeAt(d)] = d;
  HEX_VALUE['0123456789ABCDEF'.charCodeAt(d)] = d;
}

function hexValue(c: number): number {
  return c < 128 ? HEX_VALUE[c] : -1;
}

/**
 * Reads the colon-separated groups of `text` into `groups`. Returns the number of groups read
 * (an embedded IPv4 counts as two) plus, packed above bit 4, the group index of `::` + 1
 * (0 when there is none); -1 when the text is not IPv6 syntax.
 */
function scanIPv6Groups(text: string): number {
  const length = text.length;
  let i = 0;
  let count = 0;
  let gap = -1;
  if (text.charCodeAt(0) === CH_COLON) {
    if (text.charCodeAt(1) !== CH_COLON) return -1;
    gap = 0;
    i = 2;
  }
  while (i < length) {
    const start = i;
    let value = 0;
    while (i < length && i - start < 4) {
      const digit = hexValue(text.charCodeAt(i));
      if (digit < 0) break;
      value = value * 16 + digit;
      i++;
    }
    if (i === start) return -1;
    if (i < length && text.charCodeAt(i) === CH_DOT) {
      if (count > 6) return -1;
      const ipv4 = parseIPv4Span(text, start, length);
      if (ipv4 < 0) return -1;
      groups[count++] = ipv4 >>> 16;
      groups[count++] = ipv4 & 0xffff;
      break;
    }
    groups[count++] = value;
    if (i === length) break;
    if (text.charCodeAt(i) !== CH_COLON || count === 8) return -1;
    i++;
    if (text.charCodeAt(i) === CH_COLON) {
      if (gap >= 0) return -1;
      gap = count;
      i++;
    } else if (i === length) {
      return -1;
    }
  }
  return ((gap + 1) << 4) | count;
}

/**
 * Any RFC 4291 text form of IPv6 → out[0..3] (big-endian 32-bit words). Returns false when invalid
 * (then `out` may hold garbage). Zone ids, brackets, prefixes and whitespace are refused.
 */
export function parseIPv6(text: string, out: Uint32Array): boolean {
  if (text.length < 2 || text.length > IPV6_MAX_LENGTH) return false;
  const scan = scanIPv6Groups(text);
  if (scan < 0) return false;
  const count = scan & 15;
  const gap = (scan >> 4) - 1;
  if (gap < 0) {
    if (count !== 8) return false;
  } else {
    if (count > 7) return false;
    const shift = 8 - count;
    for (let g = count - 1; g >= gap; g--) groups[g + shift] = groups[g];
    for (let g = gap; g < gap + shift; g++) groups[g] = 0;
  }
  out[0] = (groups[0] << 16) | groups[1];
  out[1] = (groups[2] << 16) | groups[3];
  out[2] = (groups[4] << 16) | groups[5];
  out[3] = (groups[6] << 16) | groups[7];
  return true;
}

export function formatIPv4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** The embedded IPv4 (u32) when the address is IPv4-mapped (::ffff:0:0/96), else -1. */
export function ipv4MappedOf(words: Uint32Array | ArrayLike<number>): number {
  if (words[0] === 0 && words[1] === 0 && words[2] === 0xffff) return words[3] >>> 0;
  return -1;
}

/** RFC 5952 canonical text: lowercase, no leading zeros, longest run (≥ 2) of zero groups as `::`. */
export function formatIPv6(words: Uint32Array | ArrayLike<number>): string {
  // Only IPv4-mapped addresses keep the dotted tail (RFC 5952 section 5); all others are pure hex.
  const mapped = ipv4MappedOf(words);
  if (mapped >= 0) return `::ffff:${formatIPv4(mapped)}`;
  for (let w = 0; w < 4; w++) {
    groups[2 * w] = words[w] >>> 16;
    groups[2 * w + 1] = words[w] & 0xffff;
  }
  let bestStart = -1;
  let bestLength = 1;
  for (let g = 0; g < 8; g++) {
    if (groups[g] !== 0) continue;
    let end = g + 1;
    while (end < 8 && groups[end] === 0) end++;
    if (end - g > bestLength) {
      bestStart = g;
      bestLength = end - g;
    }
    g = end;
  }
  let text = '';
  for (let g = 0; g < 8; g++) {
    if (g === bestStart) {
      text += '::';
      g += bestLength - 1;
      continue;
    }
    if (text.length > 0 && g !== bestStart + bestLength) text += ':';
    text += groups[g].toString(16);
  }
  return text;
}

/** An IP address parsed once: its canonical text and numeric form. */
export interface ParsedIp {
  /** dotted IPv4 (also for IPv4-mapped IPv6) or compressed IPv6 */
  text: string;
  /** the IPv4 as u32, or -1 for IPv6 */
  v4: number;
  /** the IPv6 words, most significant first (empty for IPv4) */
  words: Uint32Array;
}

const NO_WORDS = new Uint32Array(0);

/** An IPv6 address's four words (most significant first) as one 128-bit number. */
export function ipv6Value(words: ArrayLike<number>): bigint {
  return (BigInt(words[0] >>> 0) << 96n) | (BigInt(words[1] >>> 0) << 64n) | (BigInt(words[2] >>> 0) << 32n) | BigInt(words[3] >>> 0);
}

/** Strict parse of either family; IPv4-mapped IPv6 is the IPv4 it embeds. null: not an address. */
export function parseIp(text: string): ParsedIp | null {
  const v4 = parseIPv4(text);
  if (v4 >= 0) return { text: formatIPv4(v4), v4, words: NO_WORDS };
  const words = new Uint32Array(4);
  if (!parseIPv6(text, words)) return null;
  const mapped = ipv4MappedOf(words);
  return mapped >= 0 ? { text: formatIPv4(mapped), v4: mapped, words: NO_WORDS } : { text: formatIPv6(words), v4: -1, words };
}
