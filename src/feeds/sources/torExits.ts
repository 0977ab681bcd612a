/**
 * Readers of the Tor Project's lists of the addresses Tor exits from (test/fixtures/publishers/
 * feeds-tor-proxy-README.md has the sources of every format fact below).
 *
 * `https://check.torproject.org/torbulkexitlist`: one IPv4 address a line, each line ended by a
 * line feed; no header, no comments, no blank lines (the old `cgi-bin/TorBulkExitList.py?ip=`
 * answers had `#` comment lines, this URL has none). No date.
 *
 * `https://check.torproject.org/exit-addresses`: TorDNSEL's exit list, blocks of
 * `ExitNode <40 upper-case hex>`, `Published <YYYY-MM-DD hh:mm:ss>`, `LastStatus <...>` and one or
 * more `ExitAddress <IPv4> <...>` (the address TorDNSEL saw the relay exit from, with the time it
 * looked). The Tor Project's own parser (metrics-lib ExitListEntryImpl) wants ExitNode, Published
 * and LastStatus exactly once a block, ExitAddress at least once, IPv4 only; so does this one. No
 * blank lines, no `@type` header (that is CollecTor's archive form, not this URL's). One address may
 * be listed by several relays. The listing's date: the newest Published or LastStatus.
 *
 * Onionoo details (ONIONOO_EXITS_URL): one JSON document, one relay object a line. Its
 * `exit_addresses` is, by the protocol, "Array of IPv4 addresses that the relay used to exit to the
 * Internet in the past 24 hours" (measured by the same exit scanner): nothing in Onionoo states an
 * IPv6 address a relay exits from. `or_addresses` are where a relay listens. So the IPv6 this reader
 * lists is the IPv6 OR address of a running relay whose `exit_policy_v6_summary` admits at least one
 * port ("Missing if the relay rejects all connections to IPv6 addresses"): the relay exits to IPv6,
 * and unless its operator binds those exits elsewhere (OutboundBindAddressExit) or the host picks
 * another source address, it exits from the address it listens on. That is a stand-in, not a
 * measurement; it lists the address of a Tor exit's own server either way, and `ipv6ListenAddresses:
 * false` leaves it out. IPv4 OR addresses are not listed: IPv4 exits are measured. An address in
 * `exit_addresses` is listed whatever its family (IPv4 by the protocol). The date: `relays_published`.
 *
 * Rules: every line or field has the publisher's form or the file is refused (SourceFormatError
 * naming file and line, or the relay, for JSON); reserved addresses are kept as listed (the feed
 * builder takes out what no one may route); an address listed twice is one range; a list that names
 * no exit is refused, since it would make every address "not Tor". Files are bounded in size, line
 * length, rows and (JSON) nesting depth. The provider of every range is null: the feed itself says
 * "Tor" (the builder's `says`), and `provider` names a VPN service a list speaks for.
 */
import fs from 'node:fs';
import { parseIPv4, parseIPv6, parseIp, ipv6Value } from '../../address/ipAddress.js';
import { linesOf, SourceFormatError, type LineBounds, type NumberedLine } from '../../tables/sources/textLines.js';
import type { FeedListing, ListedRange } from './feedListing.js';

export const TOR_BULK_EXIT_LIST_URL = 'https://check.torproject.org/torbulkexitlist';
export const TOR_EXIT_ADDRESSES_URL = 'https://check.torproject.org/exit-addresses';
/** Running relays, with only the fields read here (the whole details document is tens of megabytes). */
export const ONIONOO_EXITS_URL =
  'https://onionoo.torproject.org/details?type=relay&running=true&fields=fingerprint,running,or_addresses,exit_addresses,exit_policy_v6_summary';

/** ~1,400 addresses in 2024 (20 KB); the bound leaves room for a network many times larger. */
const BULK_LIST_BOUNDS: LineBounds = { maxLineLength: 64, maxBytes: 4 * 1024 ** 2 };
/** ~2,500 blocks in 2024 (370 KB). */
const EXIT_ADDRESSES_BOUNDS: LineBounds = { maxLineLength: 128, maxBytes: 32 * 1024 ** 2 };
/** The running relays with five fields: about 2 MB (estimated); the whole details document: ~24 MB (2026). */
export const ONIONOO_MAX_BYTES = 64 * 1024 ** 2;
/** Document, relays, relay, policy summary, port list: 5; a deeper document is not Onionoo's. */
const ONIONOO_MAX_DEPTH = 8;
const MAX_ADDRESSES = 1_000_000;
const MAX_RELAYS = 200_000;
const MAX_ADDRESSES_A_RELAY = 256;

