import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FeedListing, ListedRange } from '../../../src/feeds/sources/feedListing.js';
import {
  readAirVpnStatus,
  readIvpnServers,
  readMullvadRelays,
  readNordVpnServers,
  readPiaServers,
  readPrivateRelayEgress,
  readWindscribeServers,
} from '../../../src/feeds/sources/vpnServers.js';
import { SourceFormatError } from '../../../src/tables/sources/textLines.js';
import { scratchFiles } from './feedFiles.js';

const PUBLISHERS = path.join(import.meta.dirname, '..', '..', 'fixtures', 'publishers');
const MULLVAD = path.join(PUBLISHERS, 'api.mullvad.net/www/relays/all/index.html');
const NORD_V1 = path.join(PUBLISHERS, 'api.nordvpn.com/v1/servers');
const NORD_V2 = path.join(PUBLISHERS, 'api.nordvpn.com/v2/servers');
const PIA = path.join(PUBLISHERS, 'serverlist.piaservers.net/vpninfo/servers/v6');
const IVPN = path.join(PUBLISHERS, 'api.ivpn.net/v5/servers.json');
const RELAY = path.join(PUBLISHERS, 'mask-api.icloud.com/egress-ip-ranges.csv');
const WINDSCRIBE = path.join(PUBLISHERS, 'assets.windscribe.com/serverlist/mob-v2/1/1');
const AIRVPN = path.join(PUBLISHERS, 'airvpn.org/api/status/index.html');

/** A file holding `content`, for the bad-data corpus. */
const fileOf = scratchFiles('vpn');

function v4(text: string): bigint {
  return BigInt(text.split('.').reduce((n, part) => n * 256 + Number(part), 0));
}

/** The listing's ranges as `first-last` text, IPv4 dotted, IPv6 as 32 hex digits. */
function texts(listing: FeedListing): string[] {
  return listing.ranges.map((r) => `${show(r, r.start)}-${show(r, r.end)}`);
}
function show(range: ListedRange, value: bigint): string {
  if (range.family === 6) return value.toString(16).padStart(32, '0');
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
}
/** An address as `texts` shows it (IPv6 expanded to 32 hex digits), first and last the same. */
function host(ip: string): string {
  if (!ip.includes(':')) return `${ip}-${ip}`;
  const [head, tail] = ip.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const hex = [...groups(head), ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...groups(tail)]
    .map((g) => g.padStart(4, '0'))
    .join('');
  return `${hex}-${hex}`;
}

function expectSorted(listing: FeedListing): void {
  for (let i = 1; i < listing.ranges.length; i++) {
    const [a, b] = [listing.ranges[i - 1], listing.ranges[i]];
    expect(a.family < b.family || (a.family === b.family && a.start < b.start)).toBe(true);
  }
}

/** The error `read` throws, checked to be a SourceFormatError naming the file and matching `message`. */
async function failure(read: () => unknown, file: string, message: RegExp): Promise<SourceFormatError> {
  let error: unknown = null;
  try {
    await read();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(SourceFormatError);
  const sourceError = error as SourceFormatError;
  expect(sourceError.file).toBe(file);
  expect(sourceError.message).toMatch(message);
  return sourceError;
}

/** Mullvad's al-tia-wg-001 as its list gives it, with `changes` applied. */
function mullvadRelay(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    hostname: 'al-tia-wg-001',
    country_code: 'al',
    city_code: 'tia',
    fqdn: 'al-tia-wg-001.relays.mullvad.net',
    active: true,
    owned: false,
    provider: 'iRegister',
    ipv4_addr_in: '103.124.165.2',
    ipv6_addr_in: '2a04:27c0:0:e::f001',
    type: 'wireguard',
    status_messages: [],
    ...changes,
  };
}

