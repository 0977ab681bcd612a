/**
 * A blacklist address is the engine's parsed address (canonical text and numeric form, parsed
 * once): the store's in-memory index is keyed by the numeric form, a store shared between
 * processes by the text. Reports come from tools that may pad the address, so it is trimmed.
 */
import { parseIp, type ParsedIp } from '../address/ipAddress.js';
import { reservedIPv4, reservedIPv6, type ReservedRange } from '../address/reservedRange.js';

export type BlacklistAddress = ParsedIp;

export function parseBlacklistAddress(input: string): BlacklistAddress | null {
  return parseIp(input.trim());
}

/** The special-purpose range of the address (private, loopback, documentation, ...), or null. */
export function reservedRangeOf(address: BlacklistAddress): ReservedRange | null {
  return address.v4 >= 0 ? reservedIPv4(address.v4) : reservedIPv6(address.words);
}
