/**
 * Readers of the server lists VPN providers publish about themselves, and of Apple's list of iCloud
 * Private Relay egress ranges. Each returns the addresses as one-address ranges (a prefix for
 * Apple's list) named after the provider's brand; the feed builder merges them.
 *
 * What the lists give is the address a client connects to (the entry address). None of them has a
 * field for the exit address (the one websites see). For Mullvad the exit is known to differ, and
 * AirVPN's own client keeps a server's exits apart from its entries; for NordVPN, PIA, IVPN and
 * Windscribe the lists' users (third-party VPN lists) take the entry as the exit too, which the
 * providers do not state and which was not verified here:
 *
 * - Mullvad VPN, `https://api.mullvad.net/www/relays/all/`: a JSON array of relays (`hostname`,
 *   `country_code`, `city_code`, `fqdn`, `active`, `owned`, `provider`, `ipv4_addr_in`,
 *   `ipv6_addr_in` (null for bridges), `type`: `wireguard`, `openvpn` or `bridge`,
 *   `status_messages`, and per type `pubkey`, `multihop_port`, `socks_name`, `daita` or
 *   `ipv4_v2ray`, `ssh_fingerprint_*`). `ipv4_addr_in` is the entry: websites see "a similar IP
 *   address, except with a different last number" (the field's description in a client's typings
 *   of this API; a discussion in X4BNet/lists_vpn's tracker says the same), and Mullvad's app dropped the
 *   `ipv4_addr_exit` field of the older relay list in 2018 (a mullvadvpn-app change). So the listing
 *   holds the relays' entry addresses, not the exits beside them (the builder may widen). Read:
 *   relays that are `active` and not bridges. A bridge is a Shadowsocks/V2Ray front door that
 *   hands the tunnel on to a relay, so no user traffic leaves from it; an inactive relay is out of
 *   service ("you should not let the user use that server") and may be on its way back to the
 *   hosting company it is rented from (`owned: false`).
 * - NordVPN, `https://api.nordvpn.com/v1/servers?limit=0` (without `limit` the API answers with
 *   100 servers; 0 means all, about 9,500 servers and 30 MB): a JSON array of servers (`id`,
 *   `name`, `station` (the IPv4 entry), `ipv6_station` ("" on nearly all), `hostname`, `status`,
 *   `locations`, `technologies`, `groups`, `ips`: `[{type: "entry", ip: {ip, version}}]`, …). The
 *   v2 API (`/v2/servers?limit=0`, `{servers: [...], locations, technologies, …}`, a third of the
 *   size) carries the same server fields and is read too. Read: servers whose `status` is
 *   `online`, each with its `station`, `ipv6_station` (or `station_ipv6`) and every `ips` entry
 *   (all of type `entry` in the samples seen; the station is among them).
 * - Private Internet Access, `https://serverlist.piaservers.net/vpninfo/servers/v6` (`v7` is the
 *   same form): one line of JSON `{groups, regions: [...]}`, a blank line, and a base64 signature
 *   of the JSON (PIA's client: "a GPG signature appended to the end after a double newline"; the
 *   signature is not checked here). A region has `id`, `name`, `country`, `offline` and `servers`:
 *   per protocol group (`ovpnudp`, `ovpntcp`, `wg`, `ikev2`, `meta`) a list of `{ip, cn}` — a
 *   server (`cn`) has one address per group. Read: every address of every group of the regions
 *   not `offline`; `meta` addresses (the servers' API and latency endpoint) are PIA's servers too.
 *   IPv4 only in the list.
 * - IVPN, `https://api.ivpn.net/v5/servers.json` (the file IVPN's own client ships): `{wireguard:
 *   [...], openvpn: [...], config}`, a location per gateway with `hosts: [{hostname, host,
 *   v2ray, ipv6: {local_ip}, …}]`. Read: each host's `host` (IPv4). `v2ray` is the V2Ray
 *   obfuscation ingress of a server (one address shared by its WireGuard and OpenVPN host, often in
 *   another network) and is left out as Mullvad's bridges are; `ipv6.local_ip` is the tunnel's
 *   inside prefix (fd00::/8), not a public address; `config.api.ips` are IVPN's API servers.
 * - Windscribe, `https://assets.windscribe.com/serverlist/mob-v2/1/1`: the list Windscribe's apps
 *   read (`/serverlist/mob-v2/<1: pro, 0: free>/<revision>`, the last part a cache-buster: the apps
 *   send their list revision, others a time or `1`; the free list leaves out the nodes of pro
 *   groups). `{data: [...], info: {revision, …}}`, a location per region (`id`, `name`,
 *   `country_code`, `status`, `premium_only`, …, `groups`, missing on a region with no datacenter)
 *   with groups per datacenter (`id`, `city`, `nick`, `pro`, `ping_ip`, `wg_pubkey`, `ovpn_x509`,
 *   `nodes`, missing where the list leaves them out) and nodes `{ip, ip2, ip3, hostname, weight,
 *   health}` (plus `force_disconnect: 1` on a node being taken out of service). The three
 *   addresses of a node are three entries, one per protocol family, as Windscribe's port map says
 *   (`use`: IKEv2 `hostname`, for which the desktop app takes `ip`; OpenVPN UDP and TCP `ip2`;
 *   Stealth and WireGuard `ip3`); none is named as the exit. Read: the three addresses (`ip3` may be empty) of
 *   every node not marked `force_disconnect`; `ping_ip` is one node's `ip` in the lists seen and is
 *   not read. IPv4 only in the list.
 * - AirVPN, `https://airvpn.org/api/status/`: `{result: "ok", servers: [...], …}` (other keys, such
 *   as per-country and per-continent summaries, are ignored), a server with `public_name`,
 *   `country_code` (lower case), `location`, load figures, `ip_v4_in1`…`ip_v4_in4`,
 *   `ip_v6_in1`…`ip_v6_in4` and `health` (`ok`; `warning`, a busy server; `error`, closed to new
 *   connections). The `_in` addresses are entries: AirVPN's own client takes a server's exit
 *   addresses from another field of its (signed-in) manifest, `ips_exit`, beside `ips_entry`, and
 *   the status API carries no exit field. Read: the eight entry addresses of every server whose
 *   health is `ok` or `warning`; a health value not among the three is refused (whether such a
 *   server is in service is not known).
 * - iCloud Private Relay, `https://mask-api.icloud.com/egress-ip-ranges.csv`: an RFC 8805 geofeed
 *   of about 290,000 lines `prefix,country,region,city,` (postal code, the fifth field, empty),
 *   IPv4 and IPv6. These are exit ranges of a relay, not of a VPN; the builder reports them as
 *   such. (X4BNet's aggregate VPN list merges Apple's IPv4 ranges into itself; see
 *   vpnAggregates.ts.)
 *
 * Rules: a JSON list is bounded in bytes (per list) and nesting depth, must be UTF-8, and is read
 * whole; each row's fields are checked (types; addresses by the strict parsers of src/address;
 * keys a publisher adds later are ignored; a Mullvad `type` outside the three is refused, since
 * whether a new kind of relay carries traffic out is not known); a list with no server, or none in
 * service, is refused. Errors are SourceFormatError naming the file and, for JSON, the row. Apple's
 * CSV is read by lines (bounded) with exactly five fields a line. Ranges come back sorted by family
 * then start, duplicates dropped; the publisher states no date in any of these lists (`date` null).
 */
