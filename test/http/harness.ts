/**
 * Shared setup of the end-to-end HTTP suite: a real listening service on a random port
 * (startService), a temporary data directory with its SQLite file, a small plan table written to
 * NETLOOKUP_PLANS-style file, the admin token set, logs silenced, and an injected clock the tests
 * move (quota periods, plan expiry, the per-second window and time zones without sleeping).
 *
 * Requests go through Node's global fetch. `call()` advances the clock by `tickMs` before each
 * request (default just over a second) so that the per-second window never interferes with tests
 * that are not about it; rate tests pass `tick: 0` and place the clock themselves.
 */
import type { DnsSettings } from '../../src/config/dnsSettings.js';
import type { RdapSettings } from '../../src/config/rdapSettings.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { errorTable } from '../../src/errors.js';
import { parseNetworkList } from '../../src/address/clientAddress.js';
import type { BlacklistSettings, ConnectionSettings, DashboardSettings, ServiceConfig } from '../../src/config/config.js';
import { startService, type RunningService, type StartOptions } from '../../src/http/server.js';
import type { Store } from '../../src/store/store.js';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef0123456789';
export const KEY_PATTERN = /^nlk_[0-9a-f]{40}$/;
const ERROR_CODES = Object.keys(errorTable);

/** The plan table of these tests: the four codes, small numbers, so limits are reached quickly. */
export const TEST_PLANS = {
  free: {
    name: 'Free (test)',
    price_eur_month: 0,
    quota: { period: 'day', per_api: { ip: 3, blacklist: 3, mac: 3 } },
    rate_limit_per_second: 2,
    max_batch: 0,
    max_keys: 1,
    field_level: 'basic',
  },
  starter: {
    name: 'Starter (test)',
    price_eur_month: 9,
    quota: { period: 'month', pooled: 20 },
    rate_limit_per_second: 5,
    max_batch: 5,
    max_keys: 2,
    field_level: 'full',
  },
  pro: {
    name: 'Pro (test)',
    price_eur_month: 29,
    quota: { period: 'month', pooled: 100_000 },
    rate_limit_per_second: 1000,
    max_batch: 100,
    max_keys: 3,
    field_level: 'full',
  },
  business: {
    name: 'Business (test)',
    price_eur_month: 79,
    quota: { period: 'month', pooled: 1_000_000 },
    rate_limit_per_second: 1000,
    max_batch: 1000,
    max_keys: 10,
    field_level: 'full',
  },
} as const;

export type PlanCode = keyof typeof TEST_PLANS;