describe('readMullvadRelays', () => {
  it('lists the entry addresses of the active WireGuard and OpenVPN relays, both families', () => {
    const listing = readMullvadRelays(MULLVAD);
    expect(listing.date).toBeNull();
    expect(listing.ranges).toHaveLength(12);
    expect(listing.ranges.filter((r) => r.family === 4)).toHaveLength(6);
    expect(new Set(listing.ranges.map((r) => r.provider))).toEqual(new Set(['Mullvad VPN']));
    expectSorted(listing);
    const all = texts(listing);
    expect(all).toContain(host('103.124.165.2'));
    expect(all).toContain(host('31.171.154.50')); // al-tia-ovpn-001
    expect(all).toContain(host('2a04:27c0:0:e::f001'));
    expect(all).toContain(host('2a02:6ea0:f002:1::f001'));
    expect(host('2a04:27c0:0:e::f001')).toBe('2a0427c00000000e000000000000f001-2a0427c00000000e000000000000f001');
    expect(listing.ranges[0]).toEqual({ family: 4, start: v4('31.171.154.50'), end: v4('31.171.154.50'), provider: 'Mullvad VPN' });
  });

  it('leaves out bridges (no traffic leaves from them) and inactive relays', () => {
    const all = texts(readMullvadRelays(MULLVAD));
    expect(all).not.toContain(host('37.120.218.170')); // be-bru-br-001
    expect(all).not.toContain(host('37.120.218.171')); // its ipv4_v2ray
    expect(all).not.toContain(host('146.70.116.98')); // at-vie-wg-001, inactive
  });

  it('takes a null, empty or missing ipv6_addr_in as no IPv6', () => {
    const file = fileOf(
      JSON.stringify([
        mullvadRelay({ ipv6_addr_in: null }),
        mullvadRelay({ hostname: 'b', ipv4_addr_in: '103.124.165.3', ipv6_addr_in: '' }),
        mullvadRelay({ hostname: 'c', ipv4_addr_in: '103.124.165.4', ipv6_addr_in: undefined }),
      ]),
    );
    expect(texts(readMullvadRelays(file))).toEqual([host('103.124.165.2'), host('103.124.165.3'), host('103.124.165.4')]);
  });

  describe('refuses', () => {
    it('truncated JSON', async () => {
      const text = fs.readFileSync(MULLVAD, 'utf8');
      const file = fileOf(text.slice(0, Math.floor(text.length / 2)));
      await failure(() => readMullvadRelays(file), file, /not JSON/);
    });
    it('a document that is not an array, and an empty list', async () => {
      const object = fileOf('{"relays":[]}');
      await failure(() => readMullvadRelays(object), object, /not a JSON array/);
      const empty = fileOf('[]');
      await failure(() => readMullvadRelays(empty), empty, /lists no relay/);
    });
    it('a field of the wrong type, naming the relay', async () => {
      const file = fileOf(JSON.stringify([mullvadRelay(), mullvadRelay({ hostname: 'al-tia-wg-002', active: 'yes' })]));
      await failure(() => readMullvadRelays(file), file, /relay 2 \("al-tia-wg-002"\): "active" is not true or false/);
      const missing = fileOf(JSON.stringify([mullvadRelay({ ipv4_addr_in: undefined })]));
      await failure(() => readMullvadRelays(missing), missing, /"ipv4_addr_in" is missing/);
      const number = fileOf(JSON.stringify([mullvadRelay({ ipv6_addr_in: 6 })]));
      await failure(() => readMullvadRelays(number), number, /"ipv6_addr_in" is not a string or null/);
    });
    it('a bad address, even on a relay that is not listed', async () => {
      const bad = fileOf(JSON.stringify([mullvadRelay({ ipv4_addr_in: '103.124.165.256' })]));
      await failure(() => readMullvadRelays(bad), bad, /"103\.124\.165\.256" is not an IPv4 address/);
      const swapped = fileOf(JSON.stringify([mullvadRelay({ ipv4_addr_in: '2a04:27c0:0:e::f001' })]));
      await failure(() => readMullvadRelays(swapped), swapped, /is not an IPv4 address/);
      const inactive = fileOf(JSON.stringify([mullvadRelay(), mullvadRelay({ active: false, ipv6_addr_in: '2a04::g' })]));
      await failure(() => readMullvadRelays(inactive), inactive, /"2a04::g" is not an IPv6 address/);
      const mapped = fileOf(JSON.stringify([mullvadRelay({ ipv6_addr_in: '::ffff:103.124.165.2' })]));
      await failure(() => readMullvadRelays(mapped), mapped, /is not an IPv6 address/);
    });
    it('a relay type it does not know', async () => {
      const file = fileOf(JSON.stringify([mullvadRelay({ type: 'quic' })]));
      await failure(() => readMullvadRelays(file), file, /unknown relay type "quic"/);
    });
    it('a list with no active relay', async () => {
      const file = fileOf(JSON.stringify([mullvadRelay({ active: false }), mullvadRelay({ type: 'bridge', ipv6_addr_in: null })]));
      await failure(() => readMullvadRelays(file), file, /lists no active relay/);
    });
    it('JSON nested past the bound, and bytes that are not UTF-8', async () => {
      const deep = fileOf('['.repeat(40) + ']'.repeat(40));
      await failure(() => readMullvadRelays(deep), deep, /nested deeper than 32/);
      const binary = fileOf(Buffer.from([0x5b, 0xff, 0xfe, 0x5d]));
      await failure(() => readMullvadRelays(binary), binary, /not UTF-8/);
    });
    it('a file past the size bound', async () => {
      const file = fileOf(Buffer.alloc(16 * 1024 * 1024 + 1, 0x20));
      await failure(() => readMullvadRelays(file), file, /more than the bound of 16777216/);
    });
  });
});

/** A NordVPN v1 server with the fields the reader looks at, with `changes` applied. */
function nordServer(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 930488,
    name: 'United States #5063',
    station: '185.245.87.59',
    ipv6_station: '',
    hostname: 'us5063.nordvpn.com',
    status: 'online',
    ips: [{ type: 'entry', ip: { id: 1, ip: '185.245.87.59', version: 4 } }],
    ...changes,
  };
}

