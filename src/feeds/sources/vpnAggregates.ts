/**
 * Readers of aggregate VPN address lists: lists that say an address belongs to some VPN without
 * naming which, so their ranges carry no provider.
 *
 * - X4BNet lists_vpn, `https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv4.txt`
 *   and `…/ipv6.txt` (MIT): one CIDR block a line, nothing else (no comments, no header, no date).
 *   Built daily from the announced prefixes of the VPN providers' AS numbers (iptoasn.com) and
 *   hand-kept blocks, so it marks whole networks of the providers (and of some hosters they rent
 *   from), entries and exits alike. It also merges in the IPv4 ranges of Apple's iCloud Private
 *   Relay egress list (`input/vpn/ips/apple.txt`, fetched daily from mask-api.icloud.com): the
 *   builder should let the relay reading win there.
 * - az0 vpn_ip, `https://az0-vpnip-public.oooninja.com/ip.txt` (GPL-3.0; the file is published on
 *   that host, not in the github.com/az0/vpn_ip repository since 2025-09): a first line
 *   `# YYYY-MM-DDTHH:MM:SSZ` (when it was written), then one address a line sorted by number, each
 *   followed by ` # ` and the comma-separated sources that named it — the VPN's root domains
 *   (`protonvpn.net`, `setupvpn.com`) or its source file (`nordvpn`, `pia`, `windscribe`). The
 *   addresses are the VPN servers' as resolved from their published host names or read from the
 *   VPNs' APIs and apps (entry addresses; for most VPNs the exit too). The sources are not brand
 *   names, so no provider is taken from them.
 *
 * Rules: lines are read bounded (length and bytes, gzip inflated by linesOfFile); a line that is
 * not the documented form — a blank line, a block with host bits set, an address that does not
 * parse — is an error naming file and line; a list with no address is refused. Bogons are left to
 * the builder (az0's list carries `1.2.3.4 # windscribe`, an address Windscribe's API returned).
 */
import { linesOfFile, SourceFormatError } from '../../tables/sources/textLines.js';
import type { FeedListing, ListedRange } from './feedListing.js';
import { addressRange, listingOf, prefixRange, type Fail } from './vpnServers.js';

export const X4B_VPN_URLS = {
  ipv4: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv4.txt',
  ipv6: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv6.txt',
} as const;
export const AZ0_VPN_IPS_URL = 'https://az0-vpnip-public.oooninja.com/ip.txt';

/** X4BNet's ipv4.txt was 180 KB (10,862 lines) in 2026; a block is at most 43 characters. */
const X4B_MAX_BYTES = 64 * 1024 * 1024;
const X4B_MAX_LINE = 64;
/** az0's ip.txt had 32,661 lines in 2025, the longest 206 characters (an address named by 15 domains). */
const AZ0_MAX_BYTES = 64 * 1024 * 1024;
const AZ0_MAX_LINE = 4096;

/** Reads one of X4BNet's `output/vpn/ipv4.txt` / `ipv6.txt`: one CIDR block a line, either family. */
export async function readX4bVpnList(file: string): Promise<FeedListing> {
  const ranges: ListedRange[] = [];
  for await (const { text, line } of linesOfFile(file, { maxLineLength: X4B_MAX_LINE, maxBytes: X4B_MAX_BYTES })) {
    const fail: Fail = (message) => {
      throw new SourceFormatError(file, line, message);
    };
    if (text === '') fail('blank line');
    ranges.push(prefixRange(text, null, fail));
  }
  if (ranges.length === 0) throw new SourceFormatError(file, 0, 'lists no block');
  return listingOf(ranges, null);
}

const AZ0_HEADER = /^# (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)$/;
const AZ0_LINE = /^([0-9A-Fa-f.:]+) # ([A-Za-z0-9._-]+(?:,[A-Za-z0-9._-]+)*)$/;

/** Reads az0's `ip.txt`: the addresses, and the time its header line states as the date. */
export async function readAz0VpnIps(file: string): Promise<FeedListing> {
  const ranges: ListedRange[] = [];
  let date: string | null = null;
  for await (const { text, line } of linesOfFile(file, { maxLineLength: AZ0_MAX_LINE, maxBytes: AZ0_MAX_BYTES })) {
    const fail: Fail = (message) => {
      throw new SourceFormatError(file, line, message);
    };
    if (line === 1) {
      const header = AZ0_HEADER.exec(text);
      if (!header) fail('the first line is not "# YYYY-MM-DDTHH:MM:SSZ"');
      date = header[1];
      continue;
    }
    const row = AZ0_LINE.exec(text);
    if (!row) fail(text === '' ? 'blank line' : 'not "address # source,…"');
    ranges.push(addressRange(row[1], null, null, fail));
  }
  if (ranges.length === 0) throw new SourceFormatError(file, 0, 'lists no address');
  return listingOf(ranges, date);
}