import fs from 'node:fs';
import { ipv4MappedOf, parseIPv4, parseIPv6, ipv6Value } from '../../address/ipAddress.js';
import { linesOfFile, SourceFormatError } from '../../tables/sources/textLines.js';
import { isObject, parseBoundedJson } from '../boundedJson.js';
import type { FeedListing, ListedRange } from './feedListing.js';

export const MULLVAD_RELAYS_URL = 'https://api.mullvad.net/www/relays/all/';
export const NORDVPN_SERVERS_URL = 'https://api.nordvpn.com/v1/servers?limit=0';
export const PIA_SERVERS_URL = 'https://serverlist.piaservers.net/vpninfo/servers/v6';
export const IVPN_SERVERS_URL = 'https://api.ivpn.net/v5/servers.json';
/** A fixed cache-buster: the list answers any, and a daily fetch needs no fresh one. */
export const WINDSCRIBE_SERVERS_URL = 'https://assets.windscribe.com/serverlist/mob-v2/1/1';
export const AIRVPN_STATUS_URL = 'https://airvpn.org/api/status/';
export const PRIVATE_RELAY_EGRESS_URL = 'https://mask-api.icloud.com/egress-ip-ranges.csv';

/** The provider names the listings carry (brand names). */
const VPN_PROVIDERS = {
  mullvad: 'Mullvad VPN',
  nordvpn: 'NordVPN',
  pia: 'Private Internet Access',
  ivpn: 'IVPN',
  windscribe: 'Windscribe',
  airvpn: 'AirVPN',
} as const;
/** A relay, not a VPN: the builder reports it apart. */
const PRIVATE_RELAY_PROVIDER = 'iCloud Private Relay';