describe('readNordVpnServers', () => {
  it('lists the station of each online server of the v1 list, once however often it is named', () => {
    const listing = readNordVpnServers(NORD_V1);
    expect(texts(listing)).toEqual([host('37.120.199.243'), host('149.50.213.43'), host('185.245.87.59')]);
    expect(listing.ranges.every((r) => r.provider === 'NordVPN')).toBe(true);
    expect(listing.date).toBeNull();
  });

  it('reads the v2 list, whose servers sit under "servers"', () => {
    expect(texts(readNordVpnServers(NORD_V2))).toEqual([host('185.245.87.59')]);
  });

  it('adds IPv6 stations and every "ips" address, and leaves out servers not online', () => {
    const file = fileOf(
      JSON.stringify([
        nordServer({ ipv6_station: '2a0d:5600:24:aa::1' }),
        nordServer({
          hostname: 'de1.nordvpn.com',
          station: '',
          ips: [
            { type: 'entry', ip: { ip: '5.253.207.203', version: 4 } },
            { type: 'entry', ip: { ip: '2a0d:5600:24:aa::2', version: 6 } },
          ],
        }),
        nordServer({ hostname: 'es1.nordvpn.com', station: '37.120.199.1', ips: [], status: 'offline' }),
        nordServer({ hostname: 'es2.nordvpn.com', station: '37.120.199.2', ips: [], status: 'maintenance' }),
      ]),
    );
    expect(texts(readNordVpnServers(file))).toEqual([
      host('5.253.207.203'),
      host('185.245.87.59'),
      host('2a0d:5600:24:aa::1'),
      host('2a0d:5600:24:aa::2'),
    ]);
  });

  describe('refuses', () => {
    it('truncated JSON', async () => {
      const text = fs.readFileSync(NORD_V1, 'utf8');
      const file = fileOf(text.slice(0, text.length - 10));
      await failure(() => readNordVpnServers(file), file, /not JSON/);
    });
    it('a document of another shape, and an empty list', async () => {
      const other = fileOf('{"data":[]}');
      await failure(() => readNordVpnServers(other), other, /not a NordVPN server list/);
      const empty = fileOf('{"servers":[]}');
      await failure(() => readNordVpnServers(empty), empty, /lists no server/);
    });
    it('a field of the wrong type', async () => {
      const file = fileOf(JSON.stringify([nordServer({ station: 3114342203 })]));
      await failure(() => readNordVpnServers(file), file, /server 1 \("us5063\.nordvpn\.com"\): "station" is not a string/);
      const ips = fileOf(JSON.stringify([nordServer({ ips: { ip: '1.2.3.4' } })]));
      await failure(() => readNordVpnServers(ips), ips, /"ips" is not a list/);
    });
    it('a bad address, and an address of the other family than its version says', async () => {
      const bad = fileOf(JSON.stringify([nordServer({ station: '185.245.87' })]));
      await failure(() => readNordVpnServers(bad), bad, /"185\.245\.87" is not an IPv4 address/);
      const version = fileOf(JSON.stringify([nordServer({ ips: [{ type: 'entry', ip: { ip: '185.245.87.59', version: 6 } }] })]));
      await failure(() => readNordVpnServers(version), version, /"185\.245\.87\.59" is not an IPv6 address/);
      const unknown = fileOf(JSON.stringify([nordServer({ ips: [{ type: 'entry', ip: { ip: '185.245.87.59', version: 5 } }] })]));
      await failure(() => readNordVpnServers(unknown), unknown, /version 5 is not 4 or 6/);
    });
    it('an online server with no address, and a list with no server online', async () => {
      const bare = fileOf(JSON.stringify([nordServer({ station: '', ips: [] })]));
      await failure(() => readNordVpnServers(bare), bare, /an online server with no address/);
      const offline = fileOf(JSON.stringify([nordServer({ status: 'offline' })]));
      await failure(() => readNordVpnServers(offline), offline, /lists no server online/);
    });
  });
});

/** PIA's list: one line of JSON, a blank line, a signature. */
function piaList(regions: unknown[], tail = '\n\nT2sgdGhpcyBpcyBub3QgYSBzaWduYXR1cmU='): string {
  return JSON.stringify({ groups: {}, regions }) + tail;
}
function piaRegion(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'al',
    name: 'Albania',
    country: 'AL',
    auto_region: true,
    dns: 'al.privacy.network',
    port_forward: true,
    geo: false,
    offline: false,
    servers: { wg: [{ ip: '31.171.154.139', cn: 'tirana401' }], meta: [{ ip: '31.171.154.130', cn: 'tirana401' }] },
    ...changes,
  };
}

