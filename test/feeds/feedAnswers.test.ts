/**
 * The paid record's feed facts through HTTP: a real server over a tables folder whose table set
 * and feed set `netlookup update` built from the publisher fixtures (served under the mirror
 * layout), and a local DNS server for `network.hostname`. Listed addresses come back true with
 * their provider, others false, all null without a fresh feed; RPKI states of the routes in force;
 * hostnames within the deadline, never a hostile name, no query when `fields` leaves it out;
 * abuse contacts from the registries' dumps, and from their RDAP services (the same local server,
 * under the mirror layout) where no dump answers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DNS_SETTINGS } from '../../src/config/dnsSettings.js';
import { FEED_SOURCES } from '../../src/update/feedCatalog.js';
import { runCli } from '../cli/cliProcess.js';
import { startDnsServer, wireName, type TestDnsServer } from '../enrichment/dnsServer.js';
import { Harness, projectRoot } from '../http/harness.js';
import { startPublishers, type PublisherServer } from '../update/publisherServer.js';

let publishers: PublisherServer;
let dns: TestDnsServer;
let tables: string;
let h: Harness;
let key: string;

const DNS_DEADLINE_MS = 300;
/** generous: the first answer of each registry is what the tests look at */
const RDAP_DEADLINE_MS = 3000;

/** The installed tables, linked into a folder of its own that the update writes its sets into. */
function tablesFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-feeds-'));
  const installed = path.join(projectRoot, 'data', 'tables');
  for (const name of fs.readdirSync(installed)) {
    if (fs.statSync(path.join(installed, name)).isFile()) fs.symlinkSync(path.join(installed, name), path.join(folder, name));
  }
  return folder;
}

async function update(...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, NETLOOKUP_TABLES: tables, NETLOOKUP_COMPACT_TABLES: path.join(tables, 'compact') };
  delete env.NETLOOKUP_UPDATE_MIRROR;
  const run = await runCli(['update', '--mirror', publishers.url, '--timeout', '5', ...args], env);
  expect(run.code, run.stderr).toBe(0);
  return run;
}

beforeAll(async () => {
  publishers = await startPublishers();
  dns = await startDnsServer({
    '1.1.1.1.in-addr.arpa': { names: ['one.one.one.one'] },
    '8.8.8.8.in-addr.arpa': { names: ['dns.google'] },
    // a PTR name of control bytes and one of 1,000 characters: never shown
    '253.230.95.93.in-addr.arpa': { wireNames: [wireName(['exit\u0001\u0007', 'example'])] },
    '9.9.9.9.in-addr.arpa': { wireNames: [wireName(Array.from({ length: 17 }, () => 'x'.repeat(60)))] },
    '4.4.8.8.in-addr.arpa': { silent: true },
  });
  tables = tablesFolder();
  // The routes (RIS, named by CAIDA) and every feed; places stay the installed data's, which
  // locate every address the fixtures list. The fixtures are small: a first update of them is
  // forced past the floors of whole files.
  await update('--force', '--only', ['ris-ipv4', 'ris-ipv6', 'caida-as2org', ...FEED_SOURCES.map((source) => source.id)].join(','));
  h = await Harness.start({
    tablesDir: tables,
    clockStart: new Date().toISOString(),
    tickMs: 0,
    dns: { ...DEFAULT_DNS_SETTINGS, servers: [dns.address], deadlineMs: DNS_DEADLINE_MS },
    rdap: { enabled: true, deadlineMs: RDAP_DEADLINE_MS, perMinute: 600, cacheFile: path.join(tables, 'rdap-cache.sqlite') },
    updateMirror: publishers.url,
  });
  key = await h.newKey('pro');
}, 300_000);

afterAll(async () => {
  await h?.stop();
  await dns?.close();
  await publishers?.close();
  if (tables) fs.rmSync(tables, { recursive: true, force: true });
});

const record = async (ip: string, query = '') => {
  const reply = await h.call(`/v1/ip/${ip}${query}`, { key });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
};

