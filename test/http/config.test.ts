/**
 * The configuration read from the environment: every value strict, a bad one refused with a message
 * naming its variable; trusted-proxy lists that cannot widen by accident.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv, dashboardSettings, MIN_ADMIN_TOKEN_LENGTH } from '../../src/config/config.js';
import { clientAddress, isTrusted, parseNetworkList } from '../../src/address/clientAddress.js';
import { tempDir } from './harness.js';

const dir = tempDir('netlookup-config-');
const plansFile = path.join(dir, 'plans.json');
fs.writeFileSync(plansFile, '{}');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Bad values of each variable, each refused by configFromEnv with the variable named. */
const badValues: [string, string][] = [
  ['PORT', '-1'],
  ['PORT', '65536'],
  ['PORT', '80x'],
  ['PORT', '0x50'],
  ['PORT', ' 80'],
  ['PORT', '1e3'],
  ['HOST', 'local host'],
  ['HOST', 'exa_mple.com'],
  ['NETLOOKUP_TRUST_PROXY', '10.0.0.1/'],
  ['NETLOOKUP_TRUST_PROXY', '10.0.0.0/33'],
  ['NETLOOKUP_TRUST_PROXY', '10.0.0.0/-1'],
  ['NETLOOKUP_TRUST_PROXY', '10.0.0.0/8/8'],
  ['NETLOOKUP_TRUST_PROXY', '10.0.0.0/ 8'],
  ['NETLOOKUP_TRUST_PROXY', '10.0.0.0/0x8'],
  ['NETLOOKUP_TRUST_PROXY', '::1/129'],
  ['NETLOOKUP_TRUST_PROXY', '10.0.0.1, proxy.example'],
  ['NETLOOKUP_TRUST_PROXY', '10.0.0.256'],
  ['NETLOOKUP_ADMIN_TOKEN', 'short-token'],
  ['NETLOOKUP_ADMIN_TOKEN', 'x'.repeat(MIN_ADMIN_TOKEN_LENGTH - 1)],
  ['NETLOOKUP_ADMIN_TOKEN', `${'x'.repeat(MIN_ADMIN_TOKEN_LENGTH)} y`],
  ['NETLOOKUP_ADMIN_TOKEN', `${'x'.repeat(MIN_ADMIN_TOKEN_LENGTH)}\n`],
  ['NETLOOKUP_PLANS', '/nonexistent/plans.json'],
  ['LOG_LEVEL', 'verbose'],
  ['LOG_LEVEL', 'DEBUG'],
  ['REDIS_URL', 'localhost:6379'],
  ['REDIS_URL', 'http://127.0.0.1:6379'],
  ['REDIS_URL', 'redis://'],
  ['NETLOOKUP_REDIS_PREFIX', 'a b'],
  ['NETLOOKUP_REDIS_CLUSTER', '127.0.0.1'],
  ['NETLOOKUP_REDIS_CLUSTER', '127.0.0.1:7000,'],
  ['NETLOOKUP_REDIS_CLUSTER', '127.0.0.1:70000'],
  ['NETLOOKUP_REDIS_CLUSTER', '::1:7000'],
  ['NETLOOKUP_REDIS_CLUSTER', 'redis://127.0.0.1:7000'],
  ['NETLOOKUP_REDIS_SENTINELS', '10.0.0.1:26379;10.0.0.2:26379'],
  ['NETLOOKUP_REDIS_SENTINEL_NAME', 'my master'],
  ['NETLOOKUP_REDIS_PASSWORD', 'pass word'],
  ['NETLOOKUP_REDIS_TLS', 'yes'],
  ['NETLOOKUP_REDIS_WAIT_REPLICAS', '17'],
  ['NETLOOKUP_DATA_DIR', 'var\n'],
  ['NETLOOKUP_BLACKLIST_RETENTION_DAYS', '0'],
  ['NETLOOKUP_BLACKLIST_RETENTION_DAYS', '0x10'],
  ['NETLOOKUP_REPORTS_PER_MINUTE', '1e3'],
  ['NETLOOKUP_LEGACY_CHECK_DAILY', ' 5'],
  ['NETLOOKUP_LEGACY_MAC_DAILY', 'Infinity'],
  ['NETLOOKUP_DASHBOARD_SESSIONS', '0'],
  ['NETLOOKUP_DASHBOARD_SESSIONS', '2.5'],
  ['NETLOOKUP_DASHBOARD_SIGN_INS_PER_KEY', '1e3'],
  ['NETLOOKUP_DASHBOARD_SIGN_INS_PER_CLIENT', '1000001'],
  ['NETLOOKUP_DASHBOARD_SIGN_INS_PER_CLIENT', ' 30'],
];

