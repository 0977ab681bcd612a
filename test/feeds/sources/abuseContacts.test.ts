/**
 * The abuse mailboxes of the RIRs' dumps: the three fixtures derived whole (exact ranges and
 * mailboxes: own abuse-c, inner ranges deferring to outer ones, organisation-inherited, irt, a role
 * without a mailbox, malformed and masked mailboxes, RIPE's stop at its own maintainers), the mailbox
 * rule, a bad-data corpus, and the "smallest covering range wins" sweep against a brute force.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { formatIPv4, parseIPv4 } from '../../../src/address/ipAddress.js';
import {
  ABUSE_DUMP_URLS,
  mostSpecificRanges,
  readAbuseContacts,
  type AbuseDumpFiles,
  type AbuseRangeTable,
  type DecidingRange,
} from '../../../src/feeds/sources/abuseContacts.js';
import { isAbuseMailbox } from '../../../src/feeds/abuseMailbox.js';
import { SourceFormatError } from '../../../src/tables/sources/textLines.js';

const ROOT = path.join(import.meta.dirname, '..', '..', 'fixtures', 'publishers');
const local = (url: string) => path.join(ROOT, new URL(url).host, new URL(url).pathname);
const filesOf = (urls: Readonly<AbuseDumpFiles>): AbuseDumpFiles =>
  Object.fromEntries(Object.entries(urls).map(([name, url]) => [name, local(url)])) as unknown as AbuseDumpFiles;

const v4 = (text: string) => BigInt(parseIPv4(text));
const v6 = (hex: string) => BigInt(`0x${hex}`);
const rows4 = (table: AbuseRangeTable) => [...table].map((r) => `${formatIPv4(Number(r.start))} - ${formatIPv4(Number(r.end))} ${r.email}`);
const rows6 = (table: AbuseRangeTable) => [...table].map((r) => `${r.start.toString(16)} - ${r.end.toString(16)} ${r.email}`);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'abuse-contacts-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let written = 0;
function dumpFile(text: string): string {
  const file = path.join(scratch, `dump-${written++}.gz`);
  fs.writeFileSync(file, gzipSync(Buffer.from(text, 'latin1')));
  return file;
}

describe('the fixtures', async () => {
  const ripe = await readAbuseContacts(filesOf(ABUSE_DUMP_URLS.ripencc), 'ripencc');
  const apnic = await readAbuseContacts(filesOf(ABUSE_DUMP_URLS.apnic), 'apnic');
  const afrinic = await readAbuseContacts(filesOf(ABUSE_DUMP_URLS.afrinic), 'afrinic');

  it('lie at the publishers’ URLs under the mirror layout', () => {
    for (const urls of Object.values(ABUSE_DUMP_URLS)) for (const url of Object.values(urls)) expect(fs.existsSync(local(url))).toBe(true);
    expect(new Set(Object.values(ABUSE_DUMP_URLS.afrinic))).toEqual(new Set(['https://ftp.afrinic.net/dbase/afrinic.db.gz']));
  });

  it('RIPE NCC: every IPv4 range and its mailbox', () => {
    expect(rows4(ripe.ipv4)).toEqual([
      // Amazon's assignment has no contact and defers to the allocation around it
      '46.137.0.0 - 46.137.255.255 trustandsafety@support.aws.com',
      // organisations' abuse-c
      '164.132.160.0 - 164.132.175.255 abuse@ovh.net',
      '185.13.112.0 - 185.13.113.255 info@mtel.ru',
      // the outer range, its inner one with its own abuse-c (written with a comment), one without any
      // contact and one whose abuse-c role has no mailbox (the dump leaves it out) deferring to it
      '192.0.2.0 - 192.0.2.63 abuse@example.net',
      '192.0.2.64 - 192.0.2.127 noc@example.org',
      '192.0.2.128 - 192.0.2.255 abuse@example.net',
      // abuse-c ops4-ripe, written in lower case by the organisation
      '193.0.0.0 - 193.0.7.255 abuse@ripe.net',
      // a PI assignment maintained by RIPE-NCC-END-MNT with an organisation's contact
      '195.95.139.0 - 195.95.139.255 abuse@wn.dn.ua',
      // 198.51.100.0/25: its role's mailbox is malformed; /25 above: the same, its organisation's instead
      '198.51.100.128 - 198.51.100.255 abuse@example.net',
      // the allocation maintained by RIPE-NCC-HM-MNT has no contact: RIPE stops there, for what it holds too
      '203.0.112.0 - 203.0.112.255 abuse@registry.example',
      '203.0.113.64 - 203.0.113.127 noc@example.org',
      '203.0.114.0 - 203.0.115.255 abuse@registry.example',
    ]);
    expect(ripe.ipv4.emailOf(v4('109.169.10.1'))).toBeNull(); // RapidSwitch: RS-maintained, its org's role not in the fixture
    expect(ripe.ipv4.emailOf(v4('203.0.113.1'))).toBeNull();
    expect(ripe.ipv4.emailOf(v4('198.51.100.1'))).toBeNull();
    expect(ripe.ipv4.emailOf(v4('192.0.2.200'))).toBe('abuse@example.net');
    expect(ripe.ipv4.emailOf(v4('46.137.1.1'))).toBe('trustandsafety@support.aws.com');
    expect(ripe.ipv4.emailOf(v4('0.0.0.0'))).toBeNull();
    expect(ripe.ipv4.emailOf(v4('255.255.255.255'))).toBeNull();
  });

  it('RIPE NCC: IPv6, the counts per file, the mailboxes once each', () => {
    expect(rows6(ripe.ipv6)).toEqual([
      '20010db8000000000000000000000000 - 20010db80000ffffffffffffffffffff abuse@example.net',
      '20010db8000100000000000000000000 - 20010db80001ffffffffffffffffffff noc@example.org',
      '20010db8000200000000000000000000 - 20010db8ffffffffffffffffffffffff abuse@example.net',
      '2a001450000000000000000000000000 - 2a001457ffffffffffffffffffffffff ripe-contact@google.com',
    ]);
    expect(ripe.ipv6.emailOf(v6('2a00145040000000000000000000abcd'))).toBe('ripe-contact@google.com');
    expect(ripe.files.map(({ file, ...rest }) => ({ file: path.basename(file), ...rest }))).toEqual([
      { file: 'ripe.db.inetnum.gz', objects: 17, ranges: 17, withMailbox: 10, mailboxesDropped: 0 },
      { file: 'ripe.db.inet6num.gz', objects: 5, ranges: 5, withMailbox: 3, mailboxesDropped: 0 },
      // "abuse at example.com" and "Abuse Desk <abuse@example.com>"
      { file: 'ripe.db.role.gz', objects: 13, ranges: 0, withMailbox: 0, mailboxesDropped: 2 },
      { file: 'ripe.db.organisation.gz', objects: 10, ranges: 0, withMailbox: 0, mailboxesDropped: 0 },
    ]);
    expect([...ripe.mailboxes].sort()).toEqual(
      [
        'abuse@example.net',
        'abuse@ovh.net',
        'abuse@registry.example',
        'abuse@ripe.net',
        'abuse@wn.dn.ua',
        'info@mtel.ru',
        'noc@example.org',
        'ripe-contact@google.com',
        'trustandsafety@support.aws.com',
      ].sort(),
    );
    expect(ripe.overlaps).toBe(0);
  });

  it('APNIC: the public files’ masked mailboxes dropped and counted; unmasked ones by abuse-c, organisation and irt', () => {
    expect(rows4(apnic.ipv4)).toEqual([
      '192.0.2.0 - 192.0.2.127 noc@example.org',
      // .128/26 has no contact, .192/26 only masked ones: both defer to the outer range's irt
      '192.0.2.128 - 192.0.2.255 abuse@example.net',
      '198.51.100.0 - 198.51.100.255 noc@example.org',
    ]);
    expect(rows6(apnic.ipv6)).toEqual(['20010db8000000000000000000000000 - 20010db8ffffffffffffffffffffffff abuse@example.net']);
    expect(apnic.ipv4.emailOf(v4('1.1.1.1'))).toBeNull();
    expect(apnic.ipv4.emailOf(v4('101.2.173.1'))).toBeNull();
    expect(apnic.files.map(({ file, ...rest }) => ({ file: path.basename(file), ...rest }))).toEqual([
      { file: 'apnic.db.inetnum.gz', objects: 8, ranges: 8, withMailbox: 3, mailboxesDropped: 0 },
      { file: 'apnic.db.inet6num.gz', objects: 2, ranges: 2, withMailbox: 1, mailboxesDropped: 0 },
      { file: 'apnic.db.role.gz', objects: 3, ranges: 0, withMailbox: 0, mailboxesDropped: 1 },
      { file: 'apnic.db.organisation.gz', objects: 2, ranges: 0, withMailbox: 0, mailboxesDropped: 0 },
      { file: 'apnic.db.irt.gz', objects: 4, ranges: 0, withMailbox: 0, mailboxesDropped: 3 },
    ]);
  });

  it('AFRINIC: one file of every class; admin-c roles with mailboxes are not abuse contacts', () => {
    expect(rows4(afrinic.ipv4)).toEqual([
      // .0/26's abuse-c role has no mailbox: the outer range's
      '192.0.2.0 - 192.0.2.127 abuse@example.net',
      // its organisation's abuse-c role has no mailbox either: its irt's
      '192.0.2.128 - 192.0.2.255 irt@example.org',
    ]);
    expect(rows6(afrinic.ipv6)).toEqual(['20010db8000000000000000000000000 - 20010db8ffffffffffffffffffffffff abuse@example.net']);
    expect(afrinic.ipv4.emailOf(v4('197.50.1.1'))).toBeNull(); // TE Data: AFRINIC answers "No abuse contact registered"
    expect(afrinic.mailboxes).toEqual(['abuse@example.net', 'irt@example.org']);
    expect(afrinic.files).toEqual([
      { file: local(ABUSE_DUMP_URLS.afrinic.inetnum), objects: 17, ranges: 8, withMailbox: 3, mailboxesDropped: 0 },
    ]);
  });

  it('RIPE NCC without irt files reads no irt; APNIC reads the same inetnums through them', async () => {
    const { irt: _irt, ...withoutIrt } = filesOf(ABUSE_DUMP_URLS.apnic);
    const noIrt = await readAbuseContacts(withoutIrt, 'apnic');
    expect(rows4(noIrt.ipv4)).toEqual(['192.0.2.0 - 192.0.2.127 noc@example.org', '198.51.100.0 - 198.51.100.255 noc@example.org']);
  });
});

describe('isAbuseMailbox', () => {
  it('takes plain ASCII addresses of a host name', () => {
    for (const good of [
      'abuse@ripe.net',
      'a.b-c+d@mail.example.co.uk',
      "o'neil@example.org",
      'x@xn--bcher-kva.example',
      `${'l'.repeat(64)}@example.com`,
    ]) {
      expect(isAbuseMailbox(good), good).toBe(true);
    }
  });
  it('drops what is not one', () => {
    for (const bad of [
      '********',
      '***@example.com',
      '*.*@example.com',
      'abuse at example.com',
      'Abuse Desk <abuse@example.com>',
      '<abuse@example.com>',
      'abuse@example',
      'abuse@@example.com',
      'a@b@example.com',
      '@example.com',
      'abuse@',
      '.abuse@example.com',
      'ab..use@example.com',
      'abuse@-example.com',
      'abuse@example-.com',
      'abuse@example..com',
      'abuse@[192.0.2.1]',
      'abuse@192.0.2.1',
      '"abuse desk"@example.com',
      'abuse desk@example.com',
      'abus\u00e9@example.com',
      'abuse@b\u00fccher.example',
      `${'l'.repeat(65)}@example.com`,
      `a@${'x'.repeat(64)}.com`,
      `a@${'abcdefghi.'.repeat(25)}com`,
      '',
    ]) {
      expect(isAbuseMailbox(bad), bad).toBe(false);
    }
  });
});

describe('bad data', () => {
  const role = (handle: string, mailbox: string) => `role: R\nnic-hdl: ${handle}\nabuse-mailbox: ${mailbox}\n\n`;
  const read = (inetnums: string, roles = role('A1-TEST', 'abuse@example.net'), registry: 'ripencc' | 'apnic' = 'ripencc') =>
    readAbuseContacts({ inetnum: dumpFile(inetnums), role: dumpFile(roles) }, registry);
  const refused = async (promise: Promise<unknown>, message: RegExp) => {
    const error = await promise.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceFormatError);
    expect(String(error)).toMatch(message);
  };

  it('refuses ranges not in the RIR’s form, naming file and line', async () => {
    await refused(read('inetnum: 192.0.2.0/24\nabuse-c: A1-TEST\n'), /dump-\d+\.gz:1: inetnum "192.0.2.0\/24" is not "a.b.c.d - e.f.g.h"/);
    await refused(read('inetnum: 192.0.2.9 - 192.0.2.1\n'), /:1: inetnum "192.0.2.9 - 192.0.2.1" ends before it starts/);
    await refused(read('inetnum: 192.0.2.01 - 192.0.2.10\n'), /:1: inetnum .* is not/);
    await refused(
      read('inetnum: 192.0.2.0 - 192.0.2.255\n\nrole: X\nnic-hdl: X1-TEST\n'),
      /:3: a role object in a file of inetnum objects/,
    );
    const six = (key: string) =>
      readAbuseContacts({ inetnum: dumpFile('inetnum: 192.0.2.0 - 192.0.2.255\n'), inet6num: dumpFile(`inet6num: ${key}\n`) }, 'ripencc');
    await refused(six('2001:db8::1/32'), /:1: inet6num "2001:db8::1\/32" has bits set past its \/32/);
    await refused(six('2001:db8::/129'), /:1: inet6num .* is not "prefix\/length"/);
    await refused(six('2001:db8:: - 2001:db8::ff'), /:1: inet6num .* is not "prefix\/length"/);
    await refused(six('2001:db8::/32 2001:db9::/32'), /is not "prefix\/length"/);
    // an end-of-line comment is not part of the key
    expect((await six('2001:db8::/32 # 2001:db9::/32')).files[1].ranges).toBe(1);
  });

  it('refuses a file without its class, a role without nic-hdl, a handle defined twice', async () => {
    await refused(read('\n'), /: no inetnum object in the file/);
    await refused(read('inetnum: 192.0.2.0 - 192.0.2.255\n', 'role: R\nabuse-mailbox: a@example.net\n'), /:1: a role without nic-hdl/);
    await refused(
      read('inetnum: 192.0.2.0 - 192.0.2.255\n', `${role('A1-TEST', 'a@example.net')}${role('a1-test', 'b@example.net')}`),
      /:5: role A1-TEST is defined twice \(first on line 1\)/,
    );
  });

  it('drops a malformed mailbox without failing the file', async () => {
    const contacts = await read(
      'inetnum: 192.0.2.0 - 192.0.2.255\nabuse-c: A1-TEST\n\ninetnum: 198.51.100.0 - 198.51.100.255\nabuse-c: B1-TEST\n',
      `${role('A1-TEST', 'abuse@example.net # the desk')}${role('B1-TEST', 'not a mailbox')}`,
    );
    expect(rows4(contacts.ipv4)).toEqual(['192.0.2.0 - 192.0.2.255 abuse@example.net']);
    expect(contacts.files[1].mailboxesDropped).toBe(1);
  });

  it('decides crossing ranges by size, the smaller first, and counts them', async () => {
    const contacts = await read(
      [
        'inetnum: 10.0.0.0 - 10.0.0.199\nabuse-c: A1-TEST\n',
        'inetnum: 10.0.0.100 - 10.0.0.255\nabuse-c: B1-TEST\n',
        // one size, two mailboxes: the one read first wins
        'inetnum: 10.0.1.0 - 10.0.1.99\nabuse-c: B1-TEST\n',
        'inetnum: 10.0.1.50 - 10.0.1.149\nabuse-c: A1-TEST\n',
        // nested, sharing a start, the inner one listed first: nested, not crossing
        'inetnum: 10.0.2.0 - 10.0.2.63\nabuse-c: A1-TEST\n',
        'inetnum: 10.0.2.0 - 10.0.2.255\nabuse-c: B1-TEST\n',
      ].join('\n'),
      `${role('A1-TEST', 'a@example.net')}${role('B1-TEST', 'b@example.net')}`,
    );
    expect(rows4(contacts.ipv4)).toEqual([
      '10.0.0.0 - 10.0.0.99 a@example.net',
      // adjacent and of one mailbox: joined
      '10.0.0.100 - 10.0.1.99 b@example.net',
      '10.0.1.100 - 10.0.1.149 a@example.net',
      '10.0.2.0 - 10.0.2.63 a@example.net',
      '10.0.2.64 - 10.0.2.255 b@example.net',
    ]);
    expect(contacts.overlaps).toBe(2);
  });

  it('covers the whole space up to its last address', async () => {
    const contacts = await readAbuseContacts(
      {
        inetnum: dumpFile(
          'inetnum: 0.0.0.0 - 255.255.255.255\nabuse-c: A1-TEST\n\ninetnum: 255.255.255.0 - 255.255.255.255\nabuse-c: B1-TEST\n',
        ),
        inet6num: dumpFile('inet6num: ::/0\nabuse-c: A1-TEST\n\ninet6num: ffff::/16\nabuse-c: B1-TEST\n'),
        role: dumpFile(`${role('A1-TEST', 'a@example.net')}${role('B1-TEST', 'b@example.net')}`),
      },
      'ripencc',
    );
    expect(rows4(contacts.ipv4)).toEqual(['0.0.0.0 - 255.255.254.255 a@example.net', '255.255.255.0 - 255.255.255.255 b@example.net']);
    expect(rows6(contacts.ipv6)).toEqual([
      `0 - fffeffffffffffffffffffffffffffff a@example.net`,
      `ffff0000000000000000000000000000 - ${'f'.repeat(32)} b@example.net`,
    ]);
  });
});

describe('the sweep', () => {
  it('by hand: nested, a stop hiding its parent, adjacent segments of one mailbox joined', () => {
    const r = (start: number, end: number, value: number): DecidingRange => ({ start: BigInt(start), end: BigInt(end), value });
    expect(mostSpecificRanges(4, [r(0, 99, 0), r(10, 19, 1), r(20, 29, 0), r(40, 59, -1), r(45, 49, 2), r(200, 210, 1)])).toEqual([
      r(0, 9, 0),
      r(10, 19, 1),
      r(20, 39, 0),
      r(45, 49, 2),
      r(60, 99, 0),
      r(200, 210, 1),
    ]);
    expect(mostSpecificRanges(6, [])).toEqual([]);
  });

  /** At every address, the smallest covering range (ties: the first listed) decides; -1 decides "none". */
  function bruteForce(ranges: DecidingRange[], space: number): (number | null)[] {
    const answer: (number | null)[] = [];
    for (let x = 0; x < space; x++) {
      let best = -1;
      ranges.forEach((range, i) => {
        if (range.start > BigInt(x) || BigInt(x) > range.end) return;
        if (best < 0 || range.end - range.start < ranges[best].end - ranges[best].start) best = i;
      });
      answer.push(best < 0 || ranges[best].value < 0 ? null : ranges[best].value);
    }
    return answer;
  }

  function paint(segments: DecidingRange[], space: number, base = 0n): (number | null)[] {
    const answer: (number | null)[] = new Array(space).fill(null);
    for (let i = 0; i < segments.length; i++) {
      const { start, end, value } = segments[i];
      if (i > 0) {
        expect(start > segments[i - 1].end).toBe(true); // sorted, disjoint
        if (start === segments[i - 1].end + 1n) expect(value).not.toBe(segments[i - 1].value); // joined
      }
      for (let x = start; x <= end; x++) answer[Number(x - base)] = value;
    }
    return answer;
  }

  it('matches a brute force on seeded random ranges, nested and crossing, in both families', () => {
    let seed = 20261115;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const IPV6_TOP = (1n << 128n) - 1n;
    for (let trial = 0; trial < 400; trial++) {
      const space = 8 + random(250);
      const count = random(60);
      const ranges: DecidingRange[] = [];
      for (let i = 0; i < count; i++) {
        const a = random(space);
        // mostly nested-looking short ranges, some long ones that cross
        const b = random(4) === 0 ? random(space) : Math.min(space - 1, a + random(16));
        ranges.push({ start: BigInt(Math.min(a, b)), end: BigInt(Math.max(a, b)), value: random(6) - 1 });
      }
      const expected = bruteForce(ranges, space);
      expect(paint(mostSpecificRanges(4, ranges), space)).toEqual(expected);
      // the same at the top of the IPv6 space, where the sweep must stop at the last address
      const base = IPV6_TOP - BigInt(space - 1);
      const shifted = ranges.map((r) => ({ ...r, start: r.start + base, end: r.end + base }));
      expect(paint(mostSpecificRanges(6, shifted), space, base)).toEqual(expected);
    }
  });
});

describe('ABUSE_DUMP_URLS', () => {
  it('name each RIR’s published files', () => {
    const all = Object.values(ABUSE_DUMP_URLS).flatMap((files) => Object.values(files));
    for (const url of all)
      expect(url).toMatch(/^https:\/\/ftp\.(ripe\.net\/ripe\/dbase\/split|apnic\.net\/apnic\/whois|afrinic\.net\/dbase)\/[a-z0-9.-]+\.gz$/);
    expect(ABUSE_DUMP_URLS.ripencc.irt).toBeUndefined();
  });
});