/** The clock of the service: a mutable instant. */
export class TestClock {
  ms: number;
  constructor(start: string | number = '2026-03-10T12:00:00.000Z') {
    this.ms = typeof start === 'number' ? start : Date.parse(start);
  }
  now = (): Date => new Date(this.ms);
  set(at: string | number): void {
    this.ms = typeof at === 'number' ? at : Date.parse(at);
    if (Number.isNaN(this.ms)) throw new Error(`bad clock instant ${at}`);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export function tempDir(prefix = 'netlookup-http-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface HarnessOptions {
  trustProxy?: string;
  adminToken?: string | null;
  /** plans written to the plans file; default TEST_PLANS */
  plans?: unknown;
  /** start from an existing data directory (second start) */
  dataDir?: string;
  store?: Store;
  clockStart?: string;
  bodyLimitBytes?: number;
  /** default clock advance before every call() */
  tickMs?: number;
  /** blacklist settings (retention, report rate, legacy daily limits) */
  blacklist?: Partial<BlacklistSettings>;
  /** timeouts and the connection cap */
  connections?: Partial<ConnectionSettings>;
  /** the dashboard's sign-in limits and session cap */
  dashboard?: Partial<DashboardSettings>;
  /** the tables folder (default the installed tables, data/tables) */
  tablesDir?: string;
  /** reverse DNS (default: none) */
  dns?: DnsSettings;
  /** RDAP abuse contacts (default: none) */
  rdap?: RdapSettings;
  /** where publishers' files and RDAP answers come from (`<mirror>/<host>/<path>`) */
  updateMirror?: string;
}

export interface CallOptions {
  method?: string;
  /** the key, sent the way `via` says (default: X-API-Key header) */
  key?: string;
  via?: 'header' | 'bearer' | 'query';
  headers?: Record<string, string>;
  /** a JSON value (sent as application/json) or a raw string/Buffer (give content-type yourself) */
  json?: unknown;
  body?: string | Buffer | Uint8Array;
  /** clock advance before the request; default the harness's tickMs */
  tick?: number;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** the parsed body, or undefined when it is not JSON */
  body: any;
  contentType: string | null;
}

export interface Account {
  id: string;
  plan: string;
  expires_at: string | null;
  suspended: boolean;
  [k: string]: unknown;
}

export interface Key {
  id: string;
  name: string;
  websites: string[];
  secret: string;
  [k: string]: unknown;
}

export class Harness {
  readonly clock: TestClock;
  readonly dir: string;
  readonly dataDir: string;
  readonly plansFile: string;
  readonly config: ServiceConfig;
  service!: RunningService;
  url = '';
  tickMs: number;

  private constructor(options: HarnessOptions) {
    this.clock = new TestClock(options.clockStart);
    this.dir = tempDir();
    this.dataDir = options.dataDir ?? path.join(this.dir, 'data');
    this.plansFile = path.join(this.dir, 'plans.json');
    fs.writeFileSync(this.plansFile, JSON.stringify(options.plans ?? TEST_PLANS, null, 2));
    this.tickMs = options.tickMs ?? 1001;
    this.config = {
      port: 0,
      host: '127.0.0.1',
      dataDir: this.dataDir,
      tablesDir: options.tablesDir ?? path.join(projectRoot, 'data', 'tables'),
      plansFile: this.plansFile,
      redisUrl: undefined,
      adminToken: options.adminToken === null ? undefined : (options.adminToken ?? ADMIN_TOKEN),
      trustProxy: parseNetworkList(options.trustProxy ?? '', 'NETLOOKUP_TRUST_PROXY'),
      bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
      logLevel: 'silent',
      ...(options.blacklist ? { blacklist: options.blacklist } : {}),
      // NETLOOKUP_DIRECT_CONNECTIONS=off runs a suite on node:http alone (vitest.config.ts); a test's own setting wins
      connections: { ...directConnectionsFromEnv(), ...options.connections },
      ...(options.dashboard ? { dashboard: options.dashboard } : {}),
      ...(options.dns ? { dns: options.dns } : {}),
      ...(options.rdap ? { rdap: options.rdap } : {}),
      ...(options.updateMirror ? { updateMirror: options.updateMirror } : {}),
    };
  }

  static async start(options: HarnessOptions = {}): Promise<Harness> {
    const h = new Harness(options);
    const start: StartOptions = { now: h.clock.now };
    if (options.store) start.store = options.store;
    h.service = await startService(h.config, start);
    h.url = h.service.url;
    return h;
  }

  /**
   * Stops the service and removes its files. Connections still open half a second after stop()
   * (a wedged or kept-alive client connection: the subject of dedicated tests) are cut, so that a
   * failing test elsewhere does not stall teardown for a minute.
   */
  async stop(): Promise<void> {
    if (this.service) {
      const server = this.service.server;
      const cut = setTimeout(() => server.closeAllConnections(), 500);
      try {
        await this.service.stop();
      } finally {
        clearTimeout(cut);
      }
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** The connections the listening server holds now (those it has accepted and not yet seen close). */
  connections(): Promise<number> {
    return new Promise((resolve, reject) => this.service.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
  }

  /** One request to the service. */
  async call(pathAndQuery: string, options: CallOptions = {}): Promise<Reply> {
    this.clock.advance(options.tick ?? this.tickMs);
    return request(this.url, pathAndQuery, options);
  }

  // The admin API

  async admin(method: string, pathAndQuery: string, json?: unknown, token: string = ADMIN_TOKEN): Promise<Reply> {
    return request(this.url, pathAndQuery, {
      method,
      headers: { authorization: `Bearer ${token}` },
      ...(json === undefined ? {} : { json }),
    });
  }

  async createAccount(plan: PlanCode = 'pro', extra: Record<string, unknown> = {}): Promise<{ account: Account; key: Key }> {
    const reply = await this.admin('POST', '/admin/accounts', { plan, ...extra });
    if (reply.status !== 201) throw new Error(`create account: ${reply.status} ${reply.text}`);
    return reply.body;
  }

  /** A new account of the plan; answers its first key's secret. */
  async newKey(plan: PlanCode = 'pro', extra: Record<string, unknown> = {}): Promise<string> {
    return (await this.createAccount(plan, extra)).key.secret;
  }

  async createKey(accountId: string, name = 'second', websites?: string[]): Promise<Key> {
    const reply = await this.admin('POST', `/admin/accounts/${accountId}/keys`, { name, ...(websites ? { websites } : {}) });
    if (reply.status !== 201) throw new Error(`create key: ${reply.status} ${reply.text}`);
    return reply.body.key;
  }

  async patchAccount(accountId: string, patch: Record<string, unknown>): Promise<Account> {
    const reply = await this.admin('PATCH', `/admin/accounts/${accountId}`, patch);
    if (reply.status !== 200) throw new Error(`patch account: ${reply.status} ${reply.text}`);
    return reply.body.account;
  }

  async patchKey(keyId: string, patch: Record<string, unknown>): Promise<Reply> {
    return this.admin('PATCH', `/admin/keys/${keyId}`, patch);
  }

  async usage(secret: string): Promise<any> {
    const reply = await this.call('/v1/usage', { key: secret, tick: 0 });
    if (reply.status !== 200) throw new Error(`usage: ${reply.status} ${reply.text}`);
    return reply.body;
  }
}

/** A request to `base`, read whole; never throws for an HTTP status. */
export async function request(base: string, pathAndQuery: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let target = base + pathAndQuery;
  if (options.key !== undefined) {
    switch (options.via ?? 'header') {
      case 'header':
        headers['x-api-key'] = options.key;
        break;
      case 'bearer':
        headers.authorization = `Bearer ${options.key}`;
        break;
      case 'query':
        target += `${pathAndQuery.includes('?') ? '&' : '?'}key=${encodeURIComponent(options.key)}`;
        break;
    }
  }
  let body: string | Uint8Array | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  } else if (options.body !== undefined) {
    body = options.body;
  }
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const response = await fetch(target, { method, headers, body: body as BodyInit | undefined, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed, contentType: response.headers.get('content-type') };
}

/** Asserts the SPEC 2.9 error envelope with the code's status from SPEC 7 / src/errors.ts. */
export function expectError(reply: Reply, code: string, status?: number): void {
  const expected = status ?? (errorTable as Record<string, { status: number }>)[code]?.status;
  expect({ status: reply.status, code: reply.body?.error?.code, text: reply.status === expected ? undefined : reply.text }).toEqual({
    status: expected,
    code,
    text: undefined,
  });
  expectEnvelope(reply);
}

/** Any non-2xx body: exactly {success: false, error: {code, message}} with a known code, JSON type. */
export function expectEnvelope(reply: Reply): void {
  expect(reply.contentType ?? '').toMatch(/^application\/json/);
  expect(reply.body).toEqual({ success: false, error: { code: expect.any(String), message: expect.any(String) } });
  expect(ERROR_CODES).toContain(reply.body.error.code);
  expect(reply.body.error.message.length).toBeGreaterThan(0);
}

/** The SPEC 8.3 quota headers of a reply, as numbers where numeric. */
function quotaHeadersOf(reply: Reply) {
  const h = reply.headers;
  return {
    plan: h.get('x-plan'),
    rate: h.get('x-ratelimit-limit'),
    limit: h.get('x-quota-limit'),
    remaining: h.get('x-quota-remaining'),
    reset: h.get('x-quota-reset'),
  };
}

/** Asserts that the quota headers are present and equal to meta.quota (SPEC 8.3). */
export function expectQuotaHeadersMatchMeta(reply: Reply, plan: PlanCode, ratePerSecond?: number): void {
  const meta = reply.body.meta;
  expect(meta).toBeDefined();
  const h = quotaHeadersOf(reply);
  expect(h.plan).toBe(meta.plan);
  expect(meta.plan).toBe(plan);
  expect(h.rate).toBe(String(ratePerSecond ?? TEST_PLANS[plan].rate_limit_per_second));
  expect(h.limit).toBe(String(meta.quota.limit));
  expect(h.remaining).toBe(String(meta.quota.remaining));
  expect(h.reset).toBe(String(Date.parse(meta.quota.resets_at) / 1000));
}

/** 00:00 UTC of the next day / first of next month of an instant, as Unix seconds. */
export function nextUtcMidnight(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) / 1000;
}

export function nextUtcMonth(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

/** The local time of an IANA zone at an instant, as SPEC 2.2 wants it (offset, DST, ISO 8601 with offset). */
export function expectedZoneTime(zone: string, ms: number): { utc_offset: string; is_dst: boolean; current_time: string } {
  const offsetAt = (t: number): number => {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }).formatToParts(t);
    const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
    const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
    return Math.round((local - Math.floor(t / 1000) * 1000) / 60000);
  };
  const offset = offsetAt(ms);
  const year = new Date(ms).getUTCFullYear();
  const standard = Math.min(offsetAt(Date.UTC(year, 0, 1)), offsetAt(Date.UTC(year, 6, 1)));
  const abs = Math.abs(offset);
  const text = `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  const local = new Date(Math.floor(ms / 1000) * 1000 + offset * 60000).toISOString().slice(0, 19);
  return { utc_offset: text, is_dst: offset > standard, current_time: `${local}${text}` };
}

/** Every dot path of a JSON value's object keys. */
export function keyPaths(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => [prefix + k, ...keyPaths(v, `${prefix}${k}.`)]);
}

/** The test run's transport mode: NETLOOKUP_DIRECT_CONNECTIONS=off runs the suite on node:http alone. */
function directConnectionsFromEnv(): Partial<ConnectionSettings> {
  const value = process.env.NETLOOKUP_DIRECT_CONNECTIONS;
  return value === 'off' ? { directConnections: false } : {};
}