describe('configFromEnv', () => {
  it("reads the shared store's Redis: one server, a Cluster or a Sentinel's master, and refuses two or a Sentinel without its name", () => {
    expect(configFromEnv({ REDIS_URL: 'redis://127.0.0.1:6379' }).redis).toEqual({
      target: { kind: 'url', url: 'redis://127.0.0.1:6379' },
      waitReplicas: 0,
    });
    expect(configFromEnv({ NETLOOKUP_REDIS_CLUSTER: '10.0.0.1:7000, [::1]:7001,redis-a.internal:7002' }).redis).toEqual({
      target: {
        kind: 'cluster',
        nodes: [
          { host: '10.0.0.1', port: 7000 },
          { host: '::1', port: 7001 },
          { host: 'redis-a.internal', port: 7002 },
        ],
        auth: { tls: false },
      },
      waitReplicas: 1,
    });
    expect(
      configFromEnv({
        NETLOOKUP_REDIS_SENTINELS: '10.0.0.1:26379,10.0.0.2:26379',
        NETLOOKUP_REDIS_SENTINEL_NAME: 'netlookup',
        NETLOOKUP_REDIS_PASSWORD: 'hunter2',
        NETLOOKUP_REDIS_TLS: 'on',
        NETLOOKUP_REDIS_WAIT_REPLICAS: '2',
      }).redis,
    ).toEqual({
      target: {
        kind: 'sentinel',
        sentinels: [
          { host: '10.0.0.1', port: 26379 },
          { host: '10.0.0.2', port: 26379 },
        ],
        name: 'netlookup',
        auth: { password: 'hunter2', tls: true },
      },
      waitReplicas: 2,
    });
    expect(configFromEnv({}).redis).toBeUndefined();
    expect(() => configFromEnv({ REDIS_URL: 'redis://127.0.0.1', NETLOOKUP_REDIS_CLUSTER: '127.0.0.1:7000' })).toThrow(
      /^REDIS_URL and NETLOOKUP_REDIS_CLUSTER are both set: exactly one/,
    );
    expect(() => configFromEnv({ NETLOOKUP_REDIS_CLUSTER: '127.0.0.1:7000', NETLOOKUP_REDIS_SENTINELS: '127.0.0.1:26379' })).toThrow(
      /NETLOOKUP_REDIS_CLUSTER and NETLOOKUP_REDIS_SENTINELS are both set/,
    );
    expect(() => configFromEnv({ NETLOOKUP_REDIS_SENTINELS: '127.0.0.1:26379' })).toThrow(
      /^NETLOOKUP_REDIS_SENTINELS is set without NETLOOKUP_REDIS_SENTINEL_NAME/,
    );
    expect(() => configFromEnv({ NETLOOKUP_REDIS_SENTINEL_NAME: 'netlookup' })).toThrow(
      /^NETLOOKUP_REDIS_SENTINEL_NAME is set without NETLOOKUP_REDIS_SENTINELS/,
    );
    expect(() => configFromEnv({ REDIS_URL: 'redis://127.0.0.1', NETLOOKUP_REDIS_PASSWORD: 'hunter2' })).toThrow(/put them in the URL/);
    expect(() => configFromEnv({ NETLOOKUP_REDIS_CLUSTER: '127.0.0.1:7000', NETLOOKUP_REDIS_PASSWORD: 'a b' })).toThrow(
      /^NETLOOKUP_REDIS_PASSWORD=\(3 characters, not shown\)/,
    );
  });

  for (const [name, value] of badValues) {
    it(`refuses ${name}=${JSON.stringify(value)}, naming the variable`, () => {
      expect(() => configFromEnv({ [name]: value })).toThrow(new RegExp(`^${name}=`));
    });
  }

  it('a refused secret is not shown in the message', () => {
    expect(() => configFromEnv({ NETLOOKUP_ADMIN_TOKEN: 'hunter2-admin' })).toThrow(
      'NETLOOKUP_ADMIN_TOKEN=(13 characters, not shown) is refused',
    );
    expect(() => configFromEnv({ REDIS_URL: 'http://:hunter2@127.0.0.1' })).toThrow(/^REDIS_URL=\(25 characters, not shown\)/);
    expect(() => configFromEnv({ REDIS_URL: 'redis://:hunter2@[bad' })).not.toThrow(/hunter2/);
  });

  it('reads good values', () => {
    const token = 'a'.repeat(MIN_ADMIN_TOKEN_LENGTH);
    const config = configFromEnv({
      PORT: '8081',
      HOST: '::',
      NETLOOKUP_TRUST_PROXY: '10.0.0.0/8, ::1, 192.168.1.1/32',
      NETLOOKUP_ADMIN_TOKEN: token,
      NETLOOKUP_PLANS: plansFile,
      LOG_LEVEL: 'debug',
      REDIS_URL: 'redis://127.0.0.1:6379/2',
      NETLOOKUP_BLACKLIST_RETENTION_DAYS: '30',
    });
    expect(config).toMatchObject({
      port: 8081,
      host: '::',
      adminToken: token,
      plansFile,
      logLevel: 'debug',
      redisUrl: 'redis://127.0.0.1:6379/2',
      redisPrefix: 'nl:',
    });
    expect(config.trustProxy).toHaveLength(3);
    expect(config.blacklist?.retentionDays).toBe(30);
    const dashboard = configFromEnv({
      NETLOOKUP_DASHBOARD_SESSIONS: '5',
      NETLOOKUP_DASHBOARD_SIGN_INS_PER_KEY: '3',
      NETLOOKUP_DASHBOARD_SIGN_INS_PER_CLIENT: '1000000',
    });
    expect(dashboardSettings(dashboard)).toEqual({ sessionsPerAccount: 5, signInsPerKey: 3, signInsPerClient: 1_000_000 });
    expect(dashboardSettings(configFromEnv({}))).toEqual({ sessionsPerAccount: 20, signInsPerKey: 10, signInsPerClient: 30 });
    expect(configFromEnv({ HOST: 'api.example.com', PORT: '0' })).toMatchObject({ host: 'api.example.com', port: 0 });
  });

  it('empty values count as unset; the defaults trust nothing and mount no admin API', () => {
    const config = configFromEnv({ PORT: '', NETLOOKUP_TRUST_PROXY: '', NETLOOKUP_ADMIN_TOKEN: '', LOG_LEVEL: '' });
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', adminToken: undefined, logLevel: 'info', trustProxy: [] });
    expect(configFromEnv({ NETLOOKUP_REDIS_PREFIX: '' }).redisPrefix).toBe('');
  });
});

