/** The service's configuration, from the environment (ARCHITECTURE "Configuration and operations"). */
import path from 'node:path';
import { parseNetworkList, type NetworkList } from './clientAddress.js';

export interface ServiceConfig {
  port: number;
  host: string;
  dataDir: string;
  tablesDir: string | undefined;
  plansFile: string | undefined;
  redisUrl: string | undefined;
  /** prefix of every Redis key (NETLOOKUP_REDIS_PREFIX, default `nl:`): several deployments may share one Redis */
  redisPrefix?: string;
  adminToken: string | undefined;
  trustProxy: NetworkList;
  /** largest accepted request body */
  bodyLimitBytes: number;
  logLevel: string;
  /** the blacklist's settings (src/http/blacklistRoutes.ts `blacklistSettings` fills defaults) */
  blacklist?: Partial<BlacklistSettings>;
  /** timeouts and the connection cap (src/http/connections.ts `connectionSettings` fills defaults) */
  connections?: Partial<ConnectionSettings>;
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

export const defaultBlacklistSettings: BlacklistSettings = { retentionDays: 90, reportsPerMinute: 60, legacyCheckDaily: 1000, legacyMacDaily: 100 };

function positiveNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value)) throw new Error(`${name} ${text} is not a positive number`);
  return value;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const port = env.PORT === undefined ? 8080 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT ${env.PORT} is not a port number`);
  return {
    port,
    host: env.HOST ?? '127.0.0.1',
    dataDir: path.resolve(env.NETLOOKUP_DATA_DIR ?? './var'),
    tablesDir: env.NETLOOKUP_TABLES,
    plansFile: env.NETLOOKUP_PLANS,
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.NETLOOKUP_REDIS_PREFIX ?? 'nl:',
    adminToken: env.NETLOOKUP_ADMIN_TOKEN || undefined,
    trustProxy: parseNetworkList(env.NETLOOKUP_TRUST_PROXY ?? '', 'NETLOOKUP_TRUST_PROXY'),
    bodyLimitBytes: 1024 * 1024,
    logLevel: env.LOG_LEVEL ?? 'info',
    blacklist: {
      retentionDays: positiveNumber(env, 'NETLOOKUP_BLACKLIST_RETENTION_DAYS'),
      reportsPerMinute: positiveNumber(env, 'NETLOOKUP_REPORTS_PER_MINUTE'),
      legacyCheckDaily: positiveNumber(env, 'NETLOOKUP_LEGACY_CHECK_DAILY'),
      legacyMacDaily: positiveNumber(env, 'NETLOOKUP_LEGACY_MAC_DAILY'),
    },
    connections: connectionSettingsFromEnv(env),
  };
}

/** The blacklist settings in force: the configured ones, defaults for the rest. */
export function blacklistSettings(config: ServiceConfig): BlacklistSettings {
  const set = Object.entries(config.blacklist ?? {}).filter(([, value]) => value !== undefined);
  return { ...defaultBlacklistSettings, ...Object.fromEntries(set) };
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
}

export const defaultTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 };

/** A number of seconds, digits with an optional fraction (`10`, `0.5`), as whole milliseconds. */
function secondsAsMs(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const ms = /^\d+(\.\d+)?$/.test(text) ? Math.round(Number(text) * 1000) : 0;
  if (!(ms >= 1 && ms <= 3_600_000)) throw new Error(`${name} ${JSON.stringify(text)} is not a number of seconds between 0.001 and 3600`);
  return ms;
}

function connectionSettingsFromEnv(env: NodeJS.ProcessEnv): Partial<ConnectionSettings> {
  const settings: Partial<ConnectionSettings> = {
    headersTimeoutMs: secondsAsMs(env, 'NETLOOKUP_HEADERS_TIMEOUT'),
    requestTimeoutMs: secondsAsMs(env, 'NETLOOKUP_REQUEST_TIMEOUT'),
    keepAliveTimeoutMs: secondsAsMs(env, 'NETLOOKUP_KEEP_ALIVE_TIMEOUT'),
  };
  // node:http counts both from the request's start, so the headers' time cannot exceed the request's.
  if ((settings.headersTimeoutMs ?? defaultTimeouts.headersTimeoutMs) > (settings.requestTimeoutMs ?? defaultTimeouts.requestTimeoutMs)) {
    throw new Error('NETLOOKUP_HEADERS_TIMEOUT is longer than NETLOOKUP_REQUEST_TIMEOUT, which counts the headers too');
  }
  const cap = env.NETLOOKUP_MAX_CONNECTIONS;
  if (cap !== undefined && cap !== '') {
    if (!/^[1-9]\d{0,6}$/.test(cap)) throw new Error(`NETLOOKUP_MAX_CONNECTIONS ${JSON.stringify(cap)} is not a whole number between 1 and 9999999`);
    settings.maxConnections = Number(cap);
  }
  return settings;
}
