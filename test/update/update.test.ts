/**
 * `netlookup update` as an operator runs it (the built CLI, in a child process), against a local
 * server that serves the publishers' files in their real formats under the mirror layout, with
 * the faults a real update meets: a 404, a stall, a body cut short, a bad checksum, a source that
 * shrank, two updates at once, `kill -9` mid-update, and the swap under load.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/cliProcess.js';
import { projectRoot } from '../http/harness.js';
import { until } from '../until.js';
import { startPublishers, publish, type PublisherServer } from './publisherServer.js';

const DBIP = '/download.db-ip.com/free/dbip-city-lite-2026-11.csv.gz';
const RIPE = '/ftp.ripe.net/pub/stats/ripencc/delegated-ripencc-extended-latest';
const MA_L = '/standards-oui.ieee.org/oui/oui.csv';
const RIS4 = '/www.ris.ripe.net/dumps/riswhoisdump.IPv4.gz';
const PEERINGDB_NET = '/public.peeringdb.com/net-0.json';
const TOR_BULK = '/check.torproject.org/torbulkexitlist';
const TOR_EXITS = '/check.torproject.org/exit-addresses';
const ONIONOO = '/onionoo.torproject.org/details';

let publishers: PublisherServer;
const folders: string[] = [];

beforeAll(async () => {
  publishers = await startPublishers();
});

afterAll(async () => {
  await publishers.close();
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

function tablesFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-update-'));
  folders.push(folder);
  return folder;
}

function envFor(tables: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NETLOOKUP_TABLES: tables };
  delete env.NETLOOKUP_UPDATE_MIRROR;
  return env;
}

function update(tables: string, ...args: string[]) {
  return runCli(['update', '--mirror', publishers.url, '--timeout', '2', ...args], envFor(tables));
}

/**
 * The fixtures are a few hundred rows each, below the floors a real file never goes under: a first
 * update of them (no file in force to compare with) is forced past those floors.
 */
const firstUpdate = (tables: string) => update(tables, '--force');

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
const pointer = (tables: string, name: string) => fs.readFileSync(path.join(tables, name), 'utf8').trim();
const status = (tables: string) => readJson(path.join(tables, 'update-status.json'));
const setsOf = (tables: string) => fs.readdirSync(path.join(tables, 'sets')).sort();