const FINGERPRINT = /^[0-9A-F]{40}$/;
const TOR_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** Reads `check.torproject.org/torbulkexitlist` at `file`; `name` (the URL, say) names errors. */
export async function readTorBulkExitList(file: string, name = file): Promise<FeedListing> {
  const listing = new Listing(name);
  for await (const { text, line } of fileLines(file, name, BULK_LIST_BOUNDS)) {
    const address = parseIPv4(text);
    if (address < 0) throw new SourceFormatError(name, line, text === '' ? 'blank line' : `not an IPv4 address: ${quoted(text)}`);
    listing.add4(address, line);
  }
  return listing.done(null);
}

/** Reads `check.torproject.org/exit-addresses` at `file`; `name` names errors. */
export async function readTorExitAddresses(file: string, name = file): Promise<FeedListing> {
  const listing = new Listing(name);
  let block: { line: number; published: boolean; lastStatus: boolean; exits: number } | null = null;
  let newest = '';
  const close = (at: number): void => {
    if (block === null) return;
    const missing = !block.published ? 'Published' : !block.lastStatus ? 'LastStatus' : block.exits === 0 ? 'ExitAddress' : null;
    if (missing !== null) throw new SourceFormatError(name, at, `the ExitNode block of line ${block.line} has no ${missing} line`);
  };
  let last = 0;
  for await (const { text, line } of fileLines(file, name, EXIT_ADDRESSES_BOUNDS)) {
    last = line;
    const fail = (message: string): never => {
      throw new SourceFormatError(name, line, message);
    };
    const space = text.indexOf(' ');
    const keyword = space < 0 ? text : text.slice(0, space);
    const value = space < 0 ? '' : text.slice(space + 1);
    if (keyword === 'ExitNode') {
      if (!FINGERPRINT.test(value)) fail(`not a relay fingerprint (40 upper-case hex digits): ${quoted(value)}`);
      close(line);
      block = { line, published: false, lastStatus: false, exits: 0 };
      continue;
    }
    if (block === null) fail(text === '' ? 'blank line' : `${quoted(text)} before the first ExitNode line`);
    const current = block as NonNullable<typeof block>;
    switch (keyword) {
      case 'Published':
      case 'LastStatus': {
        const seen = keyword === 'Published' ? current.published : current.lastStatus;
        if (seen) fail(`a second ${keyword} line in the ExitNode block of line ${current.line}`);
        const time = torTime(value) ?? fail(`not a time (YYYY-MM-DD hh:mm:ss): ${quoted(value)}`);
        if (time > newest) newest = time;
        if (keyword === 'Published') current.published = true;
        else current.lastStatus = true;
        break;
      }
      case 'ExitAddress': {
        const at = value.indexOf(' ');
        const address = at < 0 ? -1 : parseIPv4(value.slice(0, at));
        if (address < 0) fail(`not an IPv4 exit address: ${quoted(text)}`);
        if (torTime(value.slice(at + 1)) === null) fail(`not a time (YYYY-MM-DD hh:mm:ss): ${quoted(value.slice(at + 1))}`);
        listing.add4(address, line);
        current.exits++;
        break;
      }
      default:
        fail(text === '' ? 'blank line' : `not a line of an exit list: ${quoted(text)}`);
    }
  }
  close(last);
  return listing.done(newest === '' ? null : newest);
}

export interface OnionooExitOptions {
  /**
   * List the IPv6 OR addresses of relays that exit to IPv6 (default true): Onionoo measures no IPv6
   * exit address, so this is the stand-in the module comment describes.
   */
  ipv6ListenAddresses?: boolean;
}

