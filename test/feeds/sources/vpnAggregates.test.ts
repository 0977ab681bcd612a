import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readAz0VpnIps, readX4bVpnList } from '../../../src/feeds/sources/vpnAggregates.js';
import { SourceFormatError } from '../../../src/tables/sources/textLines.js';
import { scratchFiles } from './feedFiles.js';

const PUBLISHERS = path.join(import.meta.dirname, '..', '..', 'fixtures', 'publishers');
const X4B_V4 = path.join(PUBLISHERS, 'raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv4.txt');
const X4B_V6 = path.join(PUBLISHERS, 'raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv6.txt');
const AZ0 = path.join(PUBLISHERS, 'az0-vpnip-public.oooninja.com/ip.txt');

const fileOf = scratchFiles('vpn-aggregates');
const lines = (...texts: string[]) => fileOf(texts.join('\n') + '\n');

function v4(text: string): bigint {
  return BigInt(text.split('.').reduce((n, part) => n * 256 + Number(part), 0));
}

async function failure(read: () => Promise<unknown>, file: string, message: RegExp, line?: number): Promise<void> {
  let error: unknown = null;
  try {
    await read();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(SourceFormatError);
  expect((error as SourceFormatError).file).toBe(file);
  expect((error as SourceFormatError).message).toMatch(message);
  if (line !== undefined) expect((error as SourceFormatError).line).toBe(line);
}

describe('readX4bVpnList', () => {
  it('lists the IPv4 blocks with no provider and no date', async () => {
    const listing = await readX4bVpnList(X4B_V4);
    expect(listing.date).toBeNull();
    expect(listing.ranges).toHaveLength(50);
    expect(listing.ranges.every((r) => r.family === 4 && r.provider === null)).toBe(true);
    expect(listing.ranges[0]).toEqual({ family: 4, start: v4('2.26.157.0'), end: v4('2.26.157.255'), provider: null }); // 2.26.157.0/24
    expect(listing.ranges).toContainEqual({ family: 4, start: v4('2.27.224.0'), end: v4('2.27.227.255'), provider: null }); // /22
    expect(listing.ranges[49]).toEqual({ family: 4, start: v4('220.158.199.176'), end: v4('220.158.199.176'), provider: null }); // /32
  });

  it('lists the IPv6 blocks', async () => {
    const listing = await readX4bVpnList(X4B_V6);
    expect(listing.ranges).toHaveLength(18);
    expect(listing.ranges.every((r) => r.family === 6)).toBe(true);
    const ac8 = 0x20010ac8n << 96n; // 2001:ac8::/32
    expect(listing.ranges).toContainEqual({ family: 6, start: ac8, end: ac8 + (1n << 96n) - 1n, provider: null });
  });

  it('reads the list gzip-compressed the same', async () => {
    const gzipped = fileOf(gzipSync(fs.readFileSync(X4B_V4)));
    expect(await readX4bVpnList(gzipped)).toEqual(await readX4bVpnList(X4B_V4));
  });

  describe('refuses, naming file and line', () => {
    it('an address without a prefix length, or not an address', async () => {
      const bare = lines('2.26.157.0/24', '2.26.164.1');
      await failure(() => readX4bVpnList(bare), bare, /"2\.26\.164\.1" is not a CIDR block/, 2);
      const text = lines('# VPN networks');
      await failure(() => readX4bVpnList(text), text, /not a CIDR block/, 1);
      const address = lines('2.26.157.0/24', '2.26.157.0.0/24');
      await failure(() => readX4bVpnList(address), address, /is not an IP address/, 2);
    });
    it('a block with host bits set or a prefix too long', async () => {
      const bits = lines('2.26.157.1/24');
      await failure(() => readX4bVpnList(bits), bits, /host bits set/, 1);
      const long = lines('2001:ac8::/129');
      await failure(() => readX4bVpnList(long), long, /longer than 128 bits/, 1);
    });
    it('a blank line, a line past the length bound, and an empty list', async () => {
      const blank = lines('2.26.157.0/24', '', '2.26.164.0/24');
      await failure(() => readX4bVpnList(blank), blank, /blank line/, 2);
      const long = lines('2.26.157.0/24', `2.26.164.0/24${' '.repeat(100)}`);
      await failure(() => readX4bVpnList(long), long, /longer than 64 characters/, 2);
      const empty = fileOf('');
      await failure(() => readX4bVpnList(empty), empty, /lists no block/);
    });
  });
});

describe('readAz0VpnIps', () => {
  it('lists the addresses with no provider, dated by the header', async () => {
    const listing = await readAz0VpnIps(AZ0);
    expect(listing.date).toBe('2025-08-31T13:25:28Z');
    expect(listing.ranges).toHaveLength(25);
    expect(listing.ranges.every((r) => r.family === 4 && r.provider === null && r.start === r.end)).toBe(true);
    const starts = listing.ranges.map((r) => r.start);
    expect(starts[0]).toBe(v4('1.2.3.4')); // as the list has it; bogons are the builder's to drop
    expect(starts).toContain(v4('3.15.150.46')); // named by fifteen domains
    expect(starts).toContain(v4('91.230.225.200')); // expressvpn
    expect(starts[24]).toBe(v4('218.232.76.179'));
  });

  it('reads IPv6 addresses too', async () => {
    const file = lines('# 2026-08-22T13:24:36Z', '2a0d:5600:24:aa::1 # nordvpn');
    const listing = await readAz0VpnIps(file);
    expect(listing.ranges).toEqual([
      {
        family: 6,
        start: (0x2a0d5600n << 96n) | (0x2400aan << 64n) | 1n,
        end: (0x2a0d5600n << 96n) | (0x2400aan << 64n) | 1n,
        provider: null,
      },
    ]);
  });

  describe('refuses, naming file and line', () => {
    it('a list without its dated header', async () => {
      const none = lines('1.2.3.4 # windscribe');
      await failure(() => readAz0VpnIps(none), none, /the first line is not "# YYYY-MM-DDTHH:MM:SSZ"/, 1);
      const other = lines('# This file was automatically generated by prepare_final_lists.py', '1.2.3.4 # windscribe');
      await failure(() => readAz0VpnIps(other), other, /the first line is not/, 1);
    });
    it('a line without its sources, or with an empty one', async () => {
      const bare = lines('# 2025-08-31T13:25:28Z', '1.2.3.4');
      await failure(() => readAz0VpnIps(bare), bare, /not "address # source,…"/, 2);
      const empty = lines('# 2025-08-31T13:25:28Z', '1.2.3.4 # windscribe,');
      await failure(() => readAz0VpnIps(empty), empty, /not "address # source,…"/, 2);
    });
    it('a bad address', async () => {
      const file = lines('# 2025-08-31T13:25:28Z', '1.2.3.4 # windscribe', '1.220.90.278 # windscribe');
      await failure(() => readAz0VpnIps(file), file, /"1\.220\.90\.278" is not an IP address/, 3);
    });
    it('a blank line, a line past the length bound, and a list with no address', async () => {
      const blank = lines('# 2025-08-31T13:25:28Z', '', '1.2.3.4 # windscribe');
      await failure(() => readAz0VpnIps(blank), blank, /blank line/, 2);
      const long = lines('# 2025-08-31T13:25:28Z', `1.2.3.4 # ${Array.from({ length: 500 }, (_, i) => `domain${i}.run`).join(',')}`);
      await failure(() => readAz0VpnIps(long), long, /longer than 4096 characters/, 2);
      const header = lines('# 2025-08-31T13:25:28Z');
      await failure(() => readAz0VpnIps(header), header, /lists no address/);
    });
  });
});