describe('security feeds', () => {
  it('a Tor exit is Tor, listed by the Tor feeds; an address no feed lists is false everywhere', async () => {
    const tor = await record('93.95.230.253');
    expect(tor.security).toMatchObject({ is_tor: true, is_vpn: false, is_proxy: false, vpn_provider: null });
    expect(tor.security.listed_by).toContain('Tor bulk exit list');
    const clean = await record('1.1.1.1');
    expect(clean.security).toMatchObject({ is_tor: false, is_vpn: false, is_proxy: false, vpn_provider: null, listed_by: [] });
  });

  it("a VPN provider's server is a VPN with its provider's name and reports hosting; Apple's relay is a proxy, not a VPN", async () => {
    const mullvad = await record('31.171.154.50');
    expect(mullvad.security).toMatchObject({ is_vpn: true, vpn_provider: 'Mullvad VPN', is_hosting: true });
    expect(mullvad.network).toMatchObject({ connection_type: 'hosting', usage: 'hosting/cloud' });
    // Windscribe (us-central-122's `ip`) and AirVPN (Adhara's first IPv4 and IPv6 entries)
    expect((await record('104.223.110.194')).security).toMatchObject({ is_vpn: true, vpn_provider: 'Windscribe' });
    expect((await record('185.104.184.42')).security).toMatchObject({ is_vpn: true, vpn_provider: 'AirVPN' });
    expect((await record('2001:ac8:20:5:6000:4b07:7b1c:4c0')).security).toMatchObject({ is_vpn: true, vpn_provider: 'AirVPN' });
    const relay = await record('172.224.224.1');
    expect(relay.security).toMatchObject({ is_proxy: true, is_vpn: false, listed_by: ['iCloud Private Relay egress ranges'] });
    // the free plan has no security block, but a VPN range is hosting there too
    const free = await h.newKey('free');
    const basic = await h.call('/v1/ip/31.171.154.50', { key: free });
    expect(basic.body.network.connection_type).toBe('hosting');
    expect(basic.body.security).toBeUndefined();
  });

  it('answers from /health and /v1 which feeds are loaded, their dates, sizes and freshness', async () => {
    const health = await h.call('/health');
    const feeds = health.body.data.feeds as { id: string; rows: number; fresh: boolean; says: string }[];
    expect(health.body.data.feed_set).toMatch(/^\d{8}T\d{6}Z$/);
    expect(feeds.map((f) => f.id)).toEqual(
      expect.arrayContaining(['tor-bulk-exits', 'vpn-mullvad', 'proxy-firehol', 'relay-icloud', 'rpki-cloudflare']),
    );
    expect(feeds.every((f) => f.fresh && f.rows > 0)).toBe(true);
    const v1 = await h.call('/v1', { key });
    expect(v1.body.data_updates.feeds.length).toBe(feeds.length);
  });

  it('a feed older than three of its cadences answers null, not false', async () => {
    const now = Date.now();
    try {
      // four hours on: the hourly Tor and proxy lists and RPKI are stale; the daily VPN lists and
      // Apple's relay list (a proxy verdict) are not
      h.clock.set(now + 4 * 3600_000);
      const later = await record('93.95.230.253');
      expect(later.security).toMatchObject({ is_tor: null, is_proxy: false, is_vpn: false, listed_by: [] });
      expect(later.network.rpki).toBeNull();
      // four days on: nothing is fresh
      h.clock.set(now + 4 * 86_400_000);
      const stale = await record('31.171.154.50');
      expect(stale.security).toMatchObject({ is_tor: null, is_vpn: null, is_proxy: null, vpn_provider: null, listed_by: null });
    } finally {
      h.clock.set(now);
    }
  });
});

describe('RPKI', () => {
  it('answers the RFC 6811 state of the route in force that carries the address; null for IPv6', async () => {
    expect((await record('1.0.0.1')).network.rpki).toBe('valid');
    // 1.0.5.0/24 is announced by AS38803; the /22 ROA's maxLength does not cover it, the /24 ROA does
    expect((await record('1.0.5.1')).network.rpki).toBe('valid');
    expect((await record('8.8.8.8')).network.rpki).toBe('not_found');
    expect((await record('5.105.0.1')).network.rpki).toBe('unrouted');
    expect((await record('2001:4860:4860::8888')).network.rpki).toBeNull();
  });
});

describe('abuse contacts', () => {
  it("answers the mailbox the registry's dump names for the most specific block that names one", async () => {
    // Amazon's assignment names none: the allocation around it does
    expect((await record('46.137.1.1')).abuse).toEqual({ email: 'trustandsafety@support.aws.com' });
    // an organisation's abuse-c
    expect((await record('164.132.160.1')).abuse).toEqual({ email: 'abuse@ovh.net' });
    expect((await record('2a00:1450:4000::abcd')).abuse).toEqual({ email: 'ripe-contact@google.com' });
  });

  const rdapAsked = () => publishers.requests.filter((path) => path.startsWith('/rdap.'));

  it("asks the registry's RDAP service where no dump answers: ARIN's nested contact, APNIC's irt", async () => {
    expect((await record('8.8.8.8')).abuse).toEqual({ email: 'network-abuse@google.com' });
    expect((await record('1.1.1.1')).abuse).toEqual({ email: 'helpdesk@apnic.net' });
    // each asked once (earlier tests looked these addresses up too), then answered from the cache for the block
    expect((await record('8.8.8.9')).abuse).toEqual({ email: 'network-abuse@google.com' });
    expect(rdapAsked().filter((path) => path === '/rdap.arin.net/registry/ip/8.8.8.8')).toHaveLength(1);
    expect(rdapAsked().filter((path) => path === '/rdap.apnic.net/ip/1.1.1.1')).toHaveLength(1);
    expect(rdapAsked().filter((path) => path.startsWith('/rdap.arin.net/registry/ip/8.8.8.'))).toHaveLength(1);
  });

  it('never asks RDAP where a fresh dump answers, where fields leave abuse.email out, or for a reserved address', async () => {
    const before = rdapAsked().length;
    // RIPE space: the dump's answer (here: a contact) stands
    expect((await record('164.132.160.1')).abuse).toEqual({ email: 'abuse@ovh.net' });
    // RIPE space the dump names no contact for: RIPE's own answer, null
    expect((await record('2.2.2.2')).abuse).toEqual({ email: null });
    expect((await record('200.7.84.1', '?fields=network.asn')).abuse).toBeUndefined();
    await record('10.0.0.1');
    expect(rdapAsked().length).toBe(before);
  });

  it('a batch asks for its addresses in parallel; an address the registry does not know is null', async () => {
    const reply = await h.call('/v1/ip/batch', { key, json: { ips: ['200.7.84.1', '8.8.8.8', '23.0.0.1'] } });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.results.map((r: { abuse: { email: string | null } }) => r.abuse.email)).toEqual([
      'abuse@lacnic.net',
      'network-abuse@google.com',
      null,
    ]);
  });

  it("lists IANA's RDAP bootstrap among the feeds", async () => {
    const feeds = (await h.call('/health')).body.data.feeds as { id: string; fresh: boolean; rows: number }[];
    expect(feeds.filter((f) => f.id.startsWith('rdap-'))).toEqual([
      expect.objectContaining({ id: 'rdap-bootstrap-ipv4', fresh: true, rows: 221 }),
      expect.objectContaining({ id: 'rdap-bootstrap-ipv6', fresh: true, rows: 33 }),
    ]);
  });
});