/** Reads an Onionoo details document (ONIONOO_EXITS_URL's answer) at `file`; `name` names errors. */
export async function readOnionooExits(file: string, name = file, options: OnionooExitOptions = {}): Promise<FeedListing> {
  const listenAddresses = options.ipv6ListenAddresses ?? true;
  const document = await boundedJson(file, name);
  const fileFail = (message: string): never => {
    throw new SourceFormatError(name, 0, message);
  };
  if (typeof document !== 'object' || document === null || Array.isArray(document)) fileFail('not an Onionoo document: not a JSON object');
  const top = document as Record<string, unknown>;
  if (typeof top.version !== 'string' || !/^\d{1,3}\.\d{1,3}$/.test(top.version))
    fileFail('not an Onionoo document: no protocol "version"');
  const published = typeof top.relays_published === 'string' ? torTime(top.relays_published) : null;
  if (published === null) fileFail(`"relays_published" is not a time (YYYY-MM-DD hh:mm:ss): ${quoted(String(top.relays_published))}`);
  for (const key of ['relays_skipped', 'relays_truncated']) {
    if (key in top) fileFail(`a partial answer ("${key}" ${String(top[key])}): the query had an offset or a limit`);
  }
  if (!Array.isArray(top.relays)) fileFail('not an Onionoo details document: no "relays" array');
  const relays = top.relays as unknown[];
  if (relays.length > MAX_RELAYS) fileFail(`more than ${MAX_RELAYS} relays`);
  const listing = new Listing(name);
  relays.forEach((value, index) => {
    let where = `relay ${index + 1}`;
    const fail = (message: string): never => {
      throw new SourceFormatError(name, 0, `${where}: ${message}`);
    };
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('not an object');
    const relay = value as Record<string, unknown>;
    if (typeof relay.fingerprint !== 'string' || !FINGERPRINT.test(relay.fingerprint))
      fail('"fingerprint" is not 40 upper-case hex digits');
    where += ` (${relay.fingerprint as string})`;
    if (typeof relay.running !== 'boolean') fail('"running" is not true or false');
    const orAddresses = stringList(relay.or_addresses, 'or_addresses', false, fail).map((text) => orAddress(text, fail));
    const exitAddresses = stringList(relay.exit_addresses, 'exit_addresses', true, fail).map((text) => {
      const parsed = parseIp(text);
      if (parsed === null) fail(`not an exit address: ${quoted(text)}`);
      return parsed as NonNullable<typeof parsed>;
    });
    const exitsToIpv6 = relay.exit_policy_v6_summary === undefined ? false : admitsAPort(relay.exit_policy_v6_summary, fail);
    if (!relay.running) return;
    for (const address of exitAddresses) {
      if (address.v4 >= 0) listing.add4(address.v4, 0);
      else listing.add6(address.words, 0);
    }
    if (listenAddresses && exitsToIpv6) {
      for (const address of orAddresses) if (address !== null) listing.add6(address, 0);
    }
  });
  return listing.done(published);
}

/** The addresses read, once each, in the order first listed. */
class Listing {
  private readonly ranges: ListedRange[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly name: string) {}

  add4(address: number, line: number): void {
    this.add(4, BigInt(address), line);
  }

  add6(words: ArrayLike<number>, line: number): void {
    this.add(6, ipv6Value(words), line);
  }

  private add(family: 4 | 6, value: bigint, line: number): void {
    const key = `${family}:${value}`;
    if (this.seen.has(key)) return;
    if (this.seen.size >= MAX_ADDRESSES) throw new SourceFormatError(this.name, line, `more than ${MAX_ADDRESSES} addresses`);
    this.seen.add(key);
    this.ranges.push({ family, start: value, end: value, provider: null });
  }

  done(date: string | null): FeedListing {
    if (this.ranges.length === 0) {
      throw new SourceFormatError(this.name, 0, 'lists no exit address: an empty list would make every address "not Tor"');
    }
    return { ranges: this.ranges, date };
  }
}

function fileLines(file: string, name: string, bounds: LineBounds): AsyncGenerator<NumberedLine> {
  return linesOf(fs.createReadStream(file, { highWaterMark: 1 << 20 }), name, bounds);
}

