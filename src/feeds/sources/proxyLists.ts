/**
 * Readers of two open-proxy lists (test/fixtures/publishers/feeds-tor-proxy-README.md has the
 * sources of every format fact below).
 *
 * FireHOL's `firehol_proxies.netset` (FIREHOL_PROXIES_URL): the union of the open-proxy lists
 * FireHOL tracks, over 30 days. A header of `#` lines, written by update-ipsets (the bash script and
 * its 2026 Go rewrite write the same keys): `#`, `# <set name>`, `#`, `# ipv4 hash:net ipset`, the
 * folded description, `# Source File Date: Mon Nov 21 08:42:01 UTC 2016` (`date -u`'s form, the day
 * space-padded: `Tue Sep  8`), `# This File Date  : ...`, `# Entries         : 32636 subnets, 33458
 * unique IPs` (a hash:ip set says only `N unique IPs`), and other keys not read here. Then one entry
 * a line, as FireHOL's iprange prints them: an IPv4 address (a /32 has no suffix) or an aligned
 * CIDR block; never /0 (update-ipsets filters it out). "Subnets" counts iprange's merged ranges
 * (adjacent entries are one), "unique IPs" their addresses: both are checked against the entries
 * read, which catches a file cut short. iprange never prints a block with host bits set, so one is
 * refused rather than normalised. The listing's date: the Source File Date (when the newest of the
 * source lists changed; This File Date is only when FireHOL last wrote the file).
 *
 * monosans/proxy-list's `proxies/all.txt` (MONOSANS_PROXIES_URL), the checked list chosen: its
 * README says every proxy was "verified minutes ago" by monosans/proxy-scraper-checker, re-checked
 * every hour, and "had to fetch a real URL in full to make the list"; it is maintained (commits
 * hourly in 2026) and documents its form: `protocol://host:port` or
 * `protocol://username:password@host:port`, protocol `http`, `socks4` or `socks5`, one a line, no
 * header, no date, no final line feed. TheSpeedX/PROXY-List states no checking; proxifly validates
 * but its text files carry no more than this one. The checker's host may be a DNS name: a name lists
 * no address and is passed over. Its host syntax has no IPv6. The address listed is the host, not
 * the checker's `exit_ip` (not in this file): the host is where the open proxy answers.
 *
 * Rules: a line not of the list's form is refused (SourceFormatError naming file and line), so are
 * malformed addresses and prefix lengths out of range; reserved and private addresses are kept as
 * listed (the feed builder takes out what no one may route, and CDN anycast from proxy lists); an
 * address listed twice is one range; a list naming no address is refused (it would make every
 * address "not a proxy"). Files are bounded in size, line length and rows. Ranges carry no provider.
 */
import fs from 'node:fs';
import { parseIPv4 } from '../../address/ipAddress.js';
import { linesOf, SourceFormatError, type LineBounds, type NumberedLine } from '../../tables/sources/textLines.js';
import type { FeedListing, ListedRange } from './feedListing.js';

export const FIREHOL_PROXIES_URL = 'https://iplists.firehol.org/files/firehol_proxies.netset';
export const MONOSANS_PROXIES_URL = 'https://raw.githubusercontent.com/monosans/proxy-list/main/proxies/all.txt';

/** firehol_proxies was 470 KB in 2016; the bound leaves room for lists a hundred times longer. */
const NETSET_BOUNDS: LineBounds = { maxLineLength: 256, maxBytes: 64 * 1024 ** 2 };
/** A line is at most a protocol, 2 × 255 characters of credentials and a 253-character name. */
const PROXY_LIST_BOUNDS: LineBounds = { maxLineLength: 1024, maxBytes: 64 * 1024 ** 2 };
const MAX_ENTRIES = 4_000_000;