describe('reverse DNS', () => {
  it('answers the PTR name, and asks nothing when fields leave the hostname out', async () => {
    expect((await record('8.8.8.8')).network.hostname).toBe('dns.google');
    const asked = dns.queries('1.1.1.1.in-addr.arpa');
    const filtered = await record('1.1.1.1', '?fields=network.asn,security.is_tor');
    expect(filtered.network).toEqual({ asn: 13335 });
    expect(dns.queries('1.1.1.1.in-addr.arpa')).toBe(asked);
    expect((await record('1.1.1.1', '?fields=network.hostname')).network).toEqual({ hostname: 'one.one.one.one' });
  });

  it('never shows a hostile name, and a server that never answers costs at most the deadline', async () => {
    expect((await record('93.95.230.253')).network.hostname).toBeNull();
    expect((await record('9.9.9.9')).network.hostname).toBeNull();
    const started = performance.now();
    expect((await record('8.8.4.4')).network.hostname).toBeNull();
    expect(performance.now() - started).toBeLessThan(DNS_DEADLINE_MS + 1_000);
  });

  it('a batch resolves its addresses in parallel within one deadline', async () => {
    const started = performance.now();
    const reply = await h.call('/v1/ip/batch', { key, json: { ips: ['8.8.8.8', '1.1.1.1', '8.8.4.4'] } });
    expect(reply.status, reply.text).toBe(200);
    const names = reply.body.results.map((r: { network: { hostname: string | null } }) => r.network.hostname);
    expect(names).toEqual(['dns.google', 'one.one.one.one', null]);
    expect(performance.now() - started).toBeLessThan(DNS_DEADLINE_MS + 1_000);
  });
});

describe('metrics', () => {
  it('count the reverse DNS and RDAP lookups and what the servers answered', async () => {
    const text = (await h.call('/metrics')).text;
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    // the tests above asked for names and contacts, and looked some up twice
    expect(value('netlookup_reverse_dns_queries_total{answer="name"}')).toBeGreaterThanOrEqual(2);
    expect(value('netlookup_reverse_dns_lookups_total{outcome="hit"}')).toBeGreaterThanOrEqual(1);
    expect(value('netlookup_rdap_queries_total{answer="contact"}')).toBeGreaterThanOrEqual(3);
    expect(value('netlookup_rdap_queries_total{answer="not_found"}')).toBeGreaterThanOrEqual(1);
    expect(value('netlookup_rdap_lookups_total{outcome="hit"}')).toBeGreaterThanOrEqual(1);
    expect(value('netlookup_rdap_cache_ok')).toBe(1);
  });
});

describe('the browser and edge build', () => {
  it("gets the feed set's security table beside the compact sets, as the server answers from it", async () => {
    const feedSet = (await h.call('/health')).body.data.feed_set as string;
    const inSet = fs.readFileSync(path.join(tables, 'feeds', 'sets', feedSet, 'security.nlt'));
    const copy = fs.readFileSync(path.join(tables, 'compact', 'security.nlt'));
    expect(Buffer.compare(copy, inSet)).toBe(0);
    expect(fs.existsSync(path.join(tables, 'compact', 'security.nlt.gz'))).toBe(true);
  });
});

describe('a new feed set', () => {
  it('is taken by the running server without a restart', async () => {
    const before = (await h.call('/health')).body.data.feed_set;
    // a second forced run of the feeds builds a new set
    await update('--force', '--feeds-only');
    const deadline = Date.now() + 20_000;
    let after = before;
    while (after === before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = (await h.call('/health')).body.data.feed_set;
    }
    expect(after).not.toBe(before);
    expect((await record('93.95.230.253')).security.is_tor).toBe(true);
  });
});
