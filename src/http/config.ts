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
  adminToken: string | undefined;
  trustProxy: NetworkList;
  /** largest accepted request body */
  bodyLimitBytes: number;
  logLevel: string;
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
    redisUrl: env.REDIS_URL,
    adminToken: env.NETLOOKUP_ADMIN_TOKEN || undefined,
    trustProxy: parseNetworkList(env.NETLOOKUP_TRUST_PROXY ?? '', 'NETLOOKUP_TRUST_PROXY'),
    bodyLimitBytes: 1024 * 1024,
    logLevel: env.LOG_LEVEL ?? 'info',
  };
}
