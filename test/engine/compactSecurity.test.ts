/**
 * The compact engine's security flags: with a security feed table it answers the Tor, VPN and
 * proxy flags exactly as the server's feed set does for the same table (one rule,
 * src/feeds/securityVerdicts.ts), null past the feeds' freshness, none for reserved addresses; the
 * table can be swapped or dropped, and what is not a security table is refused. `netlookup
 * update`'s copy beside the compact sets (src/update/compactSecurity.ts) follows the feed set in
 * force, with a gzip copy of the same bytes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIp, parseIPv4, parseIPv6 } from '../../src/address/ipAddress.js';
import { CompactEngine } from '../../src/engine/compactEngine.js';
import { defaultWasmPath } from '../../src/engine/node.js';
import { securityTableRanges, unroutableSpace, type SecurityFeedInput } from '../../src/feeds/build/feedTables.js';
import { FEED_FILES, FEEDS_FOLDER, FeedSet } from '../../src/feeds/feedSet.js';
import { writeFeedTable, type FeedKind } from '../../src/feeds/format/feedTable.js';
import { feedState } from '../feeds/feedState.js';
import { compactIpTable } from '../../src/tables/build/compactTables.js';
import { TableFormatError } from '../../src/tables/format/container.js';
import { IpTable, writeIpTable } from '../../src/tables/format/ipTable.js';
import { CURRENT_POINTER, setFolder, writePointer } from '../../src/tables/tableSets.js';
import { publishCompactSecurity } from '../../src/update/compactSecurity.js';
import { tinyIp4, tinyIp6 } from '../tables/tinyTables.js';

const v4 = (text: string) => BigInt(parseIPv4(text));
function v6(text: string): bigint {
  const words = new Uint32Array(4);
  if (!parseIPv6(text, words)) throw new Error(text);
  return words.reduce((acc, w) => (acc << 32n) | BigInt(w), 0n);
}

const NOW = Date.parse('2026-11-28T12:00:00Z');
const feed = (id: string, says: string, staleAfter: string) =>
  feedState(id, says, { name: `${id} list`, fetched_at: '2026-11-28T11:00:00.000Z', stale_after: staleAfter });

const inputs: SecurityFeedInput[] = [
  { says: 'tor', listing: { date: null, ranges: [{ family: 4, start: v4('185.220.101.1'), end: v4('185.220.101.1'), provider: null }] } },
  {
    says: 'vpn',
    listing: {
      date: null,
      ranges: [
        { family: 4, start: v4('31.171.154.0'), end: v4('31.171.154.255'), provider: 'Mullvad VPN' },
        { family: 6, start: v6('2a03:1b20::'), end: v6('2a03:1b20::ffff'), provider: 'Mullvad VPN' },
      ],
    },
  },
  { says: 'proxy', listing: { date: null, ranges: [{ family: 4, start: v4('1.0.140.31'), end: v4('1.0.140.31'), provider: null }] } },
];
// Tor and proxy lists go stale after three hours, the VPN list after a day and a half
const feeds = [
  feed('tor', 'tor', '2026-11-28T14:00:00.000Z'),
  feed('vpn', 'vpn', '2026-11-29T23:00:00.000Z'),
  feed('proxy', 'proxy', '2026-11-28T14:00:00.000Z'),
];

function tableBytes(kind: FeedKind = 'security'): Uint8Array {
  return writeFeedTable({
    meta: { feed_kind: kind, built_at: '2026-11-28T11:00:00.000Z', feeds },
    builtAt: new Date('2026-11-28T11:00:00Z'),
    ...securityTableRanges(inputs, { everywhere: unroutableSpace(), proxies: [] }),
  });
}

const ADDRESSES = [
  '185.220.101.1',
  '185.220.101.2',
  '31.171.154.50',
  '2a03:1b20::1',
  '2a03:1b20:1::1',
  '1.0.140.31',
  '8.8.8.8',
  '2001:4860::8888',
];

let engine: CompactEngine;
let folder: string;
beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-compact-security-'));
  const now = new Date('2026-01-01T00:00:00Z');
  engine = await CompactEngine.create(fs.readFileSync(defaultWasmPath()), {
    ip4: compactIpTable(new IpTable(writeIpTable(tinyIp4()), 'ip4', 4), now).bytes,
    ip6: compactIpTable(new IpTable(writeIpTable(tinyIp6()), 'ip6', 6), now).bytes,
  });
});
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

/** A tables folder whose feed set in force holds `bytes` as its security table (none: a set without one). */
function tablesWithFeedSet(name: string, bytes: Uint8Array | null): string {
  const tables = fs.mkdtempSync(path.join(folder, 'tables-'));
  const feedsDir = path.join(tables, FEEDS_FOLDER);
  fs.mkdirSync(setFolder(feedsDir, name), { recursive: true });
  if (bytes !== null) fs.writeFileSync(path.join(setFolder(feedsDir, name), FEED_FILES.security), bytes);
  writePointer(feedsDir, CURRENT_POINTER, name);
  return tables;
}

