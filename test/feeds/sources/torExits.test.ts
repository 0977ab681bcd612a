/**
 * The Tor exit readers on the publishers' real formats (test/fixtures/publishers, provenance in
 * feeds-tor-proxy-README.md) and on a corpus of bad files.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FeedListing, ListedRange } from '../../../src/feeds/sources/feedListing.js';
import {
  ONIONOO_EXITS_URL,
  ONIONOO_MAX_BYTES,
  readOnionooExits,
  readTorBulkExitList,
  readTorExitAddresses,
  TOR_BULK_EXIT_LIST_URL,
  TOR_EXIT_ADDRESSES_URL,
} from '../../../src/feeds/sources/torExits.js';
import { SourceFormatError } from '../../../src/tables/sources/textLines.js';
import { fixtureOf, scratchFiles, v4 } from './feedFiles.js';

const BULK = fixtureOf(TOR_BULK_EXIT_LIST_URL);
const EXIT_ADDRESSES = fixtureOf(TOR_EXIT_ADDRESSES_URL);
const ONIONOO = fixtureOf(ONIONOO_EXITS_URL);

const file = scratchFiles('tor');
const one4 = (text: string): ListedRange => ({ family: 4, start: v4(text), end: v4(text), provider: null });
const one6 = (value: bigint): ListedRange => ({ family: 6, start: value, end: value, provider: null });

async function refusal(promise: Promise<FeedListing>): Promise<SourceFormatError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SourceFormatError);
  return error as SourceFormatError;
}

describe('readTorBulkExitList', () => {
  it('reads every address of the real list once, with no date', async () => {
    const listing = await readTorBulkExitList(BULK, TOR_BULK_EXIT_LIST_URL);
    expect(listing.date).toBeNull();
    expect(listing.ranges).toHaveLength(24);
    expect(listing.ranges[0]).toEqual(one4('93.95.230.253'));
    expect(listing.ranges[23]).toEqual(one4('23.128.248.35'));
    expect(listing.ranges).toContainEqual(one4('192.42.116.13'));
    expect(listing.ranges.every((r) => r.family === 4 && r.start === r.end && r.provider === null)).toBe(true);
  });

  it('keeps a private address as listed, and an address listed twice once', async () => {
    const listing = await readTorBulkExitList(file('10.1.2.3\n185.220.101.18\n10.1.2.3\n'));
    expect(listing.ranges).toEqual([one4('10.1.2.3'), one4('185.220.101.18')]);
  });

  it.each([
    ['an empty file', '', 0, /lists no exit/],
    ['a blank line', '185.220.101.18\n\n', 2, /blank line/],
    ['a comment (the old TorBulkExitList.py header)', '# This is a list of all Tor exit nodes\n185.220.101.18\n', 1, /not an IPv4 address/],
    ['a bad address', '185.220.101.18\n185.220.101.256\n', 2, /not an IPv4 address: "185.220.101.256"/],
    ['a leading zero', '185.220.101.018\n', 1, /not an IPv4 address/],
    ['an IPv6 address', '2001:db8::1\n', 1, /not an IPv4 address/],
    ['a CIDR block', '185.220.101.0/24\n', 1, /not an IPv4 address/],
    ['a trailing space', '185.220.101.18 \n', 1, /not an IPv4 address/],
    ['a line past the bound', `${'1'.repeat(100)}\n`, 1, /longer than 64/],
    ['HTML served in its place', '<html><body>Service Unavailable</body></html>\n', 1, /not an IPv4 address/],
  ])('refuses %s', async (_case, content, line, message) => {
    const error = await refusal(readTorBulkExitList(file(content), 'torbulkexitlist'));
    expect(error.file).toBe('torbulkexitlist');
    expect(error.line).toBe(line);
    expect(error.message).toMatch(message);
  });
});

describe('readTorExitAddresses', () => {
  it('reads every ExitAddress of the real list once, dated by the newest LastStatus', async () => {
    const listing = await readTorExitAddresses(EXIT_ADDRESSES, TOR_EXIT_ADDRESSES_URL);
    expect(listing.date).toBe('2024-03-12T14:00:00Z');
    // 12 ExitAddress lines: 89.58.26.216 is listed by two relays.
    expect(listing.ranges).toHaveLength(11);
    expect(listing.ranges[0]).toEqual(one4('185.241.208.232'));
    expect(listing.ranges.filter((r) => r.start === v4('89.58.26.216'))).toHaveLength(1);
    // The block with two ExitAddress lines gives both.
    expect(listing.ranges).toContainEqual(one4('37.48.65.71'));
    expect(listing.ranges).toContainEqual(one4('37.48.74.44'));
    expect(listing.ranges[10]).toEqual(one4('141.98.168.54'));
  });

  const BLOCK = [
    'ExitNode 0DC16FEAA5A5E27A974009CBF7748BB6FAAE6DE1',
    'Published 2024-03-12 06:06:00',
    'LastStatus 2024-03-12 14:00:00',
    'ExitAddress 80.67.167.81 2024-03-12 14:13:46',
  ];
  const text = (...lines: string[]): string => `${lines.join('\n')}\n`;

  it('takes the date from Published when it is the newest', async () => {
    const listing = await readTorExitAddresses(file(text(BLOCK[0], 'Published 2024-03-12 15:00:01', ...BLOCK.slice(2))));
    expect(listing).toEqual({ ranges: [one4('80.67.167.81')], date: '2024-03-12T15:00:01Z' });
  });

  it.each([
    ['an empty file', '', 0, /lists no exit/],
    ['an ExitAddress before any ExitNode', text(BLOCK[3], ...BLOCK), 1, /before the first ExitNode/],
    ['a block with no ExitAddress', text(...BLOCK.slice(0, 3), ...BLOCK), 4, /block of line 1 has no ExitAddress/],
    ['a file cut after LastStatus', text(...BLOCK, ...BLOCK.slice(0, 3)), 7, /block of line 5 has no ExitAddress/],
    ['a block with no Published', text(BLOCK[0], BLOCK[2], BLOCK[3]), 3, /no Published/],
    ['a second LastStatus', text(...BLOCK.slice(0, 3), BLOCK[2], BLOCK[3]), 4, /a second LastStatus/],
    ['a short fingerprint', text(`${BLOCK[0].slice(0, -1)}`, ...BLOCK.slice(1)), 1, /fingerprint/],
    ['a lower-case fingerprint', text(BLOCK[0].toLowerCase().replace('exitnode', 'ExitNode'), ...BLOCK.slice(1)), 1, /fingerprint/],
    ['a day that does not exist', text(BLOCK[0], 'Published 2024-02-30 06:06:00', ...BLOCK.slice(2)), 2, /not a time/],
    ['an hour past 23', text(BLOCK[0], BLOCK[1], 'LastStatus 2024-03-12 24:00:00', BLOCK[3]), 3, /not a time/],
    ['a bad exit address', text(...BLOCK.slice(0, 3), 'ExitAddress 80.67.167.281 2024-03-12 14:13:46'), 4, /not an IPv4 exit address/],
    ['an IPv6 exit address', text(...BLOCK.slice(0, 3), 'ExitAddress 2001:db8::1 2024-03-12 14:13:46'), 4, /not an IPv4 exit address/],
    ['an ExitAddress without its time', text(...BLOCK.slice(0, 3), 'ExitAddress 80.67.167.81'), 4, /not an IPv4 exit address/],
    ['CollecTor\'s "@type" header', text('@type tordnsel 1.0', 'Downloaded 2024-03-12 14:30:00', ...BLOCK), 1, /before the first ExitNode/],
    ['a blank line between blocks', text(...BLOCK, '', ...BLOCK), 5, /blank line/],
    ['an unknown line', text(...BLOCK, 'Nickname foo'), 5, /not a line of an exit list/],
    ['a line past the bound', text(...BLOCK, `ExitAddress ${'9'.repeat(200)}`), 5, /longer than 128/],
  ])('refuses %s', async (_case, content, line, message) => {
    const error = await refusal(readTorExitAddresses(file(content), 'exit-addresses'));
    expect(error.file).toBe('exit-addresses');
    expect(error.line).toBe(line);
    expect(error.message).toMatch(message);
  });
});

describe('readOnionooExits', () => {
  const RELAYS_2A0B = 0x2a0bf4c2000100000000000000000138n;
  const RELAYS_2001 = 0x200141d0070010a20000000000000000n;

  it('reads the measured exit addresses, and the IPv6 OR addresses of relays that exit to IPv6', async () => {
    const listing = await readOnionooExits(ONIONOO, ONIONOO_EXITS_URL);
    expect(listing.date).toBe('2021-10-09T14:00:00Z');
    expect(listing.ranges).toEqual([
      one4('128.31.0.13'),
      one4('185.220.101.138'),
      one6(RELAYS_2A0B),
      one4('54.36.108.162'),
      one6(RELAYS_2001),
      one4('194.53.137.42'),
      one4('43.159.138.176'),
      one4('37.228.129.128'),
    ]);
    // moria1 and csailmitnoexit (no exit addresses) are not listed, nor the IPv6 of MoorishArt
    // (no IPv6 exit policy), nor any IPv4 OR address that is not also a measured exit address.
    expect(listing.ranges).not.toContainEqual(one4('128.31.0.34'));
  });

  it('leaves the IPv6 listening addresses out when asked', async () => {
    const listing = await readOnionooExits(ONIONOO, ONIONOO_EXITS_URL, { ipv6ListenAddresses: false });
    expect(listing.ranges).toHaveLength(6);
    expect(listing.ranges.every((r) => r.family === 4)).toBe(true);
  });

  const relay = (fields: Record<string, unknown>): Record<string, unknown> => ({
    fingerprint: 'A53C46F5B157DD83366D45A8E99A244934A14C46',
    or_addresses: ['128.31.0.13:443', '[2001:db8::13]:443'],
    exit_addresses: ['128.31.0.13'],
    running: true,
    ...fields,
  });
  const document = (relays: unknown[], top: Record<string, unknown> = {}): string =>
    JSON.stringify({
      version: '8.0',
      relays_published: '2021-10-09 14:00:00',
      relays,
      bridges_published: '2021-10-09 13:50:40',
      bridges: [],
      ...top,
    });

  it('reads IPv6 exits as the policy summary says: a reject list that leaves a port open exits, one of 1-65535 does not', async () => {
    const read = (summary: unknown) => readOnionooExits(file(document([relay({ exit_policy_v6_summary: summary })])));
    const open = await read({ reject: ['1-24', '26-65535'] });
    expect(open.ranges).toEqual([one4('128.31.0.13'), one6(0x20010db8000000000000000000000013n)]);
    expect((await read({ reject: ['1-65535'] })).ranges).toEqual([one4('128.31.0.13')]);
    expect((await read({ reject: ['1-1000', '500-65535'] })).ranges).toHaveLength(1);
    expect((await read({ accept: ['443'] })).ranges).toHaveLength(2);
  });

  it('skips relays that are not running, keeps reserved and IPv6 exit addresses, and dates by relays_published', async () => {
    const listing = await readOnionooExits(
      file(
        document(
          [
            relay({ running: false, exit_addresses: ['198.51.100.7'] }),
            relay({ fingerprint: '0E3006414320D0B44C0AB473191BEE60FC01F41C', exit_addresses: ['10.0.0.1', '2001:db8::7'] }),
          ],
          { relays_published: '2026-08-22 21:00:00' },
        ),
      ),
    );
    expect(listing).toEqual({ ranges: [one4('10.0.0.1'), one6(0x20010db8000000000000000000000007n)], date: '2026-08-22T21:00:00Z' });
  });

  const fixtureText = fs.readFileSync(ONIONOO, 'utf8');
  it.each([
    ['an empty file', '', /not JSON/],
    ['a truncated document', fixtureText.slice(0, Math.floor(fixtureText.length / 2)), /not JSON/],
    ['HTML served in its place', '<html><body>502 Bad Gateway</body></html>', /not JSON/],
    ['a JSON array', '[]', /not a JSON object/],
    ['a document nested too deep', `{"a":${'['.repeat(20)}${']'.repeat(20)}}`, /nested deeper than 8/],
    ['no version', JSON.stringify({ relays_published: '2021-10-09 14:00:00', relays: [relay({})] }), /no protocol "version"/],
    ['no relays_published', document([relay({})], { relays_published: undefined }), /"relays_published" is not a time/],
    ['a bad relays_published', document([relay({})], { relays_published: '2021-10-09T14:00:00Z' }), /"relays_published" is not a time/],
    ['a limited answer', document([relay({})], { relays_truncated: 7000 }), /partial answer \("relays_truncated" 7000\)/],
    ['no relays array', document([], { relays: { a: 1 } }), /no "relays" array/],
    ['no relay at all', document([]), /lists no exit/],
    ['only relays without exit addresses', document([relay({ exit_addresses: undefined })]), /lists no exit/],
    ['a relay that is not an object', document([null]), /relay 1: not an object/],
    ['a bad fingerprint', document([relay({ fingerprint: 'a53c46f5b157dd83366d45a8e99a244934a14c46' })]), /relay 1: "fingerprint"/],
    ['a relay without "running"', document([relay({ running: undefined })]), /"running" is not true or false/],
    ['"running" as a string', document([relay({ running: 'true' })]), /"running" is not true or false/],
    ['a relay without or_addresses', document([relay({ or_addresses: undefined })]), /"or_addresses" is not a list of strings/],
    ['a number among exit addresses', document([relay({ exit_addresses: [5] })]), /"exit_addresses" is not a list of strings/],
    [
      'a bad exit address',
      document([relay({ exit_addresses: ['128.31.0.256'] })]),
      /relay 1 \(A53C46F5B157DD83366D45A8E99A244934A14C46\): not an exit address/,
    ],
    ['an IPv6 OR address without brackets', document([relay({ or_addresses: ['2001:db8::13:443'] })]), /not an OR address/],
    ['an OR port past 65535', document([relay({ or_addresses: ['128.31.0.13:65536'] })]), /not an OR address/],
    ['an OR address without a port', document([relay({ or_addresses: ['128.31.0.13'] })]), /not an OR address/],
    [
      'a policy summary with both lists',
      document([relay({ exit_policy_v6_summary: { accept: ['80'], reject: ['25'] } })]),
      /one "accept" or "reject"/,
    ],
    ['a policy summary with a port 0', document([relay({ exit_policy_v6_summary: { accept: ['0-80'] } })]), /bad port or range/],
    ['a policy summary with a reversed range', document([relay({ exit_policy_v6_summary: { reject: ['90-80'] } })]), /bad port or range/],
    ['an empty policy list', document([relay({ exit_policy_v6_summary: { accept: [] } })]), /not a list of ports/],
  ])('refuses %s', async (_case, content, message) => {
    const error = await refusal(readOnionooExits(file(content), 'details'));
    expect(error.file).toBe('details');
    expect(error.message).toMatch(message);
  });

  it('refuses a file past the size bound before reading it', async () => {
    const big = file('');
    fs.truncateSync(big, ONIONOO_MAX_BYTES + 1);
    const error = await refusal(readOnionooExits(big, 'details'));
    expect(error.message).toMatch(/more than the bound/);
  });

  it('refuses text that is not UTF-8', async () => {
    const error = await refusal(readOnionooExits(file(Buffer.from([0x7b, 0xff, 0x7d])), 'details'));
    expect(error.message).toMatch(/not UTF-8/);
  });
});
