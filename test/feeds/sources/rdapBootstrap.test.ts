/**
 * IANA's RDAP bootstrap files (RFC 9224) on their real form (test/fixtures/publishers/data.iana.org,
 * provenance in feeds-rdap-README.md) and on a corpus of bad files.
 */
import { describe, expect, it } from 'vitest';
import { RDAP_BOOTSTRAP_MAX_BYTES, RDAP_BOOTSTRAP_URLS, readRdapBootstrap } from '../../../src/feeds/sources/rdapBootstrap.js';
import { SourceFormatError } from '../../../src/tables/sources/textLines.js';
import { fixtureOf, scratchFiles, v4 } from './feedFiles.js';

const file = scratchFiles('rdap-bootstrap');

function refusal(run: () => unknown): SourceFormatError {
  let error: unknown = null;
  try {
    run();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(SourceFormatError);
  return error as SourceFormatError;
}

const bootstrap = (services: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    description: 'RDAP bootstrap file for IPv4 address allocations',
    publication: '2026-11-24T19:00:01Z',
    services,
    version: '1.0',
    ...extra,
  });

describe('readRdapBootstrap', () => {
  it("reads IANA's IPv4 file: every /8 with its registry's HTTPS service", () => {
    const read = readRdapBootstrap(fixtureOf(RDAP_BOOTSTRAP_URLS.ipv4), 4);
    expect(read.date).toBe('2026-11-24T19:00:01Z');
    expect(read.withoutHttps).toBe(0);
    expect(read.ranges).toHaveLength(221);
    const serviceOf = (address: string) => read.ranges.find((r) => r.start <= v4(address) && v4(address) <= r.end)?.value;
    // ARIN and AFRINIC list an http URL beside the https one: the https one is taken
    expect(serviceOf('8.8.8.8')).toBe('https://rdap.arin.net/registry/');
    expect(serviceOf('41.1.1.1')).toBe('https://rdap.afrinic.net/rdap/');
    expect(serviceOf('1.1.1.1')).toBe('https://rdap.apnic.net/');
    expect(serviceOf('193.0.6.139')).toBe('https://rdap.db.ripe.net/');
    expect(serviceOf('200.7.84.1')).toBe('https://rdap.lacnic.net/rdap/');
    // IANA-reserved blocks have no service
    expect(serviceOf('10.0.0.1')).toBeUndefined();
    expect(serviceOf('127.0.0.1')).toBeUndefined();
  });

  it("reads IANA's IPv6 file", () => {
    const read = readRdapBootstrap(fixtureOf(RDAP_BOOTSTRAP_URLS.ipv6), 6);
    expect(read.ranges).toHaveLength(33);
    const arin = read.ranges.find((r) => r.start === 0x2600n << 112n);
    expect(arin).toEqual({ family: 6, start: 0x2600n << 112n, end: (0x2610n << 112n) - 1n, value: 'https://rdap.arin.net/registry/' });
  });

  it('leaves out a service with no HTTPS URL, and counts it', () => {
    const read = readRdapBootstrap(
      file(
        bootstrap([
          [['8.0.0.0/8'], ['https://rdap.arin.net/registry/']],
          [['9.0.0.0/8'], ['http://rdap.example.net/']],
        ]),
      ),
      4,
    );
    expect(read.ranges.map((r) => r.value)).toEqual(['https://rdap.arin.net/registry/']);
    expect(read.withoutHttps).toBe(1);
  });

  const bad: [string, string, RegExp][] = [
    ['not JSON', '{"services": [', /not JSON/],
    ['a list at the top', '[]', /not a JSON object/],
    ['another version', bootstrap([], { version: '2.0' }), /"version"/],
    ['no publication', bootstrap([[['8.0.0.0/8'], ['https://a.example/']]], { publication: undefined }), /"publication"/],
    ['a publication that is no time', bootstrap([[['8.0.0.0/8'], ['https://a.example/']]], { publication: 'yesterday' }), /"publication"/],
    ['services not a list', bootstrap({}), /"services" is not a list/],
    ['a service not a pair', bootstrap([[['8.0.0.0/8']]]), /service 1: is not a pair/],
    ['a service with no block', bootstrap([[[], ['https://a.example/']]]), /service 1: has no block/],
    ['a block that is no CIDR', bootstrap([[['8'], ['https://a.example/']]]), /service 1: "8" is not a CIDR block/],
    ['a block with host bits', bootstrap([[['8.1.0.0/8'], ['https://a.example/']]]), /host bits/],
    ['a block of the other family', bootstrap([[['2600::/12'], ['https://a.example/']]]), /not an IPv4 block/],
    ['a base URL without its slash', bootstrap([[['8.0.0.0/8'], ['https://a.example/rdap']]]), /does not end in "\/"/],
    ['a base URL of another scheme', bootstrap([[['8.0.0.0/8'], ['ftp://a.example/']]]), /not an http\(s\) base URL/],
    ['a base URL with a query', bootstrap([[['8.0.0.0/8'], ['https://a.example/?q=1/']]]), /not an http\(s\) base URL/],
    ['a base URL that is no URL', bootstrap([[['8.0.0.0/8'], ['rdap here/']]]), /is not a URL/],
    ['no HTTPS service at all', bootstrap([[['8.0.0.0/8'], ['http://a.example/']]]), /no block with an HTTPS service/],
    ['JSON nested past the bound', `{"services": ${'['.repeat(100)}${']'.repeat(100)}}`, /nested deeper/],
  ];
  it.each(bad)('refuses %s', (_what, content, message) => {
    expect(refusal(() => readRdapBootstrap(file(content), 4)).message).toMatch(message);
  });

  it('refuses a file past its size bound, and one that is not UTF-8', () => {
    expect(refusal(() => readRdapBootstrap(file(Buffer.alloc(RDAP_BOOTSTRAP_MAX_BYTES + 1, 32)), 4)).message).toMatch(
      /more than the bound/,
    );
    expect(refusal(() => readRdapBootstrap(file(Buffer.from([0x7b, 0xff, 0x7d])), 4)).message).toMatch(/not UTF-8/);
  });
});
