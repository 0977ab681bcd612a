/**
 * What an input is, for the callers that take any kind in one text (the demo page, the browser
 * build, `netlookup lookup`): the first kind whose strict parser takes it, in one order for all.
 */
import { parseIPv4, parseIPv6 } from './ipAddress.js';
import { parseMac, type MacParts } from './macAddress.js';

export type InputKind = 'ip' | 'mac' | 'asn';

const words = new Uint32Array(4);
const macParts: MacParts = { hi24: 0, lo24: 0, digits: 0 };

/** The kind of the text, or null when it is none: an AS number is claimed by its `AS` only (six bare digits are a MAC prefix). */
export function inputKindOf(text: string): InputKind | null {
  if (parseIPv4(text) >= 0 || parseIPv6(text, words)) return 'ip';
  if (parseMac(text, macParts)) return 'mac';
  if (/^as\d/i.test(text)) return 'asn';
  return null;
}
