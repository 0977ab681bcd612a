/** The service's configuration, from the environment (README "Configuration"). */
import { dnsSettingsFromEnv, type DnsSettings } from './dnsSettings.js';
import { rdapSettingsFromEnv, type RdapSettings } from './rdapSettings.js';
import { envValue, hasControlCharacter, wholeNumber } from './envValue.js';
import fs from 'node:fs';
import path from 'node:path';
import { parseNetworkList, type NetworkList } from '../address/clientAddress.js';
import { redisSettingsFromEnv, type RedisSettings } from './redisSettings.js';

export interface ServiceConfig {
  port: number;
  host: string;
  dataDir: string;
  tablesDir: string | undefined;
  plansFile: string | undefined;
  /** REDIS_URL: one Redis server for the shared store */
  redisUrl: string | undefined;
  /**
   * the shared store's Redis, whichever of REDIS_URL, NETLOOKUP_REDIS_CLUSTER and
   * NETLOOKUP_REDIS_SENTINELS named it (src/config/redisSettings.ts); absent: the embedded store
   */
  redis?: RedisSettings;
  /** prefix of every Redis key (NETLOOKUP_REDIS_PREFIX, default `nl:`): several deployments may share one Redis */
  redisPrefix?: string;
  /**
   * how long the shared store waits for Redis, in ms (NETLOOKUP_REDIS_TIMEOUT_MS, default 1000, from
   * 50 to 60000): a Redis that answers nothing for this long is taken for away
   */
  redisTimeoutMs?: number;
  adminToken: string | undefined;
  trustProxy: NetworkList;
  /** largest accepted request body */
  bodyLimitBytes: number;
  logLevel: string;
  /** the blacklist's settings (`blacklistSettings` below fills defaults) */
  blacklist?: Partial<BlacklistSettings>;
  /** timeouts and the connection cap (src/http/transport/connections.ts `connectionSettings` fills defaults) */
  connections?: Partial<ConnectionSettings>;
  /** the dashboard's sign-in limits (`dashboardSettings` below fills defaults) */
  dashboard?: Partial<DashboardSettings>;
  /** reverse DNS for network.hostname (NETLOOKUP_DNS_*, src/config/dnsSettings.ts); absent: no DNS */
  dns?: DnsSettings;
  /** abuse contacts from RDAP where no registry dump answers (NETLOOKUP_RDAP_*, src/config/rdapSettings.ts); absent: none */
  rdap?: RdapSettings;
  /** how often `serve` runs `netlookup update` (NETLOOKUP_UPDATE_INTERVAL, e.g. `24h`); null: never (the default) */
  updateIntervalMs?: number | null;
  /** how often `serve` updates the feeds alone (NETLOOKUP_FEEDS_INTERVAL, e.g. `1h`); null: with the tables, if at all */
  feedsIntervalMs?: number | null;
  /** where `netlookup update` takes the publishers' files from (NETLOOKUP_UPDATE_MIRROR): `<mirror>/<host>/<path>` */
  updateMirror?: string | null;
  /** whether `netlookup update` fetches PeeringDB too (NETLOOKUP_UPDATE_PEERINGDB=on; default off: its terms limit its use) */
  updatePeeringDb?: boolean;
}