describe('readPiaServers', () => {
  it('lists every address of every group of the regions online, once each', () => {
    const listing = readPiaServers(PIA);
    expect(listing.ranges).toHaveLength(31); // Albania 18 distinct, Andorra 13
    expect(listing.ranges.every((r) => r.family === 4 && r.provider === 'Private Internet Access')).toBe(true);
    expectSorted(listing);
    const all = texts(listing);
    for (const ip of ['31.171.154.137', '31.171.154.139', '31.171.154.50', '188.241.82.7', '188.241.82.2']) expect(all).toContain(host(ip));
  });

  it('leaves out a region marked offline', () => {
    const all = texts(readPiaServers(PIA));
    for (const ip of ['156.146.60.25', '156.146.60.86', '156.146.60.137', '89.187.168.1']) expect(all).not.toContain(host(ip));
  });

  it('reads the JSON with or without the signature, pretty-printed or on one line', () => {
    const expected = [host('31.171.154.130'), host('31.171.154.139')];
    expect(texts(readPiaServers(fileOf(piaList([piaRegion()]))))).toEqual(expected);
    expect(texts(readPiaServers(fileOf(piaList([piaRegion()], '\n'))))).toEqual(expected);
    expect(texts(readPiaServers(fileOf(JSON.stringify({ regions: [piaRegion()] }, null, 2))))).toEqual(expected);
  });

  describe('refuses', () => {
    it('truncated JSON', async () => {
      const text = fs.readFileSync(PIA, 'utf8');
      const file = fileOf(text.slice(0, 2000));
      await failure(() => readPiaServers(file), file, /not JSON/);
    });
    it('something else than a blank line and base64 after the JSON', async () => {
      const noBlank = fileOf(piaList([piaRegion()], '\nT2sgdGhpcyBpcyBub3Q='));
      await failure(() => readPiaServers(noBlank), noBlank, /not JSON/);
      const html = fileOf(piaList([piaRegion()], '\n\n<html>error</html>'));
      await failure(() => readPiaServers(html), html, /what follows the blank line is not a base64 signature/);
    });
    it('no regions, an empty list, and a list with every region offline', async () => {
      const none = fileOf('{"groups":{}}');
      await failure(() => readPiaServers(none), none, /no "regions" list/);
      const empty = fileOf(piaList([]));
      await failure(() => readPiaServers(empty), empty, /lists no region/);
      const offline = fileOf(piaList([piaRegion({ offline: true })]));
      await failure(() => readPiaServers(offline), offline, /lists no server in a region online/);
    });
    it('a field of the wrong type, naming the region', async () => {
      const flag = fileOf(piaList([piaRegion({ offline: 'no' })]));
      await failure(() => readPiaServers(flag), flag, /region 1 \("al"\): "offline" is not true or false/);
      const country = fileOf(piaList([piaRegion({ country: 'ALB' })]));
      await failure(() => readPiaServers(country), country, /"country" is longer than 2 characters/);
      const group = fileOf(piaList([piaRegion({ servers: { wg: { ip: '31.171.154.139' } } })]));
      await failure(() => readPiaServers(group), group, /"wg" is not a list/);
      const cn = fileOf(piaList([piaRegion({ servers: { wg: [{ ip: '31.171.154.139' }] } })]));
      await failure(() => readPiaServers(cn), cn, /"cn" is missing/);
    });
    it('a bad address', async () => {
      const file = fileOf(piaList([piaRegion({ servers: { wg: [{ ip: '31.171.154', cn: 'tirana401' }] } })]));
      await failure(() => readPiaServers(file), file, /"31\.171\.154" is not an IP address/);
    });
  });
});

/** An IVPN list of one WireGuard and one OpenVPN location, with `host` changes. */
function ivpnList(wgHost: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): string {
  const location = (gateway: string, hostname: string, address: string, changes: Record<string, unknown>) => ({
    gateway,
    country_code: 'AR',
    country: 'Argentina',
    city: 'Buenos Aires',
    hosts: [{ hostname, dns_name: 'ar1.gw.ivpn.net', host: address, v2ray: '149.22.83.102', ipv6: {}, ...changes }],
  });
  return JSON.stringify({
    wireguard: [location('ar.wg.ivpn.net', 'ar1.wg.ivpn.net', '149.22.83.100', wgHost)],
    openvpn: [location('ar.gw.ivpn.net', 'ar1.gw.ivpn.net', '149.22.83.97', {})],
    config: {},
    ...extra,
  });
}