/** Size bounds, some ten times the lists' size in 2026 (Nord's v1 list is the big one, ~30 MB). */
const MULLVAD_MAX_BYTES = 16 * 1024 * 1024;
const NORDVPN_MAX_BYTES = 256 * 1024 * 1024;
const PIA_MAX_BYTES = 16 * 1024 * 1024;
const IVPN_MAX_BYTES = 16 * 1024 * 1024;
const WINDSCRIBE_MAX_BYTES = 16 * 1024 * 1024;
const AIRVPN_MAX_BYTES = 16 * 1024 * 1024;
/** Apple's CSV was 12 MB in 2026; its longest line is well under 100 characters. */
const PRIVATE_RELAY_MAX_BYTES = 256 * 1024 * 1024;
const PRIVATE_RELAY_MAX_LINE = 1024;
/** The deepest list (Nord v1: server → locations → country → city) nests six levels. */
const MAX_JSON_DEPTH = 32;
const MAX_NAME_LENGTH = 255;
/** PIA's signature is base64 of a 4096-bit RSA signature (684 characters). */
const MAX_SIGNATURE_LENGTH = 64 * 1024;

export type Fail = (message: string) => never;
type Fields = Record<string, unknown>;

/** The text of a file, refused past `maxBytes` or when it is not UTF-8. */
export function boundedText(file: string, maxBytes: number): string {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (error) {
    throw new SourceFormatError(file, 0, `cannot be read (${(error as Error).message})`);
  }
  if (size > maxBytes) throw new SourceFormatError(file, 0, `${size} bytes, more than the bound of ${maxBytes}`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(fs.readFileSync(file));
  } catch {
    throw new SourceFormatError(file, 0, 'not UTF-8 text');
  }
}

/** JSON text parsed after the depth bound is checked. */
export function parseJson(text: string, file: string): unknown {
  try {
    return parseBoundedJson(text, MAX_JSON_DEPTH);
  } catch (error) {
    throw new SourceFormatError(file, 0, (error as Error).message);
  }
}

function objectOf(value: unknown, what: string, fail: Fail): Fields {
  if (!isObject(value)) fail(`${what} is not an object`);
  return value as Fields;
}

function arrayOf(fields: Fields, key: string, fail: Fail): unknown[] {
  const value = fields[key];
  if (!Array.isArray(value)) fail(`"${key}" is ${value === undefined ? 'missing' : 'not a list'}`);
  return value as unknown[];
}

function textOf(fields: Fields, key: string, fail: Fail, maxLength = MAX_NAME_LENGTH): string {
  const value = fields[key];
  if (typeof value !== 'string') fail(`"${key}" is ${value === undefined ? 'missing' : 'not a string'}`);
  if ((value as string).length > maxLength) fail(`"${key}" is longer than ${maxLength} characters`);
  return value as string;
}

function flagOf(fields: Fields, key: string, fail: Fail): boolean {
  const value = fields[key];
  if (typeof value !== 'boolean') fail(`"${key}" is ${value === undefined ? 'missing' : 'not true or false'}`);
  return value as boolean;
}

/** The single address `text` as a range of one family (`family` null: either); IPv4-mapped IPv6 is refused. */
export function addressRange(text: string, family: 4 | 6 | null, provider: string | null, fail: Fail): ListedRange {
  if (family !== 6) {
    const v4 = parseIPv4(text);
    if (v4 >= 0) return { family: 4, start: BigInt(v4), end: BigInt(v4), provider };
    if (family === 4) fail(`${JSON.stringify(text.slice(0, 64))} is not an IPv4 address`);
  }
  const words = new Uint32Array(4);
  if (!parseIPv6(text, words) || ipv4MappedOf(words) >= 0) {
    fail(`${JSON.stringify(text.slice(0, 64))} is not an ${family === 6 ? 'IPv6' : 'IP'} address`);
  }
  const value = ipv6Value(words);
  return { family: 6, start: value, end: value, provider };
}