/** `YYYY-MM-DD hh:mm:ss` (UTC, as Tor writes times) → ISO `YYYY-MM-DDThh:mm:ssZ`; null when not a real time. */
function torTime(text: string): string | null {
  const match = TOR_TIME.exec(text);
  if (match === null) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  const time = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (time.getUTCMonth() !== month - 1 || time.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return null;
  return `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}Z`;
}

/** Reads a JSON file within ONIONOO_MAX_BYTES and ONIONOO_MAX_DEPTH (JSON.parse has no depth bound of its own). */
async function boundedJson(file: string, name: string): Promise<unknown> {
  const size = (await fs.promises.stat(file)).size;
  if (size > ONIONOO_MAX_BYTES) throw new SourceFormatError(name, 0, `${size} bytes, more than the bound of ${ONIONOO_MAX_BYTES}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await fs.promises.readFile(file));
  } catch {
    throw new SourceFormatError(name, 0, 'not UTF-8 text');
  }
  let depth = 0;
  let inString = false;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > ONIONOO_MAX_DEPTH) throw new SourceFormatError(name, line, `JSON nested deeper than ${ONIONOO_MAX_DEPTH}`);
    } else if (c === 125 || c === 93) depth--;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SourceFormatError(name, 0, `not JSON (${(error as Error).message})`);
  }
}

function stringList(value: unknown, key: string, optional: boolean, fail: (message: string) => never): string[] {
  if (value === undefined && optional) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) fail(`"${key}" is not a list of strings`);
  const list = value as string[];
  if (list.length > MAX_ADDRESSES_A_RELAY) fail(`"${key}" has more than ${MAX_ADDRESSES_A_RELAY} addresses`);
  return list;
}

const PORTS = /^\d{1,5}(?:[,-]\d{1,5})*$/;

/** An Onionoo OR address, `a.b.c.d:port` or `[v6]:port` (the protocol allows port lists): the IPv6 words, or null for IPv4. */
function orAddress(text: string, fail: (message: string) => never): Uint32Array | null {
  const colon = text.lastIndexOf(':');
  const host = text.slice(0, colon);
  const ports = text.slice(colon + 1);
  if (colon < 0 || !PORTS.test(ports) || ports.split(/[,-]/).some((port) => Number(port) > 65535))
    fail(`not an OR address: ${quoted(text)}`);
  if (host.startsWith('[') && host.endsWith(']')) {
    const words = new Uint32Array(4);
    if (!parseIPv6(host.slice(1, -1), words)) fail(`not an OR address: ${quoted(text)}`);
    return words;
  }
  if (parseIPv4(host) < 0) fail(`not an OR address: ${quoted(text)}`);
  return null;
}

/** Whether an exit policy summary (`{"accept": [...]}` or `{"reject": [...]}`) lets any port through. */
function admitsAPort(summary: unknown, fail: (message: string) => never): boolean {
  if (typeof summary !== 'object' || summary === null || Array.isArray(summary)) fail('"exit_policy_v6_summary" is not an object');
  const keys = Object.keys(summary as object);
  if (keys.length !== 1 || (keys[0] !== 'accept' && keys[0] !== 'reject'))
    fail('"exit_policy_v6_summary" is not one "accept" or "reject" list');
  const kind = keys[0];
  const list = (summary as Record<string, unknown>)[kind];
  if (!Array.isArray(list) || list.length === 0 || list.length > 65535) fail(`"exit_policy_v6_summary" ${kind} is not a list of ports`);
  const spans = (list as unknown[]).map((item) => {
    const match = typeof item === 'string' ? /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(item) : null;
    const low = match === null ? NaN : Number(match[1]);
    const high = match === null ? NaN : Number(match[2] ?? match[1]);
    if (!(low >= 1 && low <= high && high <= 65535)) fail(`"exit_policy_v6_summary" has a bad port or range: ${quoted(String(item))}`);
    return [low, high] as const;
  });
  if (kind === 'accept') return true;
  spans.sort((a, b) => a[0] - b[0]);
  let covered = 0;
  for (const [low, high] of spans) {
    if (low > covered + 1) return true;
    covered = Math.max(covered, high);
  }
  return covered < 65535;
}

function quoted(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
