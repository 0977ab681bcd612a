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
  };
}

/** The blacklist settings in force: the configured ones, defaults for the rest. */
export function blacklistSettings(config: ServiceConfig): BlacklistSettings {
  const set = Object.entries(config.blacklist ?? {}).filter(([, value]) => value !== undefined);
  return { ...defaultBlacklistSettings, ...Object.fromEntries(set) };
}