describe('netlookup update', () => {
  it('refuses a first fetch below the floors of a real file unless forced', async () => {
    const tables = tablesFolder();
    const run = await update(tables, '--only', 'ieee-ma-l');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('not taken: ieee-ma-l (refused)');
    expect(status(tables).sources['ieee-ma-l'].outcome).toBe('refused');
    expect(status(tables).sources['ieee-ma-l'].message).toMatch(/rows/);
    expect(fs.existsSync(path.join(tables, 'current'))).toBe(false);
  });

  it('fetches every source through the mirror, builds a set and puts it in force', async () => {
    const tables = tablesFolder();
    const run = await firstUpdate(tables);
    expect(run.stderr).toMatch(/table set \d{8}T\d{6}Z(-\d+)?, feed set \d{8}T\d{6}Z(-\d+)? are in force/);
    expect(run.code).toBe(0);
    // tables of their own (NETLOOKUP_TABLES) and no NETLOOKUP_COMPACT_TABLES: the package's compact folder is left alone
    expect(run.stderr).not.toMatch(/security table is copied/);
    const current = pointer(tables, 'current');
    expect(setsOf(tables)).toEqual([current]);
    expect(pointer(tables, 'previous')).toBe('installed');
    const state = status(tables);
    expect(state.last_attempt.outcome).toBe('updated');
    for (const [id, source] of Object.entries<{ outcome: string }>(state.sources)) expect(source.outcome, id).toBe('fetched');
    const manifest = readJson(path.join(tables, 'sets', current, 'manifest.json'));
    const origins = manifest.sources.map((s: { origin: string }) => s.origin);
    expect(origins).toContain('https://download.db-ip.com/free/dbip-city-lite-2026-11.csv.gz');
    expect(origins).toContain('https://www.ris.ripe.net/dumps/riswhoisdump.IPv4.gz');
    expect(origins.some((o: string) => o.includes('@ip-location-db'))).toBe(false);
    // every publisher URL was asked of the mirror as <host>/<path>
    expect(publishers.requests).toContain(DBIP);
    expect(publishers.requests).toContain(`${RIPE}.md5`);
  });

  it('a second run within the cadence fetches nothing and keeps the set', async () => {
    const tables = tablesFolder();
    expect((await firstUpdate(tables)).code).toBe(0);
    const first = pointer(tables, 'current');
    const run = await update(tables);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('no newer data');
    expect(pointer(tables, 'current')).toBe(first);
    expect(Object.values<{ outcome: string }>(status(tables).sources).every((s) => s.outcome === 'skipped')).toBe(true);
  });

  it('with --force an unchanged publisher answers 304 and nothing is rebuilt from it', async () => {
    const tables = tablesFolder();
    expect((await firstUpdate(tables)).code).toBe(0);
    const run = await update(tables, '--force', '--only', 'ieee-ma-l');
    expect(run.code).toBe(0);
    expect(status(tables).sources['ieee-ma-l'].outcome).toBe('unchanged');
  });

  it('a source that answers 404, stalls or is cut short keeps the file in force; the others update', async () => {
    const tables = tablesFolder();
    expect((await firstUpdate(tables)).code).toBe(0);
    const first = pointer(tables, 'current');
    const before = status(tables).sources;
    publishers.faults.set(RIPE, { status: 404 });
    publishers.faults.set(RIS4, { stall: true });
    publishers.faults.set(DBIP, { cutAfter: 1000 });
    // a new MA-L release, so that one source has news
    const maL = fs.readFileSync(path.join(publishers.root, MA_L), 'utf8');
    publish(publishers, MA_L, maL.replace('Apple, Inc.', 'Apple Inc.'));
    try {
      const run = await update(tables, '--force');
      // the sources that could not be taken make the exit status 1; the others still made a set
      expect(run.code, run.stderr).toBe(1);
      const after = status(tables).sources;
      expect(after['rir-ripencc'].outcome).toBe('failed');
      expect(after['rir-ripencc'].message).toContain('HTTP 404');
      expect(after['ris-ipv4'].outcome).toBe('failed');
      expect(after['ris-ipv4'].message).toMatch(/no answer within 2000 ms|stalled/);
      expect(after['dbip-city'].outcome).toBe('failed');
      expect(after['dbip-city'].message).toMatch(/cut off|bytes received|connection was cut/);
      // the files in force stay the ones the first run fetched
      for (const id of ['rir-ripencc', 'ris-ipv4', 'dbip-city']) expect(after[id].fetched_at, id).toBe(before[id].fetched_at);
      const second = pointer(tables, 'current');
      expect(second).not.toBe(first);
      const inputs = readJson(path.join(tables, 'sets', second, 'inputs.json'));
      expect(inputs['dbip-city'].sha256).toBe(readJson(path.join(tables, 'sets', first, 'inputs.json'))['dbip-city'].sha256);
      expect(after['ieee-ma-l'].outcome, run.stderr).toBe('fetched');
      expect(run.stderr).toMatch(/table set \d{8}T\d{6}Z(-\d+)?(, feed set \d{8}T\d{6}Z(-\d+)? are| is) in force/);
    } finally {
      publishers.faults.clear();
      publish(publishers, MA_L, maL);
    }
  });

  it('refuses a corrupt file, a wrong checksum and a source that shrank, unless forced', async () => {
    const tables = tablesFolder();
    expect((await firstUpdate(tables)).code).toBe(0);
    const dbip = fs.readFileSync(path.join(publishers.root, DBIP));
    const ripe = fs.readFileSync(path.join(publishers.root, RIPE), 'utf8');
    const maL = fs.readFileSync(path.join(publishers.root, MA_L), 'utf8');
    try {
      publish(publishers, DBIP, dbip.subarray(0, Math.floor(dbip.length / 2)));
      publish(publishers, RIPE, ripe.replace('|allocated|', '|alocated|'));
      const lines = maL.split('\n');
      // dated past the restored file of an earlier test (Last-Modified has whole seconds)
      publish(publishers, MA_L, lines.slice(0, Math.floor(lines.length / 2)).join('\n') + '\n', new Date(Date.now() + 120_000));
      const run = await update(tables, '--force', '--only', 'dbip-city,rir-ripencc');
      expect(run.code).toBe(1);
      const after = status(tables).sources;
      expect(after['dbip-city'].outcome).toBe('refused');
      expect(after['rir-ripencc'].outcome).toBe('refused');
      expect(after['rir-ripencc'].message).toMatch(/MD5/);
      // without --force a halved registry is refused by the shrink rule (--only fetches it within its cadence)
      const shrunk = await update(tables, '--only', 'ieee-ma-l');
      expect(shrunk.code).toBe(1);
      expect(status(tables).sources['ieee-ma-l'].outcome).toBe('refused');
      expect(status(tables).sources['ieee-ma-l'].message).toMatch(/more than 20% fewer/);
      const forced = await update(tables, '--only', 'ieee-ma-l', '--force');
      expect(forced.code, forced.stderr).toBe(0);
      expect(status(tables).sources['ieee-ma-l'].outcome).toBe('fetched');
    } finally {
      publish(publishers, DBIP, dbip);
      publish(publishers, RIPE, ripe);
      publish(publishers, MA_L, maL);
    }
  });

  it('one update at a time; a killed update leaves the set in force and the next run clean', async () => {
    const tables = tablesFolder();
    expect((await firstUpdate(tables)).code).toBe(0);
    const first = pointer(tables, 'current');
    // hold the first update on a stalled download, then start a second
    publishers.faults.set(DBIP, { stall: true });
    const asked = publishers.requests.filter((r) => r === DBIP).length;
    const held = spawn(process.execPath, ['dist/cli/main.js', 'update', '--mirror', publishers.url, '--timeout', '60', '--force'], {
      cwd: projectRoot,
      env: envFor(tables),
      stdio: 'ignore',
    });
    try {
      await until(
        'the held update at the stalled download',
        () => publishers.requests.filter((r) => r === DBIP).length > asked,
        30_000,
        20,
      );
      const second = await update(tables);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/another update is running \(process \d+/);
      held.kill('SIGKILL');
      await new Promise((resolve) => held.once('exit', resolve));
      expect(fs.existsSync(path.join(tables, 'update.lock'))).toBe(true);
      expect(pointer(tables, 'current')).toBe(first);
      publishers.faults.clear();
      const next = await update(tables, '--force');
      expect(next.code).toBe(0);
      expect(next.stderr).toContain('an earlier update had stopped without finishing');
      expect(fs.existsSync(path.join(tables, 'update.lock'))).toBe(false);
      expect(fs.readdirSync(path.join(tables, 'sets')).filter((n) => n.startsWith('.'))).toEqual([]);
    } finally {
      publishers.faults.clear();
      if (held.exitCode === null) held.kill('SIGKILL');
    }
  });

  it('--rollback returns to the set before, and back again', async () => {
    const tables = tablesFolder();
    expect((await firstUpdate(tables)).code).toBe(0);
    const first = pointer(tables, 'current');
    expect((await update(tables, '--force')).code).toBe(0);
    const second = pointer(tables, 'current');
    expect(second).not.toBe(first);
    const back = await runCli(['update', '--rollback'], envFor(tables));
    expect(back.code).toBe(0);
    expect(pointer(tables, 'current')).toBe(first);
    expect(pointer(tables, 'previous')).toBe(second);
    expect(status(tables).last_attempt.outcome).toBe('rolled_back');
    expect((await runCli(['update', '--rollback'], envFor(tables))).code).toBe(0);
    expect(pointer(tables, 'current')).toBe(second);
  });

  it('PeeringDB only when turned on: its networks describe their ASes and place a hosting one at its datacenter, and a set built with it off drops it', async () => {
    const tables = tablesFolder();
    const record = async (ip: string) => {
      const run = await runCli(['lookup', '--no-pretty', '--tables', tables, ip], envFor(tables));
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout);
    };
    const lookup = async (ip: string) => (await record(ip)).network;
    const on = await update(tables, '--force', '--peeringdb');
    expect(on.code, on.stderr).toBe(0);
    expect(publishers.requests).toContain(PEERINGDB_NET);
    expect(status(tables).sources['peeringdb-net']).toMatchObject({ outcome: 'fetched', date: '2026-10-30' });
    const described = readJson(path.join(tables, 'sets', pointer(tables, 'current'), 'manifest.json'));
    expect(described.sources.map((s: { origin: string }) => s.origin)).toContain('https://public.peeringdb.com/net-0.json');
    // AS33762: no curated row, no name rule; PeeringDB types it and names its ISP and holding
    expect(await lookup('41.213.0.1')).toMatchObject({
      asn: 33762,
      asn_name: 'RAIN-AS',
      organization: 'RAIN GROUP HOLDINGS (PTY) LTD',
      isp: 'rain',
      domain: 'rain.co.za',
      holding: 'rain (Pty) Ltd',
      holding_domain: 'rain.co.za',
      connection_type: 'residential',
      usage: 'consumer access',
    });
    expect(status(tables).sources['peeringdb-fac']).toMatchObject({ outcome: 'fetched', date: '2025-09-26' });
    expect(described.sources.map((s: { origin: string }) => s.origin)).toContain('https://public.peeringdb.com/netfac-0.json');
    // AS15169 (hosting) is at one facility, in the United States, where 8.8.8.0/24 is located
    const google = await record('8.8.8.8');
    expect(google.network.connection_type).toBe('hosting');
    expect(google.location).toMatchObject({
      country_code: 'US',
      address: '21715 Filigree Ct, Building F, Ashburn, VA, 20147-6205',
      address_type: 'datacenter',
    });
    // AS13335's one facility is in the United States, 1.1.1.0/24 in Australia: the two disagree, no address
    const cloudflare = await record('1.1.1.1');
    expect(cloudflare.location.country_code).toBe('AU');
    expect(cloudflare.location).not.toHaveProperty('address');
    expect(cloudflare.location).not.toHaveProperty('address_type');
    // rain is no hosting network
    expect((await record('41.213.0.1')).location).not.toHaveProperty('address');
    const off = await update(tables, '--force');
    expect(off.code, off.stderr).toBe(0);
    expect(off.stderr).toContain('peeringdb-net: left out');
    const without = readJson(path.join(tables, 'sets', pointer(tables, 'current'), 'manifest.json'));
    expect(without.sources.map((s: { origin: string }) => s.origin)).not.toContain('https://public.peeringdb.com/net-0.json');
    expect(await lookup('41.213.0.1')).toMatchObject({ isp: 'RAIN GROUP HOLDINGS (PTY) LTD', holding: null, connection_type: null });
    expect(off.stderr).toContain('peeringdb-fac: left out');
    const offGoogle = await record('8.8.8.8');
    expect(offGoogle.network.connection_type).toBe('hosting');
    expect(offGoogle.location).not.toHaveProperty('address');
    expect(offGoogle.location).not.toHaveProperty('address_type');
  });

  it('a feed that fails, shrinks or is malformed leaves the feed set in force; a good one replaces it', async () => {
    const tables = tablesFolder();
    expect((await update(tables, '--force', '--feeds-only')).code).toBe(0);
    const feeds = path.join(tables, 'feeds');
    const first = pointer(feeds, 'current');
    const bulk = fs.readFileSync(path.join(publishers.root, TOR_BULK), 'utf8');
    const exits = fs.readFileSync(path.join(publishers.root, TOR_EXITS), 'utf8');
    try {
      const lines = bulk.split('\n');
      publish(publishers, TOR_BULK, lines.slice(0, Math.floor(lines.length / 2)).join('\n') + '\n');
      publish(publishers, TOR_EXITS, exits.replace('ExitAddress ', 'ExitAdress '));
      publishers.faults.set(ONIONOO, { status: 404 });
      // --only fetches them within their cadence
      const run = await update(tables, '--feeds-only', '--only', 'tor-bulk-exits,tor-exit-addresses,tor-onionoo');
      expect(run.code, run.stderr).toBe(1);
      const after = status(tables).sources;
      expect(after['tor-bulk-exits']).toMatchObject({ outcome: 'refused', message: expect.stringMatching(/more than 20% fewer/) });
      expect(after['tor-exit-addresses'].outcome).toBe('refused');
      expect(after['tor-onionoo']).toMatchObject({ outcome: 'failed', message: expect.stringContaining('HTTP 404') });
      expect(pointer(feeds, 'current')).toBe(first);
      // the publisher's next list, whole again and changed: a new feed set
      publishers.faults.clear();
      publish(publishers, TOR_BULK, bulk + '185.220.101.1\n');
      publish(publishers, TOR_EXITS, exits);
      const next = await update(tables, '--feeds-only', '--only', 'tor-bulk-exits');
      expect(next.code, next.stderr).toBe(0);
      expect(pointer(feeds, 'current')).not.toBe(first);
      expect(next.stderr).toMatch(/feed set \d{8}T\d{6}Z(-\d+)? is in force/);
      // and back to the feed set before, apart from the table sets
      const tablesBefore = fs.existsSync(path.join(tables, 'current')) ? pointer(tables, 'current') : null;
      const back = await runCli(['update', '--rollback', '--feeds-only'], envFor(tables));
      expect(back.code, back.stderr).toBe(0);
      expect(back.stderr).toContain(`feed set ${first} is in force again`);
      expect(pointer(feeds, 'current')).toBe(first);
      expect(fs.existsSync(path.join(tables, 'current')) ? pointer(tables, 'current') : null).toBe(tablesBefore);
    } finally {
      publishers.faults.clear();
      publish(publishers, TOR_BULK, bulk);
      publish(publishers, TOR_EXITS, exits);
    }
  });

  it('a gzip that is not one is refused by its reader', async () => {
    const tables = tablesFolder();
    expect((await firstUpdate(tables)).code).toBe(0);
    const original = fs.readFileSync(path.join(publishers.root, RIS4));
    try {
      const bad = Buffer.from(gzipSync(Buffer.from('not a routing table\n')));
      bad[bad.length - 5] ^= 0xff; // the CRC no longer matches
      publish(publishers, RIS4, bad);
      const run = await update(tables, '--force', '--only', 'ris-ipv4');
      expect(run.code).toBe(1);
      expect(status(tables).sources['ris-ipv4'].outcome).toBe('refused');
    } finally {
      publish(publishers, RIS4, original);
    }
  });
});
