/**
 * `netlookup lookup` run as a child process on the built tables: its records are the API's. The
 * same addresses asked of a listening server (a business key for the full level, a free key for
 * the basic one) answer the same JSON, `meta` aside; the clock fields may differ by the seconds
 * between the two questions.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/config/config.js';
import { defaultTablesDir } from '../../src/engine/node.js';
import { startService, type RunningService } from '../../src/http/server.js';
import { defaultPlans } from '../../src/plans/plans.js';
import { runCli, type CliRun } from './cliProcess.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-cli-lookup-'));
const tablesDir = defaultTablesDir();
const dataDir = path.join(root, 'data');
const plansFile = path.join(root, 'plans.json');

const env: NodeJS.ProcessEnv = { ...process.env, NETLOOKUP_TABLES: tablesDir, NETLOOKUP_DATA_DIR: dataDir, NETLOOKUP_PLANS: plansFile };

const cli = (args: string[], stdin?: string) => runCli(args, env, stdin);

const lines = (run: CliRun) =>
  run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);

/** Inputs of every kind of answer, with the API path that answers each. */
const inputs: [string, string][] = [
  ['8.8.8.8', '/v1/ip/8.8.8.8'],
  ['81.2.69.160', '/v1/ip/81.2.69.160'],
  ['2606:4700:4700::1111', '/v1/ip/2606:4700:4700::1111'],
  ['::ffff:1.1.1.1', '/v1/ip/::ffff:1.1.1.1'],
  ['10.0.0.1', '/v1/ip/10.0.0.1'],
  ['100.64.0.1', '/v1/ip/100.64.0.1'],
  ['3fff:ffff::1', '/v1/ip/3fff:ffff::1'],
  ['00:00:0c:12:34:56', '/v1/mac/00:00:0c:12:34:56'],
  ['00000C', '/v1/mac/00000C'],
  ['8C-1F-64-00-00-01', '/v1/mac/8C-1F-64-00-00-01'],
  ['02:42:ac:11:00:02', '/v1/mac/02:42:ac:11:00:02'],
  ['12:34:56:78:9a:bc', '/v1/mac/12:34:56:78:9a:bc'],
];

/** The record without its clock fields, after checking that they are within a few seconds of each other's. */
function withoutClock(record: Record<string, any>, other: Record<string, any>): Record<string, any> {
  const time = record.timezone?.current_time;
  if (typeof time !== 'string') return record;
  expect(Math.abs(Date.parse(time) - Date.parse(other.timezone.current_time))).toBeLessThan(10_000);
  return { ...record, timezone: { ...record.timezone, current_time: '(clock)' } };
}

describe('netlookup lookup prints the records of the API', () => {
  let service: RunningService;
  const secrets: Record<'business' | 'free', string> = { business: '', free: '' };

  beforeAll(async () => {
    // the free plan's rate limit raised for the one-by-one questions; its field level stays basic
    fs.writeFileSync(plansFile, JSON.stringify({ ...defaultPlans, free: { ...defaultPlans.free, rate_limit_per_second: 100 } }));
    for (const plan of ['business', 'free'] as const) {
      const run = await cli(['account', 'create', '--plan', plan, '--json']);
      expect(run.code, run.stderr).toBe(0);
      secrets[plan] = JSON.parse(run.stdout).key.secret;
    }
    service = await startService(
      configFromEnv({
        NETLOOKUP_DATA_DIR: dataDir,
        NETLOOKUP_TABLES: tablesDir,
        NETLOOKUP_PLANS: plansFile,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
      }),
    );
  });

  afterAll(async () => {
    await service?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function apiRecord(pathname: string, plan: 'business' | 'free'): Promise<Record<string, any>> {
    const response = await fetch(`${service.url}${pathname}`, { headers: { 'X-API-Key': secrets[plan] } });
    expect(response.status, pathname).toBe(200);
    const { meta, ...record } = (await response.json()) as Record<string, any>;
    expect(meta).toMatchObject({ plan, fields: plan === 'free' ? 'basic' : 'full' });
    return record;
  }

  it.each([
    ['full', 'business', []],
    ['basic', 'free', ['--level', 'basic']],
  ] as const)('at the %s level: the same JSON as the API for a %s key, meta aside', async (_level, plan, flags) => {
    const run = await cli(['lookup', ...flags, ...inputs.map(([input]) => input)]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const records = lines(run);
    expect(records).toHaveLength(inputs.length);
    for (const [i, [input, pathname]] of inputs.entries()) {
      const api = await apiRecord(pathname, plan);
      expect(withoutClock(records[i], api), input).toEqual(withoutClock(api, records[i]));
    }
  });

  it('no internal fields; coordinates rounded as the API rounds them; without a store, the threat fields of an unlisted address', async () => {
    const [record] = lines(await cli(['lookup', '8.8.8.8']));
    for (const internal of ['range', 'input', 'kind', 'status', 'block', 'country']) expect(record).not.toHaveProperty(internal);
    expect(record.location).toMatchObject({ latitude: 37.422, longitude: -122.085 });
    expect(record.security).toMatchObject({
      is_threat: false,
      threat_type: null,
      threat_confidence: 0,
      threat_reports: 0,
      threat_last_seen: null,
    });
  });
});

describe('netlookup lookup: input, output and exit status', () => {
  it('refused input gets the error envelope in its place and exit status 1', async () => {
    const run = await cli(['lookup', '1.1.1.1', 'not-an-address', '999.1.1.1', '00:00:0c:zz']);
    expect(run.code).toBe(1);
    const records = lines(run);
    expect(records).toHaveLength(4);
    expect(records[0]).toMatchObject({ success: true, ip: '1.1.1.1' });
    const refusal = {
      success: false,
      error: { code: 'invalid_input', message: 'Not an IP address, a MAC address or prefix, or an AS number (AS15169).' },
    };
    expect(records.slice(1)).toEqual([refusal, refusal, refusal]);
  });

  it('reads stdin one input per line, blank lines skipped', async () => {
    const run = await cli(['lookup'], '1.1.1.1\n\nnot-an-address\n2606:4700:4700::1111\n');
    expect(run.code).toBe(1);
    const records = lines(run);
    expect(records.map((r) => r.ip ?? r.error?.code)).toEqual(['1.1.1.1', 'invalid_input', '2606:4700:4700::1111']);
    expect(records[2].network.asn).toBe(13335);
  });

  it('one record per line when stdout is not a terminal; indented with --pretty', async () => {
    const plain = await cli(['lookup', '8.8.8.8', '00:00:0c:12:34:56']);
    expect(plain.stdout.split('\n')).toHaveLength(3);
    const pretty = await cli(['lookup', '--pretty', '8.8.8.8', '00:00:0c:12:34:56']);
    expect(pretty.stdout.startsWith('{\n  "success": true,\n')).toBe(true);
    const records = pretty.stdout.split(/\n(?=\{)/).map((text) => JSON.parse(text));
    expect(records.map((r) => r.ip ?? r.mac)).toEqual(['8.8.8.8', '00:00:0c:12:34:56']);
  });

  it('bad usage exits with 2 before any lookup', async () => {
    const runs = await Promise.all([cli(['lookup', '--level', 'gold', '8.8.8.8']), cli(['lookup', '--bogus', '8.8.8.8'])]);
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
    }
    expect(runs[0].stderr).toMatch(/--level.*'gold' is invalid\. Allowed choices are basic, full/);
  });
});