describe('the compact engine with a security table', () => {
  it('has no security key without a table', () => {
    expect(engine.lookupIp('185.220.101.1', NOW)).not.toHaveProperty('security');
  });

  it("answers each address's flags as the server's feed set does for the same table", () => {
    const bytes = tableBytes();
    engine.useSecurityTable(bytes);
    const set = FeedSet.load(tablesWithFeedSet('20261128T110000Z', bytes));
    for (const nowMs of [NOW, NOW + 3 * 3600_000, NOW + 2 * 86_400_000]) {
      for (const address of ADDRESSES) {
        expect(engine.lookupIp(address, nowMs).security, `${address} at ${nowMs}`).toEqual(set.securityOf(parseIp(address)!, nowMs));
      }
    }
    expect(engine.lookupIp('185.220.101.1', NOW).security).toEqual({
      is_tor: true,
      is_vpn: false,
      vpn_provider: null,
      is_proxy: false,
      listed_by: ['tor list'],
    });
    expect(engine.lookupIp('2a03:1b20::1', NOW).security).toMatchObject({ is_vpn: true, vpn_provider: 'Mullvad VPN' });
    // three hours on: Tor and proxy null, the VPN list still answers
    expect(engine.lookupIp('185.220.101.1', NOW + 3 * 3600_000).security).toMatchObject({ is_tor: null, is_proxy: null, is_vpn: false });
    // two days on: nothing answers
    expect(engine.lookupIp('31.171.154.50', NOW + 2 * 86_400_000).security).toEqual({
      is_tor: null,
      is_vpn: null,
      vpn_provider: null,
      is_proxy: null,
      listed_by: null,
    });
    expect(engine.securityFeeds().map((f) => f.id)).toEqual(['tor', 'vpn', 'proxy']);
  });

  it('gives no flags for a reserved address', () => {
    engine.useSecurityTable(tableBytes());
    expect(engine.lookupIp('10.0.0.1', NOW)).not.toHaveProperty('security');
  });

  it('swaps and drops its table, and refuses what is not a security table', () => {
    engine.useSecurityTable(tableBytes());
    expect(() => engine.useSecurityTable(tableBytes('rpki'), 'rpki.nlt')).toThrow(TableFormatError);
    expect(() => engine.useSecurityTable(new Uint8Array(100))).toThrow(TableFormatError);
    // a refused table leaves the one in use
    expect(engine.lookupIp('185.220.101.1', NOW).security?.is_tor).toBe(true);
    engine.useSecurityTable(null);
    expect(engine.lookupIp('185.220.101.1', NOW)).not.toHaveProperty('security');
    // an ArrayBuffer at an odd offset is copied, not viewed
    const bytes = tableBytes();
    const odd = new Uint8Array(bytes.byteLength + 3);
    odd.set(bytes, 3);
    engine.useSecurityTable(new Uint8Array(odd.buffer, 3, bytes.byteLength));
    expect(engine.lookupIp('185.220.101.1', NOW).security?.is_tor).toBe(true);
  });
});

describe("update's copy beside the compact sets", () => {
  it('copies the security table of the feed set in force with a gzip copy, and removes both when the set has none', () => {
    const compact = fs.mkdtempSync(path.join(folder, 'compact-'));
    const bytes = tableBytes();
    expect(publishCompactSecurity(tablesWithFeedSet('20261128T110000Z', bytes), compact)).toBe('copied');
    const copied = fs.readFileSync(path.join(compact, 'security.nlt'));
    expect(Buffer.compare(copied, Buffer.from(bytes))).toBe(0);
    expect(Buffer.compare(gunzipSync(fs.readFileSync(path.join(compact, 'security.nlt.gz'))), copied)).toBe(0);
    expect(publishCompactSecurity(tablesWithFeedSet('20261128T120000Z', null), compact)).toBe('removed');
    expect(fs.readdirSync(compact)).toEqual([]);
    expect(publishCompactSecurity(tablesWithFeedSet('20261128T130000Z', null), compact)).toBe('none');
  });
});