/** An optional address field: missing, null and "" are none; anything else must be an address of `family`. */
function optionalAddress(fields: Fields, key: string, family: 4 | 6, provider: string, fail: Fail): ListedRange | null {
  const value = fields[key];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') fail(`"${key}" is not a string or null`);
  return addressRange(value as string, family, provider, fail);
}

/** A CIDR block `address/length` as a range; a block with host bits set is refused. */
export function prefixRange(text: string, provider: string | null, fail: Fail): ListedRange {
  const slash = text.indexOf('/');
  const length = text.slice(slash + 1);
  if (slash < 0 || !/^(0|[1-9]\d{0,2})$/.test(length)) fail(`${JSON.stringify(text.slice(0, 64))} is not a CIDR block`);
  const first = addressRange(text.slice(0, slash), null, provider, fail);
  const width = first.family === 4 ? 32 : 128;
  const bits = Number(length);
  if (bits > width) fail(`${text} has a prefix longer than ${width} bits`);
  const size = 1n << BigInt(width - bits);
  if (first.start % size !== 0n) fail(`${text} has host bits set`);
  return { ...first, end: first.start + size - 1n };
}

/** The non-empty list under `key` of a JSON object; `kind` names the document when it has none. */
function listIn(document: unknown, key: string, file: string, kind: string, item: string): unknown[] {
  if (!isObject(document) || !Array.isArray(document[key])) throw new SourceFormatError(file, 0, `not ${kind}: no "${key}" list`);
  if (document[key].length === 0) throw new SourceFormatError(file, 0, `lists no ${item}`);
  return document[key];
}

/** The listing of `ranges`, sorted by family then start, duplicates dropped. */
export function listingOf(ranges: ListedRange[], date: string | null): FeedListing {
  const sorted = [...ranges].sort(
    (a, b) => a.family - b.family || (a.start < b.start ? -1 : a.start > b.start ? 1 : a.end < b.end ? -1 : a.end > b.end ? 1 : 0),
  );
  const out: ListedRange[] = [];
  for (const range of sorted) {
    const last = out[out.length - 1];
    if (last && last.family === range.family && last.start === range.start && last.end === range.end && last.provider === range.provider) {
      continue;
    }
    out.push(range);
  }
  return { ranges: out, date };
}

/**
 * The JSON array's items, each checked by `item` with a `fail` that names its place (number, and
 * its `nameKey` when that is a string) inside what `outer` names.
 */
function eachItem(rows: unknown[], what: string, nameKey: string, outer: Fail, item: (fields: Fields, fail: Fail) => void): void {
  rows.forEach((value, index) => {
    const fail: Fail = (message) => {
      const name = isObject(value) && typeof value[nameKey] === 'string' ? ` (${JSON.stringify(value[nameKey].slice(0, 64))})` : '';
      return outer(`${what} ${index + 1}${name}: ${message}`);
    };
    item(objectOf(value, what, fail), fail);
  });
}

/** A `fail` for the file as a whole. */
function fileFail(file: string): Fail {
  return (message) => {
    throw new SourceFormatError(file, 0, message);
  };
}

/** The JSON array's rows, each checked by `row` with a `fail` naming its place. */
function eachRow(rows: unknown[], file: string, what: string, row: (fields: Fields, fail: Fail) => void, nameKey = 'hostname'): void {
  eachItem(rows, what, nameKey, fileFail(file), row);
}

const MULLVAD_TYPES = new Set(['wireguard', 'openvpn', 'bridge']);

