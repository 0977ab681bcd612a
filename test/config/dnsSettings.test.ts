/**
 * The reverse DNS settings from the environment (src/config/dnsSettings.ts): defaults, the server
 * list's forms as Resolver.setServers takes them (checked against node:dns itself), and the values
 * refused with a message naming the variable.
 */
import { promises as dns } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DNS_SETTINGS, dnsSettingsFromEnv } from '../../src/config/dnsSettings.js';

const servers = (text: string) => dnsSettingsFromEnv({ NETLOOKUP_DNS_SERVERS: text }).servers;

describe('dnsSettingsFromEnv', () => {
  it('has the defaults when nothing is set, or set empty', () => {
    expect(dnsSettingsFromEnv({})).toEqual({ servers: 'system', deadlineMs: 300, cacheSize: 10_000, maxQueries: 64 });
    expect(dnsSettingsFromEnv({ NETLOOKUP_DNS_SERVERS: '', NETLOOKUP_DNS_DEADLINE_MS: '' })).toEqual(DEFAULT_DNS_SETTINGS);
  });

  it('reads off, system and lists of servers with optional ports, in canonical form', () => {
    expect(servers('off')).toBe('off');
    expect(servers('system')).toBe('system');
    expect(servers('192.0.2.53')).toEqual(['192.0.2.53']);
    expect(servers('192.0.2.53:5353, 2001:DB8:0::53,[2001:db8::54]:5300,[2001:db8::55],[2001:db8::56]:53,192.0.2.54:53')).toEqual([
      '192.0.2.53:5353',
      '2001:db8::53',
      '[2001:db8::54]:5300',
      '2001:db8::55',
      '2001:db8::56',
      '192.0.2.54',
    ]);
    expect(servers('::ffff:192.0.2.1')).toEqual(['192.0.2.1']);
  });

  it('gives servers node:dns takes as they are', () => {
    const list = servers('192.0.2.53:5353,2001:db8::53,[2001:db8::54]:5300');
    if (!Array.isArray(list)) throw new Error('a list was expected');
    const resolver = new dns.Resolver();
    resolver.setServers(list);
    expect(resolver.getServers()).toEqual(list);
  });

  it('refuses bad server lists, naming the variable and the value', () => {
    const refused: [string, RegExp][] = [
      ['dns.example.com', /not an IPv4 or IPv6 address/],
      ['192.0.2.53,', /an empty entry/],
      ['192.0.2.053', /not an IPv4/],
      ['192.0.2.53:0', /port must be 1 to 65535/],
      ['192.0.2.53:65536', /port must be 1 to 65535/],
      ['192.0.2.53:053', /port must be 1 to 65535/],
      ['192.0.2.53:', /port must be 1 to 65535/],
      ['[192.0.2.53]:53', /brackets hold an IPv6 address/],
      ['[2001:db8::1]:', /port must be 1 to 65535/],
      ['2001:db8::1:53:', /not an IPv4 or IPv6/],
      ['fe80::1%eth0', /not an IPv4 or IPv6/],
      ['0.0.0.0', /unspecified/],
      ['[::]:53', /unspecified/],
      ['192.0.2.1,192.0.2.1', /given twice/],
      ['192.0.2.1, 192.0.2.1:53', /192.0.2.1 is given twice/],
      [Array.from({ length: 9 }, (_, i) => `192.0.2.${i + 1}`).join(','), /9 servers, at most 8/],
      ['OFF', /not an IPv4/],
      ['192.0.2.53\n', /not an IPv4 or IPv6/],
      ['192.0.2.53,\t192.0.2.54', /not an IPv4 or IPv6/],
    ];
    for (const [text, detail] of refused) {
      expect(() => servers(text), text).toThrow(`NETLOOKUP_DNS_SERVERS=${JSON.stringify(text)} is refused: off, system, or up to 8`);
      expect(() => servers(text), text).toThrow(detail);
    }
  });

  it('reads the deadline, cache size and query bound within their bounds', () => {
    const read = dnsSettingsFromEnv({ NETLOOKUP_DNS_DEADLINE_MS: '10', NETLOOKUP_DNS_CACHE_SIZE: '0', NETLOOKUP_DNS_MAX_QUERIES: '256' });
    expect(read).toMatchObject({ deadlineMs: 10, cacheSize: 0, maxQueries: 256 });
    expect(dnsSettingsFromEnv({ NETLOOKUP_DNS_DEADLINE_MS: '5000', NETLOOKUP_DNS_CACHE_SIZE: '100000' })).toMatchObject({
      deadlineMs: 5000,
      cacheSize: 100_000,
    });
    const refused: [string, string][] = [
      ['NETLOOKUP_DNS_DEADLINE_MS', '9'],
      ['NETLOOKUP_DNS_DEADLINE_MS', '5001'],
      ['NETLOOKUP_DNS_DEADLINE_MS', '300ms'],
      ['NETLOOKUP_DNS_DEADLINE_MS', '0x12c'],
      ['NETLOOKUP_DNS_DEADLINE_MS', '3e2'],
      ['NETLOOKUP_DNS_DEADLINE_MS', ' 300'],
      ['NETLOOKUP_DNS_DEADLINE_MS', '300.5'],
      ['NETLOOKUP_DNS_CACHE_SIZE', '-1'],
      ['NETLOOKUP_DNS_CACHE_SIZE', '100001'],
      ['NETLOOKUP_DNS_CACHE_SIZE', '010'],
      ['NETLOOKUP_DNS_MAX_QUERIES', '0'],
      ['NETLOOKUP_DNS_MAX_QUERIES', '257'],
    ];
    for (const [name, text] of refused) {
      expect(() => dnsSettingsFromEnv({ [name]: text }), `${name}=${text}`).toThrow(
        `${name}=${JSON.stringify(text)} is refused: a whole number`,
      );
    }
  });
});
