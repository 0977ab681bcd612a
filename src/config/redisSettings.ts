/**
 * Which Redis the shared store uses (docs/shared-deployments.md): one server (REDIS_URL), a Redis
 * Cluster by its seed nodes (NETLOOKUP_REDIS_CLUSTER) or a master found through Redis Sentinel
 * (NETLOOKUP_REDIS_SENTINELS and NETLOOKUP_REDIS_SENTINEL_NAME). Exactly one of them selects it.
 */
import { envValue, wholeNumber } from './envValue.js';

interface RedisNode {
  host: string;
  port: number;
}

/** How the store signs in to the Cluster's nodes or the Sentinel's master and replicas (REDIS_URL carries its own). */
export interface RedisAuth {
  username?: string;
  password?: string;
  /** password of the sentinels themselves, when they require one */
  sentinelPassword?: string;
  tls: boolean;
}

export type RedisTarget =
  | { kind: 'url'; url: string }
  | { kind: 'cluster'; nodes: RedisNode[]; auth: RedisAuth }
  | { kind: 'sentinel'; sentinels: RedisNode[]; name: string; auth: RedisAuth };

export interface RedisSettings {
  target: RedisTarget;
  /**
   * replicas that must confirm an acknowledged report or account change (NETLOOKUP_REDIS_WAIT_REPLICAS;
   * default 1 on a Cluster or Sentinel, which exist to survive a failover, 0 on one server)
   */
  waitReplicas: number;
}

const NODE_LIST = 'a comma-separated list of host:port (an IPv6 address in brackets) is expected';

/** `host:port`, `[v6]:port`: the form redis-cli and the Redis configuration files use. */
function nodeOf(text: string, hostOf: (text: string) => string | undefined): RedisNode | undefined {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text.trim());
  if (!m) return undefined;
  const host = m[1] !== undefined ? (m[1].includes(':') ? m[1] : undefined) : hostOf(m[2]);
  const port = Number(m[3]);
  return host !== undefined && port >= 1 && port <= 65535 ? { host, port } : undefined;
}

function nodeListOf(hostOf: (text: string) => string | undefined) {
  return (text: string): RedisNode[] | undefined => {
    const nodes = text.split(',').map((part) => nodeOf(part, hostOf));
    return nodes.every((node) => node !== undefined) ? nodes : undefined;
  };
}

/**
 * The shared store's Redis, or undefined for the embedded store. `redisUrl`: REDIS_URL as read;
 * `hostOf`: the host rule of HOST. Refuses two selections, a Sentinel list without its name (or a
 * name without the list), and credentials given beside REDIS_URL (they belong in its URL).
 */
export function redisSettingsFromEnv(
  env: NodeJS.ProcessEnv,
  redisUrl: string | undefined,
  hostOf: (text: string) => string | undefined,
): RedisSettings | undefined {
  const cluster = envValue(env, 'NETLOOKUP_REDIS_CLUSTER', NODE_LIST, nodeListOf(hostOf));
  const sentinels = envValue(env, 'NETLOOKUP_REDIS_SENTINELS', NODE_LIST, nodeListOf(hostOf));
  const name = envValue(env, 'NETLOOKUP_REDIS_SENTINEL_NAME', 'the name of a master group (letters, digits, . _ -) is expected', (text) =>
    /^[A-Za-z0-9._-]{1,200}$/.test(text) ? text : undefined,
  );
  const chosen = [redisUrl && 'REDIS_URL', cluster && 'NETLOOKUP_REDIS_CLUSTER', sentinels && 'NETLOOKUP_REDIS_SENTINELS'].filter(
    (set): set is string => typeof set === 'string',
  );
  if (chosen.length > 1) throw new Error(`${chosen.join(' and ')} are both set: exactly one of them selects the shared store's Redis`);
  if (sentinels && !name)
    throw new Error('NETLOOKUP_REDIS_SENTINELS is set without NETLOOKUP_REDIS_SENTINEL_NAME: the name of the master group is expected');
  if (name && !sentinels)
    throw new Error('NETLOOKUP_REDIS_SENTINEL_NAME is set without NETLOOKUP_REDIS_SENTINELS: the sentinels are expected');
  const credential = (variable: string, secret: boolean) =>
    envValue(
      env,
      variable,
      'printable characters without spaces are expected',
      (text) => (/^[\x21-\x7e]+$/.test(text) ? text : undefined),
      secret,
    );
  const auth: RedisAuth = {
    username: credential('NETLOOKUP_REDIS_USERNAME', false),
    password: credential('NETLOOKUP_REDIS_PASSWORD', true),
    sentinelPassword: credential('NETLOOKUP_REDIS_SENTINEL_PASSWORD', true),
    tls: envValue(env, 'NETLOOKUP_REDIS_TLS', 'on or off is expected', (text) => ({ on: true, off: false })[text]) ?? false,
  };
  if (redisUrl && (auth.username || auth.password || auth.sentinelPassword || auth.tls))
    throw new Error(
      'NETLOOKUP_REDIS_USERNAME, NETLOOKUP_REDIS_PASSWORD, NETLOOKUP_REDIS_SENTINEL_PASSWORD and NETLOOKUP_REDIS_TLS are for a Cluster or Sentinel: with REDIS_URL, put them in the URL (redis://user:password@host, rediss:// for TLS)',
    );
  const target: RedisTarget | undefined = redisUrl
    ? { kind: 'url', url: redisUrl }
    : cluster
      ? { kind: 'cluster', nodes: cluster, auth }
      : sentinels && name
        ? { kind: 'sentinel', sentinels, name, auth }
        : undefined;
  const waitReplicas = envValue(env, 'NETLOOKUP_REDIS_WAIT_REPLICAS', 'a whole number from 0 to 16 is expected', wholeNumber(0, 16));
  if (target === undefined) return undefined;
  return { target, waitReplicas: waitReplicas ?? (target.kind === 'url' ? 0 : 1) };
}