/** Reads Mullvad's `www/relays/all/` list: the entry addresses of the active WireGuard and OpenVPN relays. */
export function readMullvadRelays(file: string): FeedListing {
  const provider = VPN_PROVIDERS.mullvad;
  const document = parseJson(boundedText(file, MULLVAD_MAX_BYTES), file);
  if (!Array.isArray(document)) throw new SourceFormatError(file, 0, 'not a Mullvad relay list: not a JSON array');
  if (document.length === 0) throw new SourceFormatError(file, 0, 'lists no relay');
  const ranges: ListedRange[] = [];
  eachRow(document, file, 'relay', (fields, fail) => {
    if (textOf(fields, 'hostname', fail) === '') fail('"hostname" is empty');
    const type = textOf(fields, 'type', fail);
    if (!MULLVAD_TYPES.has(type)) fail(`unknown relay type ${JSON.stringify(type)}`);
    const active = flagOf(fields, 'active', fail);
    const v4 = addressRange(textOf(fields, 'ipv4_addr_in', fail), 4, provider, fail);
    const v6 = optionalAddress(fields, 'ipv6_addr_in', 6, provider, fail);
    if (!active || type === 'bridge') return;
    ranges.push(v4);
    if (v6) ranges.push(v6);
  });
  if (ranges.length === 0) throw new SourceFormatError(file, 0, 'lists no active relay');
  return listingOf(ranges, null);
}

/** Reads NordVPN's `/v1/servers` (or `/v2/servers`) list: the addresses of the servers `online`. */
export function readNordVpnServers(file: string): FeedListing {
  const provider = VPN_PROVIDERS.nordvpn;
  const document = parseJson(boundedText(file, NORDVPN_MAX_BYTES), file);
  let servers: unknown[];
  if (Array.isArray(document)) servers = document;
  else if (isObject(document) && Array.isArray(document.servers)) servers = document.servers;
  else throw new SourceFormatError(file, 0, 'not a NordVPN server list: neither an array nor an object with "servers"');
  if (servers.length === 0) throw new SourceFormatError(file, 0, 'lists no server');
  const ranges: ListedRange[] = [];
  eachRow(servers, file, 'server', (fields, fail) => {
    if (textOf(fields, 'hostname', fail) === '') fail('"hostname" is empty');
    const status = textOf(fields, 'status', fail, 32);
    const addresses: ListedRange[] = [];
    const station = textOf(fields, 'station', fail, 64);
    if (station !== '') addresses.push(addressRange(station, 4, provider, fail));
    for (const key of ['ipv6_station', 'station_ipv6']) {
      if (fields[key] === undefined || fields[key] === null) continue;
      const text = textOf(fields, key, fail, 64);
      if (text !== '') addresses.push(addressRange(text, 6, provider, fail));
    }
    if (fields.ips !== undefined) {
      for (const entry of arrayOf(fields, 'ips', fail)) {
        const ipEntry = objectOf(entry, '"ips" entry', fail);
        textOf(ipEntry, 'type', fail, 32);
        const ip = objectOf(ipEntry.ip, '"ips" entry\'s "ip"', fail);
        const version = ip.version;
        if (version !== 4 && version !== 6) fail(`"ips" entry's version ${JSON.stringify(version)} is not 4 or 6`);
        addresses.push(addressRange(textOf(ip, 'ip', fail, 64), version as 4 | 6, provider, fail));
      }
    }
    if (status !== 'online') return;
    if (addresses.length === 0) fail('an online server with no address');
    ranges.push(...addresses);
  });
  if (ranges.length === 0) throw new SourceFormatError(file, 0, 'lists no server online');
  return listingOf(ranges, null);
}

/** PIA's JSON without the signature: what precedes the first blank line, after which only base64 may follow. */
function piaJson(text: string, file: string): string {
  const blank = /\r?\n\r?\n/.exec(text);
  if (!blank) return text;
  const signature = text.slice(blank.index + blank[0].length).trimEnd();
  if (!/^[A-Za-z0-9+/=\r\n]*$/.test(signature))
    throw new SourceFormatError(file, 0, 'what follows the blank line is not a base64 signature');
  if (signature.length > MAX_SIGNATURE_LENGTH)
    throw new SourceFormatError(file, 0, `a signature longer than ${MAX_SIGNATURE_LENGTH} characters`);
  return text.slice(0, blank.index);
}