describe('readIvpnServers', () => {
  it('lists the host address of every WireGuard and OpenVPN server', () => {
    const listing = readIvpnServers(IVPN);
    expect(texts(listing)).toEqual(
      [
        '46.102.153.242',
        '46.102.153.246',
        '146.70.78.74',
        '146.70.78.75',
        '149.22.83.97',
        '149.22.83.100',
        '185.244.212.66',
        '185.244.212.69',
      ].map(host),
    );
    expect(listing.ranges.every((r) => r.provider === 'IVPN')).toBe(true);
    expect(listing.date).toBeNull();
  });

  it('leaves out the V2Ray ingress addresses, the tunnel-inside IPv6 and the API servers', () => {
    const all = texts(readIvpnServers(IVPN));
    expect(all).not.toContain(host('149.22.83.102')); // ar1's v2ray
    expect(all).not.toContain(host('198.50.177.220')); // config.api.ips
    expect(listingFamilies(readIvpnServers(IVPN))).toEqual([4]);
  });

  describe('refuses', () => {
    it('truncated JSON', async () => {
      const text = fs.readFileSync(IVPN, 'utf8');
      const file = fileOf(text.slice(0, 3000));
      await failure(() => readIvpnServers(file), file, /not JSON/);
    });
    it('a list without one of its protocols, and an empty list', async () => {
      const missing = fileOf(JSON.stringify({ wireguard: [] }));
      await failure(() => readIvpnServers(missing), missing, /"openvpn" is missing/);
      const empty = fileOf(JSON.stringify({ wireguard: [], openvpn: [], config: {} }));
      await failure(() => readIvpnServers(empty), empty, /lists no server/);
      const array = fileOf('[]');
      await failure(() => readIvpnServers(array), array, /not a JSON object/);
    });
    it('a field of the wrong type, naming the location', async () => {
      const host = fileOf(ivpnList({ host: ['149.22.83.100'] }));
      await failure(() => readIvpnServers(host), host, /wireguard location 1 \("ar\.wg\.ivpn\.net"\): "host" is not a string/);
      const ipv6 = fileOf(ivpnList({ ipv6: 'fd00:4956:504e:ffff::/96' }));
      await failure(() => readIvpnServers(ipv6), ipv6, /"ipv6" is not an object/);
      const country = fileOf(ivpnList({}, { openvpn: [{ gateway: 'ar.gw.ivpn.net', country_code: 'ar', hosts: [] }] }));
      await failure(() => readIvpnServers(country), country, /openvpn location 1 .*"country_code" is not a two-letter code/);
    });
    it('a bad address, the unlisted v2ray one too', async () => {
      const bad = fileOf(ivpnList({ host: '149.22.83.1000' }));
      await failure(() => readIvpnServers(bad), bad, /"149\.22\.83\.1000" is not an IPv4 address/);
      const v2ray = fileOf(ivpnList({ v2ray: 'ar1.v2ray.ivpn.net' }));
      await failure(() => readIvpnServers(v2ray), v2ray, /"ar1\.v2ray\.ivpn\.net" is not an IPv4 address/);
    });
  });
});

/** A Windscribe list of one location, one group, and the given nodes (us-central-122 when none given). */
function windscribeList(nodes: unknown[] = [windscribeNode()], group: Record<string, unknown> = {}): string {
  return JSON.stringify({
    data: [
      { id: 65, name: 'US Central', country_code: 'US', groups: [{ id: 156, city: 'Atlanta', ping_ip: '23.94.95.2', nodes, ...group }] },
    ],
    info: { revision: 75208 },
  });
}
function windscribeNode(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ip: '104.223.110.194',
    ip2: '104.223.110.195',
    ip3: '104.223.110.196',
    hostname: 'us-central-122.whiskergalaxy.com',
    weight: 1,
    health: 31,
    ...changes,
  };
}