const NETSET_ENTRY = /^(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})(?:\/([1-9]\d?))?$/;
const SET_TYPE = /^# (ipv4|ipv6) hash:(ip|net) ipset$/;
const SOURCE_FILE_DATE = '# Source File Date: ';
const ENTRIES = '# Entries         : ';
const NET_COUNTS = /^(\d{1,10}) subnets, (\d{1,10}) unique IPs$/;
const IP_COUNT = /^(\d{1,10}) unique IPs$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const POSIX_DATE = /^([A-Z][a-z]{2}) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) UTC (\d{4})$/;

/** Reads a FireHOL netset (firehol_proxies.netset) at `file`; `name` (the URL, say) names errors. */
export async function readFireholNetset(file: string, name = file): Promise<FeedListing> {
  const listing = new Listing(name);
  let header = true;
  let hash: 'ip' | 'net' | null = null;
  let date: string | null = null;
  let counts: { ranges: number | null; addresses: number; line: number } | null = null;
  for await (const { text, line } of fileLines(file, name, NETSET_BOUNDS)) {
    const fail = (message: string): never => {
      throw new SourceFormatError(name, line, message);
    };
    if (line === 1 && text !== '#') fail(`not a FireHOL set: the header opens with "#", not ${quoted(text)}`);
    if (text.startsWith('#')) {
      if (!header) fail(`a comment after the entries: ${quoted(text)}`);
      const type = SET_TYPE.exec(text);
      if (type !== null) {
        if (hash !== null) fail('a second set type line');
        if (type[1] !== 'ipv4') fail(`an ${type[1]} set: FireHOL's netsets read here are IPv4`);
        hash = type[2] as 'ip' | 'net';
      } else if (text.startsWith(SOURCE_FILE_DATE)) {
        if (date !== null) fail('a second Source File Date');
        date = posixDate(text.slice(SOURCE_FILE_DATE.length)) ?? fail(`not a date (as \`date -u\` writes it): ${quoted(text)}`);
      } else if (text.startsWith(ENTRIES)) {
        if (counts !== null) fail('a second Entries line');
        const value = text.slice(ENTRIES.length);
        const net = NET_COUNTS.exec(value);
        const ip = IP_COUNT.exec(value);
        if (net === null && ip === null) fail(`not "N subnets, M unique IPs" nor "M unique IPs": ${quoted(value)}`);
        counts =
          net !== null ? { ranges: Number(net[1]), addresses: Number(net[2]), line } : { ranges: null, addresses: Number(ip![1]), line };
      }
      continue;
    }
    if (header) {
      header = false;
      const missing = hash === null ? 'set type line' : date === null ? 'Source File Date' : counts === null ? 'Entries line' : null;
      if (missing !== null) fail(`the header has no ${missing}`);
      if (hash === 'net' && counts!.ranges === null) fail(`a hash:net set whose Entries line (line ${counts!.line}) counts no subnets`);
    }
    const entry = NETSET_ENTRY.exec(text);
    if (entry === null) fail(text === '' ? 'blank line' : `not an IPv4 address or CIDR block: ${quoted(text)}`);
    const [, address, prefixText] = entry!;
    const start = parseIPv4(address);
    if (start < 0) fail(`not an IPv4 address: ${quoted(text)}`);
    const prefix = prefixText === undefined ? 32 : Number(prefixText);
    if (prefix > 32) fail(`prefix length out of range (1 to 32): ${quoted(text)}`);
    const size = 2 ** (32 - prefix);
    if (start % size !== 0) fail(`host bits set in ${quoted(text)} (FireHOL prints aligned blocks)`);
    listing.add(start, start + size - 1, line);
  }
  if (header)
    throw new SourceFormatError(name, 0, listing.size === 0 && hash === null ? 'empty, or not a FireHOL set' : 'lists no address');
  const merged = listing.merged();
  if (counts!.ranges !== null && counts!.ranges !== merged.ranges) {
    throw new SourceFormatError(name, counts!.line, `the header counts ${counts!.ranges} subnets, the entries make ${merged.ranges}`);
  }
  if (counts!.addresses !== merged.addresses) {
    throw new SourceFormatError(
      name,
      counts!.line,
      `the header counts ${counts!.addresses} unique IPs, the entries hold ${merged.addresses}`,
    );
  }
  return listing.done(date);
}

