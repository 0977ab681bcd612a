/**
 * A running server takes a new table set from `netlookup update` without a restart and without a
 * failed request: clients keep asking while another process swaps the set in.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../cli/cliProcess.js';
import { Harness } from '../http/harness.js';
import { publish, startPublishers, type PublisherServer } from './publisherServer.js';
import { SWAP_PROBE } from './fixtureFacts.js';
import { getAlone, killChildren, serve } from '../http/serveProcess.js';
import { until, untilValue } from '../until.js';

let publishers: PublisherServer;
let tables: string;
let h: Harness;

const update = (...args: string[]) =>
  runCli(['update', '--mirror', publishers.url, '--timeout', '5', ...args], { ...process.env, NETLOOKUP_TABLES: tables });

beforeAll(async () => {
  publishers = await startPublishers();
  tables = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-swap-'));
  expect((await update('--force')).code).toBe(0);
  h = await Harness.start({ tablesDir: tables });
});

afterAll(async () => {
  killChildren();
  await h?.stop();
  await publishers.close();
  fs.rmSync(tables, { recursive: true, force: true });
});

it('answers only where the registrations and routes say the data knows', async () => {
  const key = await h.newKey('business');
  // Réunion's mobile operator: DB-IP's village of "La Reunion", France, is the registry's Réunion, on its own clock
  const reunion = await h.call('/v1/ip/109.122.189.152', { key });
  expect(reunion.body.location).toMatchObject({ country_code: 'RE', city: null });
  expect(reunion.body.timezone.id).toBe('Indian/Reunion');
  expect(reunion.body.network.asn).toBe(49902);
  // space no registry has given out, announced or not
  for (const ip of ['2e00::1', '2800::1']) expect((await h.call(`/v1/ip/${ip}`, { key })).body.found, ip).toBe(false);
  // announced, registered space keeps the location source's place and the route's network
  const google = await h.call('/v1/ip/8.8.8.8', { key });
  expect(google.body.location.city).toBe('Mountain View');
  expect(google.body.network).toMatchObject({ asn: 15169 });
});

it('swaps the new set in under load with zero failed requests', async () => {
  const key = await h.newKey('business');
  const first = (await h.call('/health')).body.data.set;
  expect(first).toMatch(/^\d{8}T\d{6}Z$/);
  const before = await h.call(`/v1/ip/${SWAP_PROBE.ip}`, { key });
  expect(before.status).toBe(200);
  expect(before.body.location.city).toBe(SWAP_PROBE.cityBefore);
  // the publisher's next month: one city renamed
  publish(publishers, SWAP_PROBE.file, SWAP_PROBE.republished(fs.readFileSync(path.join(publishers.root, SWAP_PROBE.file))));
  let running = true;
  const statuses = new Map<number, number>();
  const cities = new Set<string>();
  const client = async () => {
    while (running) {
      const reply = await h.call(`/v1/ip/${SWAP_PROBE.ip}`, { key }).catch(() => ({ status: 0, body: null }));
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      if (reply.status === 200) cities.add(reply.body.location.city);
    }
  };
  const clients = Array.from({ length: 8 }, client);
  const run = await update('--only', 'dbip-city');
  expect(run.code, run.stderr).toBe(0);
  const second = fs.readFileSync(path.join(tables, 'current'), 'utf8').trim();
  expect(second).not.toBe(first);
  // the server follows the pointer (a poll a second): wait for it, requests still running
  await until('the server to take the new set', async () => (await h.call('/health')).body.data.set === second, 20_000, 50);
  const after = await h.call(`/v1/ip/${SWAP_PROBE.ip}`, { key });
  running = false;
  await Promise.all(clients);
  expect(after.body.location.city).toBe(SWAP_PROBE.cityAfter);
  expect([...statuses.keys()]).toEqual([200]);
  expect(statuses.get(200)).toBeGreaterThan(100);
  expect([...cities].sort()).toEqual([SWAP_PROBE.cityAfter, SWAP_PROBE.cityBefore].sort());
  const health = (await h.call('/health')).body;
  expect(health.data.update.last_attempt.outcome).toBe('updated');
  expect(health.data.sources.find((s: { id: string }) => s.id === 'dbip-city').outcome).toBe('fetched');
});

it('serve runs the update on its schedule, in a child process, and reports it', async () => {
  // the last update succeeded a day ago: with a 10-minute interval the next one is due at start
  const statusFile = path.join(tables, 'update-status.json');
  const state = JSON.parse(fs.readFileSync(statusFile, 'utf8'));
  state.last_success = new Date(Date.now() - 86_400_000).toISOString();
  fs.writeFileSync(statusFile, JSON.stringify(state));
  const child = await serve(path.join(tables, 'data'), h.plansFile, {
    NETLOOKUP_TABLES: tables,
    NETLOOKUP_UPDATE_INTERVAL: '10m',
    NETLOOKUP_UPDATE_MIRROR: publishers.url,
  });
  const before = (await fetch(`${child.url}/health`).then((r) => r.json())).data.update.last_attempt.finished_at;
  const withOutput = (error: Error) => {
    throw new Error(`${error.message}\n${child.output()}`);
  };
  const attempt = await untilValue(
    'a scheduled update',
    async () => (await fetch(`${child.url}/health`).then((r) => r.json())).data.update.last_attempt,
    (last) => last.finished_at !== before && last.outcome !== 'running',
    60_000,
    200,
  ).catch(withOutput);
  // every source was fetched moments ago: within its cadence, nothing to do
  expect(attempt.outcome).toBe('unchanged');
  // the status is written before the child exits: the parent's line about its end comes just after
  await until('the end of the scheduled update', () => /scheduled update ended/.test(child.output()), 10_000, 50).catch(withOutput);
  expect(child.output()).toMatch(/scheduled update ended \(0\)/);
  child.process.kill('SIGTERM');
  await child.exited;
});

it('every worker of serve --workers 2 takes the set an update swaps in', async () => {
  const child = await serve(path.join(tables, 'workers-data'), h.plansFile, { NETLOOKUP_TABLES: tables }, ['--workers', '2']);
  const before = fs.readFileSync(path.join(tables, 'current'), 'utf8').trim();
  // the rollback swaps the set before back in, as an update swaps a new one in
  const back = await runCli(['update', '--rollback'], { ...process.env, NETLOOKUP_TABLES: tables });
  expect(back.code, back.stderr).toBe(0);
  const after = fs.readFileSync(path.join(tables, 'current'), 'utf8').trim();
  expect(after).not.toBe(before);
  // four new connections in a row reach both workers: every one answers from the set swapped in
  await until(
    'both workers on the set swapped in',
    async () => {
      const sets = [];
      for (let i = 0; i < 4; i++) sets.push((await getAlone(child.url, '/health')).body.data.set);
      return sets.every((set) => set === after);
    },
    20_000,
    100,
  );
  child.process.kill('SIGTERM');
  expect(await child.exited).toEqual({ code: 0, signal: null });
});