/** Reads PIA's `vpninfo/servers/v6` (or `v7`) list: every server address of the regions not offline. */
export function readPiaServers(file: string): FeedListing {
  const provider = VPN_PROVIDERS.pia;
  const document = parseJson(piaJson(boundedText(file, PIA_MAX_BYTES), file), file);
  const regions = listIn(document, 'regions', file, 'a PIA server list', 'region');
  const ranges: ListedRange[] = [];
  regions.forEach((value, index) => {
    const fail: Fail = (message) => {
      const id = isObject(value) && typeof value.id === 'string' ? ` (${JSON.stringify(value.id.slice(0, 64))})` : '';
      throw new SourceFormatError(file, 0, `region ${index + 1}${id}: ${message}`);
    };
    const region = objectOf(value, 'region', fail);
    if (textOf(region, 'id', fail) === '') fail('"id" is empty');
    textOf(region, 'name', fail);
    if (!/^[A-Z]{2}$/.test(textOf(region, 'country', fail, 2))) fail('"country" is not a two-letter code');
    const offline = flagOf(region, 'offline', fail);
    const groups = objectOf(region.servers, '"servers"', fail);
    const addresses: ListedRange[] = [];
    for (const group of Object.keys(groups)) {
      for (const entry of arrayOf(groups, group, fail)) {
        const server = objectOf(entry, `a "${group}" server`, fail);
        if (textOf(server, 'cn', fail) === '') fail(`a "${group}" server has an empty "cn"`);
        addresses.push(addressRange(textOf(server, 'ip', fail, 64), null, provider, fail));
      }
    }
    if (!offline) ranges.push(...addresses);
  });
  if (ranges.length === 0) throw new SourceFormatError(file, 0, 'lists no server in a region online');
  return listingOf(ranges, null);
}

/** Reads IVPN's `v5/servers.json`: the `host` address of every WireGuard and OpenVPN server. */
export function readIvpnServers(file: string): FeedListing {
  const provider = VPN_PROVIDERS.ivpn;
  const document = parseJson(boundedText(file, IVPN_MAX_BYTES), file);
  if (!isObject(document)) throw new SourceFormatError(file, 0, 'not an IVPN server list: not a JSON object');
  const ranges: ListedRange[] = [];
  for (const protocol of ['wireguard', 'openvpn']) {
    const locations = arrayOf(document, protocol, fileFail(file));
    locations.forEach((value, index) => {
      const fail: Fail = (message) => {
        const gateway = isObject(value) && typeof value.gateway === 'string' ? ` (${JSON.stringify(value.gateway.slice(0, 64))})` : '';
        throw new SourceFormatError(file, 0, `${protocol} location ${index + 1}${gateway}: ${message}`);
      };
      const location = objectOf(value, 'location', fail);
      if (textOf(location, 'gateway', fail) === '') fail('"gateway" is empty');
      if (!/^[A-Z]{2}$/.test(textOf(location, 'country_code', fail, 2))) fail('"country_code" is not a two-letter code');
      for (const entry of arrayOf(location, 'hosts', fail)) {
        const host = objectOf(entry, 'host', fail);
        if (textOf(host, 'hostname', fail) === '') fail('a host has an empty "hostname"');
        ranges.push(addressRange(textOf(host, 'host', fail, 64), 4, provider, fail));
        // checked for its form, not listed (see the module comment)
        if (host.v2ray !== undefined && host.v2ray !== '') addressRange(textOf(host, 'v2ray', fail, 64), 4, provider, fail);
        if (host.ipv6 !== undefined) objectOf(host.ipv6, '"ipv6"', fail);
      }
    });
  }
  if (ranges.length === 0) throw new SourceFormatError(file, 0, 'lists no server');
  return listingOf(ranges, null);
}

/** Reads Windscribe's `serverlist/mob-v2/1/…` list: the three entry addresses of every node in service. */
export function readWindscribeServers(file: string): FeedListing {
  const provider = VPN_PROVIDERS.windscribe;
  const document = parseJson(boundedText(file, WINDSCRIBE_MAX_BYTES), file);
  const locations = listIn(document, 'data', file, 'a Windscribe server list', 'location');
  const ranges: ListedRange[] = [];
  eachRow(
    locations,
    file,
    'location',
    (location, fail) => {
      if (textOf(location, 'name', fail) === '') fail('"name" is empty');
      if (location.groups === undefined) return;
      eachItem(arrayOf(location, 'groups', fail), 'group', 'city', fail, (group, groupFail) => {
        if (group.nodes === undefined) return;
        eachItem(arrayOf(group, 'nodes', groupFail), 'node', 'hostname', groupFail, (node, nodeFail) => {
          if (textOf(node, 'hostname', nodeFail) === '') nodeFail('"hostname" is empty');
          const addresses = [
            addressRange(textOf(node, 'ip', nodeFail, 64), 4, provider, nodeFail),
            addressRange(textOf(node, 'ip2', nodeFail, 64), 4, provider, nodeFail),
          ];
          const ip3 = optionalAddress(node, 'ip3', 4, provider, nodeFail);
          if (ip3) addresses.push(ip3);
          const leaving = node.force_disconnect;
          if (leaving !== undefined && leaving !== 0 && leaving !== 1) nodeFail('"force_disconnect" is not 0 or 1');
          if (leaving !== 1) ranges.push(...addresses);
        });
      });
    },
    'name',
  );
  if (ranges.length === 0) throw new SourceFormatError(file, 0, 'lists no node in service');
  return listingOf(ranges, null);
}