describe('readWindscribeServers', () => {
  it('lists ip, ip2 and ip3 of every node, leaving out groups without nodes and locations without groups', () => {
    const listing = readWindscribeServers(WINDSCRIBE);
    expect(listing.ranges).toHaveLength(36); // 12 nodes in service, three addresses each
    expect(listing.ranges.every((r) => r.family === 4 && r.provider === 'Windscribe')).toBe(true);
    expect(listing.date).toBeNull();
    expectSorted(listing);
    const all = texts(listing);
    for (const ip of ['104.223.110.194', '104.223.110.195', '104.223.110.196', '23.94.95.10', '107.175.115.1', '104.223.102.4'])
      expect(all).toContain(host(ip));
  });

  it('leaves out a node marked force_disconnect, and does not read ping_ip', () => {
    const all = texts(readWindscribeServers(WINDSCRIBE));
    for (const ip of ['107.172.92.30', '23.94.49.129', '23.94.49.130']) expect(all).not.toContain(host(ip)); // us-central-093
    expect(all).not.toContain(host('84.20.18.33')); // ping_ip of a group without nodes
  });

  it('takes an empty, null or missing ip3 as no third address', () => {
    const file = fileOf(
      windscribeList([
        windscribeNode({ ip3: '' }),
        windscribeNode({ hostname: 'b', ip: '23.94.95.10', ip2: '107.175.115.1', ip3: null }),
        windscribeNode({ hostname: 'c', ip: '104.223.111.194', ip2: '104.223.111.195', ip3: undefined, force_disconnect: 0 }),
      ]),
    );
    expect(texts(readWindscribeServers(file))).toEqual(
      ['23.94.95.10', '104.223.110.194', '104.223.110.195', '104.223.111.194', '104.223.111.195', '107.175.115.1'].map(host),
    );
  });

  describe('refuses', () => {
    it('truncated JSON', async () => {
      const text = fs.readFileSync(WINDSCRIBE, 'utf8');
      const file = fileOf(text.slice(0, 3000));
      await failure(() => readWindscribeServers(file), file, /not JSON/);
    });
    it('an error answer, a document of another shape, and an empty list', async () => {
      const error = fileOf('{"errorCode":701,"errorMessage":"Submitted session is invalid"}');
      await failure(() => readWindscribeServers(error), error, /not a Windscribe server list: no "data" list/);
      const array = fileOf('[]');
      await failure(() => readWindscribeServers(array), array, /no "data" list/);
      const empty = fileOf('{"data":[],"info":{}}');
      await failure(() => readWindscribeServers(empty), empty, /lists no location/);
    });
    it('a field of the wrong type, naming location, group and node', async () => {
      const ip2 = fileOf(
        windscribeList([windscribeNode(), windscribeNode({ hostname: 'us-central-101.whiskergalaxy.com', ip2: 1802334977 })]),
      );
      await failure(
        () => readWindscribeServers(ip2),
        ip2,
        /location 1 \("US Central"\): group 1 \("Atlanta"\): node 2 \("us-central-101\.whiskergalaxy\.com"\): "ip2" is not a string/,
      );
      const missing = fileOf(windscribeList([windscribeNode({ ip: undefined })]));
      await failure(() => readWindscribeServers(missing), missing, /"ip" is missing/);
      const nodes = fileOf(windscribeList([], { nodes: { ip: '104.223.110.194' } }));
      await failure(() => readWindscribeServers(nodes), nodes, /group 1 \("Atlanta"\): "nodes" is not a list/);
      const groups = fileOf(JSON.stringify({ data: [{ name: 'US Central', groups: 'Atlanta' }] }));
      await failure(() => readWindscribeServers(groups), groups, /location 1 \("US Central"\): "groups" is not a list/);
      const leaving = fileOf(windscribeList([windscribeNode({ force_disconnect: true })]));
      await failure(() => readWindscribeServers(leaving), leaving, /"force_disconnect" is not 0 or 1/);
      const node = fileOf(windscribeList(['us-central-122.whiskergalaxy.com']));
      await failure(() => readWindscribeServers(node), node, /node 1: node is not an object/);
    });
    it('a bad address, even on a node taken out of service, and an IPv6 address', async () => {
      const bad = fileOf(windscribeList([windscribeNode({ ip3: '104.223.110.256' })]));
      await failure(() => readWindscribeServers(bad), bad, /"104\.223\.110\.256" is not an IPv4 address/);
      const leaving = fileOf(windscribeList([windscribeNode(), windscribeNode({ force_disconnect: 1, ip: 'us-central-093' })]));
      await failure(() => readWindscribeServers(leaving), leaving, /"us-central-093" is not an IPv4 address/);
      const v6 = fileOf(windscribeList([windscribeNode({ ip2: '2606:4700::1' })]));
      await failure(() => readWindscribeServers(v6), v6, /"2606:4700::1" is not an IPv4 address/);
    });
    it('a list with no node in service', async () => {
      const file = fileOf(windscribeList([windscribeNode({ force_disconnect: 1 })]));
      await failure(() => readWindscribeServers(file), file, /lists no node in service/);
      const bare = fileOf(JSON.stringify({ data: [{ name: 'United Kingdom' }] }));
      await failure(() => readWindscribeServers(bare), bare, /lists no node in service/);
    });
    it('JSON nested past the bound, and a file past the size bound', async () => {
      const deep = fileOf('{"data":' + '['.repeat(40) + ']'.repeat(40) + '}');
      await failure(() => readWindscribeServers(deep), deep, /nested deeper than 32/);
      const big = fileOf(Buffer.alloc(16 * 1024 * 1024 + 1, 0x20));
      await failure(() => readWindscribeServers(big), big, /more than the bound of 16777216/);
    });
  });
});

/** AirVPN's Adhara as its status gives it, with `changes` applied. */
function airVpnServer(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    public_name: 'Adhara',
    country_name: 'Germany',
    country_code: 'de',
    location: 'Frankfurt',
    continent: 'Europe',
    bw: 1858,
    bw_max: 2000,
    users: 138,
    currentload: 92,
    ip_v4_in1: '185.104.184.42',
    ip_v4_in2: '185.104.184.44',
    ip_v4_in3: '185.104.184.45',
    ip_v4_in4: '185.104.184.46',
    ip_v6_in1: '2001:ac8:20:5:6000:4b07:7b1c:4c0',
    ip_v6_in2: '2001:ac8:20:5:63b4:36fb:5204:b248',
    ip_v6_in3: '2001:ac8:20:5:623e:50fc:8023:a65',
    ip_v6_in4: '2001:ac8:20:5:68b8:f9de:d736:eb9b',
    health: 'ok',
    ...changes,
  };
}
const airVpnStatus = (...servers: unknown[]) => fileOf(JSON.stringify({ result: 'ok', servers }));