const DURATION_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30m`, `6h`, `1d`: from 10 minutes (publishers would rightly block a tighter loop) to 90 days; `off` for none. */
function durationOf(text: string): number | null | undefined {
  if (text === 'off') return null;
  const m = /^([1-9]\d{0,4})([mhd])$/.exec(text);
  if (!m) return undefined;
  const ms = Number(m[1]) * DURATION_UNITS[m[2]];
  return ms >= 10 * 60_000 && ms <= 90 * 86_400_000 ? ms : undefined;
}

function mirrorOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.search === '' && url.hash === ''
      ? text.replace(/\/+$/, '')
      : undefined;
  } catch {
    return undefined;
  }
}

export interface BlacklistSettings {
  /** reports older than this leave the listing (NETLOOKUP_BLACKLIST_RETENTION_DAYS, 90) */
  retentionDays: number;
  /** reports per account per minute (NETLOOKUP_REPORTS_PER_MINUTE, 60) */
  reportsPerMinute: number;
  /** keyless legacy blacklist checks and exports per client address and UTC day (NETLOOKUP_LEGACY_CHECK_DAILY, 1000) */
  legacyCheckDaily: number;
  /** keyless legacy MAC lookups per client address and UTC day (NETLOOKUP_LEGACY_MAC_DAILY, SPEC 8.2.8: 100) */
  legacyMacDaily: number;
}

const defaultBlacklistSettings: BlacklistSettings = {
  retentionDays: 90,
  reportsPerMinute: 60,
  legacyCheckDaily: 1000,
  legacyMacDaily: 100,
};

/** The dashboard's limits (docs/dashboard.md "Sessions"). */
export interface DashboardSettings {
  /** sessions kept per account, and for the operator; a sign-in past it ends the oldest (NETLOOKUP_DASHBOARD_SESSIONS, 20) */
  sessionsPerAccount: number;
  /** sign-ins per key (the admin token counts as one) per minute (NETLOOKUP_DASHBOARD_SIGN_INS_PER_KEY, 10) */
  signInsPerKey: number;
  /** sign-in attempts per client (an IPv4 address, an IPv6 /64) per minute (NETLOOKUP_DASHBOARD_SIGN_INS_PER_CLIENT, 30) */
  signInsPerClient: number;
}

const defaultDashboardSettings: DashboardSettings = {
  sessionsPerAccount: 20,
  signInsPerKey: 10,
  signInsPerClient: 30,
};

/** The admin token's shortest accepted length: long enough that guessing it, throttled, is hopeless. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Plain decimal digits only: Number() would also take "0x10", "1e3", " 8 " and "". */
const decimal = (text: string) => (/^(?:0|[1-9]\d*)(?:\.\d+)?$/.test(text) ? Number(text) : undefined);

/** A whole number from 1 to `max` (at most 9999999), plain digits. */
function countOf(env: NodeJS.ProcessEnv, name: string, max = 1_000_000): number | undefined {
  return envValue(env, name, `a whole number from 1 to ${max} is expected`, wholeNumber(1, max));
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  return envValue(env, name, 'a positive decimal number is expected', (text) => {
    const value = decimal(text);
    return value !== undefined && value > 0 && Number.isFinite(value) ? value : undefined;
  });
}

/** No control characters, no spaces: a value an operator pasted with a stray newline is a mistake. */
const printable = (text: string) => (/^[\x21-\x7e]+$/.test(text) ? text : undefined);

export function hostOf(text: string): string | undefined {
  // an IP address (IPv6 without brackets) or a DNS name
  if (/^[0-9A-Fa-f:.]+$/.test(text) && text.includes(':')) return text;
  return /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(text)
    ? text
    : undefined;
}

function redisUrlOf(text: string): string | undefined {
  const url = new URL(text);
  return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '' ? text : undefined;
}

/** The shared store's Redis of a configuration (one built by hand may give only `redisUrl`), or undefined: the embedded store. */
export function sharedRedis(config: ServiceConfig): RedisSettings | undefined {
  return config.redis ?? (config.redisUrl ? { target: { kind: 'url', url: config.redisUrl }, waitReplicas: 0 } : undefined);
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const port = envValue(env, 'PORT', 'a port number from 0 to 65535 is expected', (text) => {
    const value = /^\d{1,5}$/.test(text) ? Number(text) : -1;
    return value >= 0 && value <= 65535 ? value : undefined;
  });
  const adminToken = envValue(
    env,
    'NETLOOKUP_ADMIN_TOKEN',
    `at least ${MIN_ADMIN_TOKEN_LENGTH} printable characters without spaces are expected`,
    (text) => (printable(text) !== undefined && text.length >= MIN_ADMIN_TOKEN_LENGTH ? text : undefined),
    true,
  );
  const trustProxy = envValue(env, 'NETLOOKUP_TRUST_PROXY', 'a comma-separated list of IP addresses or CIDR blocks is expected', (text) =>
    parseNetworkList(text, 'NETLOOKUP_TRUST_PROXY'),
  );
  const path_ = (name: string) =>
    envValue(env, name, 'a path without control characters is expected', (text) =>
      text.length > 0 && !hasControlCharacter(text) ? text : undefined,
    );
  const dataDir = path.resolve(path_('NETLOOKUP_DATA_DIR') ?? './var');
  const redisUrl = envValue(env, 'REDIS_URL', 'a redis:// or rediss:// URL with a host is expected', redisUrlOf, true);
  return {
    port: port ?? 8080,
    host: envValue(env, 'HOST', 'an IP address or host name is expected', hostOf) ?? '127.0.0.1',
    dataDir,
    tablesDir: path_('NETLOOKUP_TABLES'),
    plansFile: envValue(env, 'NETLOOKUP_PLANS', 'the path of a readable plans JSON file is expected', (text) =>
      fs.statSync(text).isFile() ? text : undefined,
    ),
    redisUrl,
    redis: redisSettingsFromEnv(env, redisUrl, hostOf),
    // set but empty is a deliberate empty prefix (a Redis used by this deployment alone)
    redisPrefix:
      env.NETLOOKUP_REDIS_PREFIX === ''
        ? ''
        : (envValue(env, 'NETLOOKUP_REDIS_PREFIX', 'printable characters without spaces are expected', printable) ?? 'nl:'),
    redisTimeoutMs: envValue(
      env,
      'NETLOOKUP_REDIS_TIMEOUT_MS',
      'a whole number of milliseconds from 50 to 60000 is expected',
      wholeNumber(50, 60_000),
    ),
    adminToken,
    trustProxy: trustProxy ?? [],
    bodyLimitBytes: 1024 * 1024,
    logLevel:
      envValue(env, 'LOG_LEVEL', `one of ${logLevels.join(', ')} is expected`, (text) =>
        (logLevels as readonly string[]).includes(text) ? text : undefined,
      ) ?? 'info',
    blacklist: {
      retentionDays: positiveNumber(env, 'NETLOOKUP_BLACKLIST_RETENTION_DAYS'),
      reportsPerMinute: positiveNumber(env, 'NETLOOKUP_REPORTS_PER_MINUTE'),
      legacyCheckDaily: positiveNumber(env, 'NETLOOKUP_LEGACY_CHECK_DAILY'),
      legacyMacDaily: positiveNumber(env, 'NETLOOKUP_LEGACY_MAC_DAILY'),
    },
    connections: connectionSettingsFromEnv(env),
    updateIntervalMs:
      envValue(env, 'NETLOOKUP_UPDATE_INTERVAL', 'a duration from 10m to 90d (e.g. 30m, 6h, 1d) or off is expected', (text) => {
        const ms = durationOf(text);
        return ms === undefined ? undefined : { ms };
      })?.ms ?? null,
    feedsIntervalMs:
      envValue(env, 'NETLOOKUP_FEEDS_INTERVAL', 'a duration from 10m to 90d (e.g. 30m, 1h, 1d) or off is expected', (text) => {
        const ms = durationOf(text);
        return ms === undefined ? undefined : { ms };
      })?.ms ?? null,
    updateMirror: envValue(env, 'NETLOOKUP_UPDATE_MIRROR', 'an http:// or https:// URL without query is expected', mirrorOf) ?? null,
    updatePeeringDb:
      envValue(env, 'NETLOOKUP_UPDATE_PEERINGDB', 'on or off is expected', (text) =>
        text === 'on' ? { on: true } : text === 'off' ? { on: false } : undefined,
      )?.on ?? false,
    dns: dnsSettingsFromEnv(env),
    rdap: rdapSettingsFromEnv(env, dataDir),
    dashboard: {
      sessionsPerAccount: countOf(env, 'NETLOOKUP_DASHBOARD_SESSIONS'),
      signInsPerKey: countOf(env, 'NETLOOKUP_DASHBOARD_SIGN_INS_PER_KEY'),
      signInsPerClient: countOf(env, 'NETLOOKUP_DASHBOARD_SIGN_INS_PER_CLIENT'),
    },
  };
}

/** The blacklist settings in force: the configured ones, defaults for the rest. */
export function blacklistSettings(config: ServiceConfig): BlacklistSettings {
  const set = Object.entries(config.blacklist ?? {}).filter(([, value]) => value !== undefined);
  return { ...defaultBlacklistSettings, ...Object.fromEntries(set) };
}

/** The dashboard settings in force: the configured ones, defaults for the rest. */
export function dashboardSettings(config: ServiceConfig): DashboardSettings {
  const set = Object.entries(config.dashboard ?? {}).filter(([, value]) => value !== undefined);
  return { ...defaultDashboardSettings, ...Object.fromEntries(set) };
}

export interface ConnectionSettings {
  /** time to receive a request's headers, from its first byte (or the connection's opening) (NETLOOKUP_HEADERS_TIMEOUT, 10 s) */
  headersTimeoutMs: number;
  /** time to receive a whole request, headers and body (NETLOOKUP_REQUEST_TIMEOUT, 30 s) */
  requestTimeoutMs: number;
  /** an idle kept-alive connection is closed after this (NETLOOKUP_KEEP_ALIVE_TIMEOUT, 5 s) */
  keepAliveTimeoutMs: number;
  /** concurrent connections per process (NETLOOKUP_MAX_CONNECTIONS, default from the open-file limit) */
  maxConnections: number;
  /**
   * concurrent connections of one client (an IPv4 address, an IPv6 /64) to this process; a
   * trusted proxy (NETLOOKUP_TRUST_PROXY) is not held to it (NETLOOKUP_MAX_CONNECTIONS_PER_CLIENT,
   * default a quarter of the cap)
   */
  maxConnectionsPerClient: number;
  /** a request body that brings no byte for this long is refused with 408 (NETLOOKUP_BODY_TIMEOUT, 10 s) */
  bodyTimeoutMs: number;
  /** an answer the client takes no byte of for this long is cut (NETLOOKUP_SEND_TIMEOUT, 10 s) */
  sendTimeoutMs: number;
  /**
   * whether single lookups are answered on the socket (src/http/transport/directConnections.ts; on by
   * default) or every request goes through node:http (NETLOOKUP_DIRECT_CONNECTIONS=off)
   */
  directConnections: boolean;
  /**
   * how the direct connections read their sockets (src/http/transport/socketReads.ts): into one shared
   * buffer where Node allows it (the default), or through 'data' events (NETLOOKUP_SOCKET_READS)
   */
  socketReads: 'shared' | 'events';
}

export const defaultTimeouts = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  bodyTimeoutMs: 10_000,
  sendTimeoutMs: 10_000,
};

/** A number of seconds, digits with an optional fraction (`10`, `0.5`), as whole milliseconds. */
function secondsAsMs(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const ms = /^\d+(\.\d+)?$/.test(text) ? Math.round(Number(text) * 1000) : 0;
  if (!(ms >= 1 && ms <= 3_600_000)) throw new Error(`${name} ${JSON.stringify(text)} is not a number of seconds between 0.001 and 3600`);
  return ms;
}

/** The largest connection count a setting takes. */
const MAX_CONNECTIONS = 9_999_999;

function connectionSettingsFromEnv(env: NodeJS.ProcessEnv): Partial<ConnectionSettings> {
  const settings: Partial<ConnectionSettings> = {
    headersTimeoutMs: secondsAsMs(env, 'NETLOOKUP_HEADERS_TIMEOUT'),
    requestTimeoutMs: secondsAsMs(env, 'NETLOOKUP_REQUEST_TIMEOUT'),
    keepAliveTimeoutMs: secondsAsMs(env, 'NETLOOKUP_KEEP_ALIVE_TIMEOUT'),
    bodyTimeoutMs: secondsAsMs(env, 'NETLOOKUP_BODY_TIMEOUT'),
    sendTimeoutMs: secondsAsMs(env, 'NETLOOKUP_SEND_TIMEOUT'),
  };
  // node:http counts both from the request's start, so the headers' time cannot exceed the request's.
  if ((settings.headersTimeoutMs ?? defaultTimeouts.headersTimeoutMs) > (settings.requestTimeoutMs ?? defaultTimeouts.requestTimeoutMs)) {
    throw new Error('NETLOOKUP_HEADERS_TIMEOUT is longer than NETLOOKUP_REQUEST_TIMEOUT, which counts the headers too');
  }
  settings.maxConnections = countOf(env, 'NETLOOKUP_MAX_CONNECTIONS', MAX_CONNECTIONS);
  settings.maxConnectionsPerClient = countOf(env, 'NETLOOKUP_MAX_CONNECTIONS_PER_CLIENT', MAX_CONNECTIONS);
  settings.directConnections = envValue(env, 'NETLOOKUP_DIRECT_CONNECTIONS', 'on or off is expected', (text) =>
    text === 'on' ? { on: true } : text === 'off' ? { on: false } : undefined,
  )?.on;
  settings.socketReads = envValue(env, 'NETLOOKUP_SOCKET_READS', 'shared or events is expected', (text) =>
    text === 'shared' || text === 'events' ? text : undefined,
  );
  return settings;
}