const PROXY_LINE = /^(http|socks4|socks5):\/\/(?:[^\s:@/]+:[^\s:@/]+@)?([^\s:@/[\]]+):(\d{1,5})$/;
const DOTTED = /^[\d.]+$/;
const DNS_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Reads monosans/proxy-list's `proxies/all.txt` at `file`; `name` names errors. */
export async function readMonosansProxyList(file: string, name = file): Promise<FeedListing> {
  const listing = new Listing(name);
  for await (const { text, line } of fileLines(file, name, PROXY_LIST_BOUNDS)) {
    const fail = (message: string): never => {
      throw new SourceFormatError(name, line, message);
    };
    const match = PROXY_LINE.exec(text);
    if (match === null) fail(text === '' ? 'blank line' : `not protocol://[user:password@]host:port: ${quoted(text)}`);
    const [, , host, port] = match!;
    if (Number(port) > 65535 || (port.length > 1 && port.startsWith('0'))) fail(`not a port: ${quoted(text)}`);
    if (DOTTED.test(host)) {
      const address = parseIPv4(host);
      if (address < 0) fail(`not an IPv4 address: ${quoted(text)}`);
      listing.add(address, address, line);
    } else if (!DNS_NAME.test(host)) {
      fail(`not an address or a host name: ${quoted(text)}`);
    }
  }
  return listing.done(null);
}

/** IPv4 ranges read, each address range once, in the order first listed. */
class Listing {
  private readonly ranges: ListedRange[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly name: string) {}

  get size(): number {
    return this.ranges.length;
  }

  add(start: number, end: number, line: number): void {
    const key = `${start}-${end}`;
    if (this.seen.has(key)) return;
    if (this.seen.size >= MAX_ENTRIES) throw new SourceFormatError(this.name, line, `more than ${MAX_ENTRIES} entries`);
    this.seen.add(key);
    this.ranges.push({ family: 4, start: BigInt(start), end: BigInt(end), provider: null });
  }

  /** iprange's counts: ranges after merging overlapping and adjacent entries, and the addresses they hold. */
  merged(): { ranges: number; addresses: number } {
    const sorted = [...this.ranges].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    let ranges = 0;
    let addresses = 0n;
    let end = -1n;
    let start = 0n;
    for (const range of sorted) {
      if (range.start > end + 1n) {
        if (end >= 0n) addresses += end - start + 1n;
        ranges++;
        start = range.start;
        end = range.end;
      } else if (range.end > end) {
        end = range.end;
      }
    }
    if (end >= 0n) addresses += end - start + 1n;
    return { ranges, addresses: Number(addresses) };
  }

  done(date: string | null): FeedListing {
    if (this.ranges.length === 0) {
      throw new SourceFormatError(this.name, 0, 'lists no address: an empty list would make every address "not a proxy"');
    }
    return { ranges: this.ranges, date };
  }
}

function fileLines(file: string, name: string, bounds: LineBounds): AsyncGenerator<NumberedLine> {
  return linesOf(fs.createReadStream(file, { highWaterMark: 1 << 20 }), name, bounds);
}

/** `date -u`'s `Mon Nov 21 08:42:01 UTC 2016` → ISO `2016-11-21T08:42:01Z`; null when not a real date of that weekday. */
function posixDate(text: string): string | null {
  const match = POSIX_DATE.exec(text);
  if (match === null) return null;
  const [, weekday, monthName, dayText, hour, minute, second, year] = match;
  const month = MONTHS.indexOf(monthName);
  const day = Number(dayText.trim());
  const time = new Date(Date.UTC(Number(year), month, day, Number(hour), Number(minute), Number(second)));
  if (
    month < 0 ||
    time.getUTCMonth() !== month ||
    time.getUTCDate() !== day ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 59
  ) {
    return null;
  }
  if (WEEKDAYS[time.getUTCDay()] !== weekday) return null;
  return `${year}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}T${hour}:${minute}:${second}Z`;
}

function quoted(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