describe('trusted proxies', () => {
  it('an empty prefix is refused, not read as /0 (which would trust every peer)', () => {
    expect(() => parseNetworkList('10.0.0.1/', 'NETLOOKUP_TRUST_PROXY')).toThrow(/NETLOOKUP_TRUST_PROXY: "10.0.0.1\/"/);
    expect(isTrusted(parseNetworkList('10.0.0.1', 'X'), '203.0.113.9')).toBe(false);
    expect(isTrusted(parseNetworkList('0.0.0.0/0', 'X'), '203.0.113.9')).toBe(true);
  });

  it('::ffff:a.b.c.d entries match the peer in either form', () => {
    for (const entry of ['::ffff:10.0.0.1', '::ffff:10.0.0.0/120', '10.0.0.1', '::ffff:a00:1']) {
      const list = parseNetworkList(entry, 'NETLOOKUP_TRUST_PROXY');
      expect(isTrusted(list, '10.0.0.1'), entry).toBe(true);
      expect(isTrusted(list, '::ffff:10.0.0.1'), entry).toBe(true);
      expect(isTrusted(list, '10.0.1.1'), entry).toBe(false);
      expect(clientAddress('::ffff:10.0.0.1', '198.51.100.7', list), entry).toBe('198.51.100.7');
    }
    const wide = parseNetworkList('::ffff:10.0.0.0/104', 'X');
    expect(isTrusted(wide, '10.200.0.1')).toBe(true);
    expect(isTrusted(wide, '11.0.0.1')).toBe(false);
  });

  it('an untrusted peer cannot name its client', () => {
    const list = parseNetworkList('10.0.0.0/8', 'NETLOOKUP_TRUST_PROXY');
    expect(clientAddress('203.0.113.9', '1.2.3.4', list)).toBe('203.0.113.9');
    expect(clientAddress('10.1.2.3', '1.2.3.4', list)).toBe('1.2.3.4');
  });
});