describe('readAirVpnStatus', () => {
  it('lists the four IPv4 and four IPv6 entry addresses of every server in service', () => {
    const listing = readAirVpnStatus(AIRVPN);
    expect(listing.ranges).toHaveLength(40); // five servers, eight addresses each
    expect(listing.ranges.filter((r) => r.family === 6)).toHaveLength(20);
    expect(listing.ranges.every((r) => r.provider === 'AirVPN')).toBe(true);
    expect(listing.date).toBeNull();
    expectSorted(listing);
    const all = texts(listing);
    for (const ip of ['185.104.184.42', '185.104.184.46', '37.46.199.66', '184.75.223.214', '2001:ac8:20:5:6000:4b07:7b1c:4c0'])
      expect(all).toContain(host(ip));
  });

  it('leaves out a server closed to new connections (health "error"), and keeps a busy one ("warning")', () => {
    const all = texts(readAirVpnStatus(AIRVPN));
    expect(all).not.toContain(host('213.152.161.228')); // Andromeda
    expect(all).not.toContain(host('2a00:1678:2470:46:bace:c512:7a73:fdc8'));
    const busy = airVpnStatus(
      airVpnServer({ health: 'warning' }),
      airVpnServer({ public_name: 'Andromeda', health: 'error', ip_v4_in1: '213.152.161.228' }),
    );
    expect(readAirVpnStatus(busy).ranges).toHaveLength(8);
  });

  it('takes an empty, null or missing address as none, and reads a status without "result"', () => {
    const file = fileOf(
      JSON.stringify({
        servers: [airVpnServer({ ip_v4_in2: '', ip_v4_in3: null, ip_v4_in4: undefined, ip_v6_in2: '', ip_v6_in3: '', ip_v6_in4: '' })],
      }),
    );
    expect(texts(readAirVpnStatus(file))).toEqual([host('185.104.184.42'), host('2001:ac8:20:5:6000:4b07:7b1c:4c0')]);
  });

  describe('refuses', () => {
    it('truncated JSON', async () => {
      const text = fs.readFileSync(AIRVPN, 'utf8');
      const file = fileOf(text.slice(0, 2000));
      await failure(() => readAirVpnStatus(file), file, /not JSON/);
    });
    it('a failed answer, a document of another shape, and an empty list', async () => {
      const failed = fileOf('{"result":"fail","message":"Not authorized.","servers":[]}');
      await failure(() => readAirVpnStatus(failed), failed, /the status answers "fail", not "ok"/);
      const other = fileOf('{"result":"ok","countries":[]}');
      await failure(() => readAirVpnStatus(other), other, /not an AirVPN status: no "servers" list/);
      const empty = airVpnStatus();
      await failure(() => readAirVpnStatus(empty), empty, /lists no server/);
    });
    it('a field of the wrong type, naming the server', async () => {
      const name = airVpnStatus(airVpnServer(), airVpnServer({ public_name: 'Adhil', ip_v4_in1: ['37.46.199.66'] }));
      await failure(() => readAirVpnStatus(name), name, /server 2 \("Adhil"\): "ip_v4_in1" is not a string or null/);
      const missing = airVpnStatus(airVpnServer({ health: undefined }));
      await failure(() => readAirVpnStatus(missing), missing, /"health" is missing/);
      const country = airVpnStatus(airVpnServer({ country_code: 'DE' }));
      await failure(() => readAirVpnStatus(country), country, /"country_code" is not a two-letter code/);
      const server = airVpnStatus('Adhara');
      await failure(() => readAirVpnStatus(server), server, /server 1: server is not an object/);
    });
    it('a health value it does not know', async () => {
      const file = airVpnStatus(airVpnServer({ health: 'maintenance' }));
      await failure(() => readAirVpnStatus(file), file, /unknown health "maintenance"/);
    });
    it('a bad address, of the other family, or on a closed server', async () => {
      const bad = airVpnStatus(airVpnServer({ ip_v4_in3: '185.104.184' }));
      await failure(() => readAirVpnStatus(bad), bad, /"185\.104\.184" is not an IPv4 address/);
      const swapped = airVpnStatus(airVpnServer({ ip_v6_in1: '185.104.184.42' }));
      await failure(() => readAirVpnStatus(swapped), swapped, /"185\.104\.184\.42" is not an IPv6 address/);
      const closed = airVpnStatus(airVpnServer(), airVpnServer({ health: 'error', ip_v6_in4: '2001:ac8:20:5::g' }));
      await failure(() => readAirVpnStatus(closed), closed, /"2001:ac8:20:5::g" is not an IPv6 address/);
    });
    it('a server in service with no address, and a status with no server in service', async () => {
      const none = Object.fromEntries(
        [1, 2, 3, 4].flatMap((n) => [
          [`ip_v4_in${n}`, ''],
          [`ip_v6_in${n}`, ''],
        ]),
      );
      const bare = airVpnStatus(airVpnServer(none));
      await failure(() => readAirVpnStatus(bare), bare, /a server in service with no address/);
      const closed = airVpnStatus(airVpnServer({ health: 'error' }));
      await failure(() => readAirVpnStatus(closed), closed, /lists no server in service/);
    });
    it('JSON nested past the bound, bytes that are not UTF-8, and a file past the size bound', async () => {
      const deep = fileOf('{"servers":' + '['.repeat(40) + ']'.repeat(40) + '}');
      await failure(() => readAirVpnStatus(deep), deep, /nested deeper than 32/);
      const binary = fileOf(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
      await failure(() => readAirVpnStatus(binary), binary, /not UTF-8/);
      const big = fileOf(Buffer.alloc(16 * 1024 * 1024 + 1, 0x20));
      await failure(() => readAirVpnStatus(big), big, /more than the bound of 16777216/);
    });
  });
});

function listingFamilies(listing: FeedListing): number[] {
  return [...new Set(listing.ranges.map((r) => r.family))];
}

describe('readPrivateRelayEgress', () => {
  it('lists every prefix of both families as iCloud Private Relay', async () => {
    const listing = await readPrivateRelayEgress(RELAY);
    expect(listing.ranges).toHaveLength(27);
    expect(listing.ranges.filter((r) => r.family === 6)).toHaveLength(1);
    expect(listing.ranges.every((r) => r.provider === 'iCloud Private Relay')).toBe(true);
    expect(listing.date).toBeNull();
    expectSorted(listing);
    const all = texts(listing);
    expect(all).toContain('172.224.226.0-172.224.226.31'); // 172.224.226.0/27, London
    expect(all).toContain('172.224.226.58-172.224.226.59'); // /31, Egg Buckland
    expect(all).toContain('104.28.30.0-104.28.30.63'); // /26 with an empty city
    expect(all).toContain('2a0226f7b00040000000000000000000-2a0226f7b0004000ffffffffffffffff'); // /64
  });

  describe('refuses, naming file and line', () => {
    const csv = (...lines: string[]) => fileOf(lines.join('\n') + '\n');
    const good = '172.224.226.0/27,GB,GB-EN,London,';

    it('a line without the five fields', async () => {
      const file = csv(good, '172.224.226.32/31,GB,GB-SC,Aberdeen');
      const error = await failure(() => readPrivateRelayEgress(file), file, /4 fields, not the 5/);
      expect(error.line).toBe(2);
    });
    it('a prefix with host bits set, too long, or not an address', async () => {
      const bits = csv('172.224.226.1/27,GB,GB-EN,London,');
      expect((await failure(() => readPrivateRelayEgress(bits), bits, /host bits set/)).line).toBe(1);
      const long = csv('172.224.226.0/33,GB,GB-EN,London,');
      await failure(() => readPrivateRelayEgress(long), long, /longer than 32 bits/);
      const text = csv('London,GB,GB-EN,London,');
      await failure(() => readPrivateRelayEgress(text), text, /not a CIDR block/);
      const address = csv('172.224.226.300/27,GB,GB-EN,London,');
      await failure(() => readPrivateRelayEgress(address), address, /is not an IP address/);
    });
    it('a country or region not in ISO form, and a quoted field', async () => {
      const country = csv(good, '172.224.226.32/31,GBR,GB-SC,Aberdeen,');
      await failure(() => readPrivateRelayEgress(country), country, /"GBR" is not a two-letter country code/);
      const region = csv('172.224.226.32/31,GB,Scotland,Aberdeen,');
      await failure(() => readPrivateRelayEgress(region), region, /"Scotland" is not an ISO 3166-2 region code/);
      const quoted = csv('172.224.226.32/31,GB,GB-SC,"Aberdeen, City of",');
      await failure(() => readPrivateRelayEgress(quoted), quoted, /a quoted field/);
    });
    it('a blank line, a line past the length bound, and an empty file', async () => {
      const blank = csv(good, '', good);
      expect((await failure(() => readPrivateRelayEgress(blank), blank, /blank line/)).line).toBe(2);
      const long = csv(good, `172.224.226.32/31,GB,GB-SC,${'A'.repeat(2000)},`);
      expect((await failure(() => readPrivateRelayEgress(long), long, /longer than 1024 characters/)).line).toBe(2);
      const empty = fileOf('');
      await failure(() => readPrivateRelayEgress(empty), empty, /lists no range/);
    });
  });
});