const AIRVPN_HEALTH = new Set(['ok', 'warning', 'error']);

/** Reads AirVPN's `api/status/`: the entry addresses of every server not closed (`health` not `error`). */
export function readAirVpnStatus(file: string): FeedListing {
  const provider = VPN_PROVIDERS.airvpn;
  const document = parseJson(boundedText(file, AIRVPN_MAX_BYTES), file);
  const result = isObject(document) ? document.result : undefined;
  if (result !== undefined && result !== 'ok')
    throw new SourceFormatError(file, 0, `the status answers ${JSON.stringify(String(result).slice(0, 64))}, not "ok"`);
  const servers = listIn(document, 'servers', file, 'an AirVPN status', 'server');
  const ranges: ListedRange[] = [];
  eachRow(
    servers,
    file,
    'server',
    (server, fail) => {
      if (textOf(server, 'public_name', fail) === '') fail('"public_name" is empty');
      if (!/^[a-z]{2}$/.test(textOf(server, 'country_code', fail, 2))) fail('"country_code" is not a two-letter code');
      const health = textOf(server, 'health', fail, 32);
      if (!AIRVPN_HEALTH.has(health)) fail(`unknown health ${JSON.stringify(health)}`);
      const addresses: ListedRange[] = [];
      for (const n of [1, 2, 3, 4]) {
        for (const family of [4, 6] as const) {
          const address = optionalAddress(server, `ip_v${family}_in${n}`, family, provider, fail);
          if (address) addresses.push(address);
        }
      }
      if (health === 'error') return;
      if (addresses.length === 0) fail('a server in service with no address');
      ranges.push(...addresses);
    },
    'public_name',
  );
  if (ranges.length === 0) throw new SourceFormatError(file, 0, 'lists no server in service');
  return listingOf(ranges, null);
}

const COUNTRY = /^([A-Z]{2})?$/;
const REGION = /^([A-Z]{2}-[A-Z0-9]{1,3})?$/;

/**
 * Reads Apple's `egress-ip-ranges.csv`: every prefix, named iCloud Private Relay. Lines are
 * `prefix,country,region,city,postal` (RFC 8805); `#` lines are comments as RFC 8805 allows;
 * quotes are refused (Apple writes none, and splitting on commas would misread them).
 */
export async function readPrivateRelayEgress(file: string): Promise<FeedListing> {
  const ranges: ListedRange[] = [];
  for await (const { text, line } of linesOfFile(file, { maxLineLength: PRIVATE_RELAY_MAX_LINE, maxBytes: PRIVATE_RELAY_MAX_BYTES })) {
    const fail: Fail = (message) => {
      throw new SourceFormatError(file, line, message);
    };
    if (text.startsWith('#')) continue;
    if (text === '') fail('blank line');
    if (text.includes('"')) fail('a quoted field');
    const fields = text.split(',');
    if (fields.length !== 5) fail(`${fields.length} fields, not the 5 of prefix,country,region,city,postal`);
    const [prefix, country, region] = fields;
    if (!COUNTRY.test(country)) fail(`${JSON.stringify(country)} is not a two-letter country code`);
    if (!REGION.test(region)) fail(`${JSON.stringify(region)} is not an ISO 3166-2 region code`);
    ranges.push(prefixRange(prefix, PRIVATE_RELAY_PROVIDER, fail));
  }
  if (ranges.length === 0) throw new SourceFormatError(file, 0, 'lists no range');
  return listingOf(ranges, null);
}
