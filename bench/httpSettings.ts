/** Settings of the HTTP bench (bench/http.ts): the environment it reads, its fixed sizes and targets, and small formatting. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const RESULTS = path.join(ROOT, 'bench', 'results');
export const SERVERS = path.join(ROOT, 'bench', 'httpServers.ts');
export const OUI_JSON = path.join(ROOT, 'node_modules', 'oui-data', 'index.json');

export const env = process.env;
export const DURATION = Number(env.BENCH_HTTP_DURATION ?? 10);
export const WARMUP = Number(env.BENCH_HTTP_WARMUP ?? 2);
export const WARMUP_PASSES = 3;
export const WARMUP_MAX_ROUNDS = 5;
export const CONNECTIONS = Number(env.BENCH_HTTP_CONNECTIONS ?? 50);
export const SEED = Number(env.BENCH_SEED ?? 20260617);
export const ONLY = env.BENCH_HTTP_ONLY ? new Set(env.BENCH_HTTP_ONLY.split(',').map((s) => s.trim())) : null;
/**
 * Cases run once more under `node --cpu-prof` (a fresh server child each); node gives the baseline of
 * node:http, the Redis case what the shared store adds.
 */
export const PROFILE_CASES: string[] =
  env.BENCH_HTTP_PROFILE === undefined
    ? ['node', 'ip-paid', 'redis-ip-free-many']
    : ['0', 'none', 'false', ''].includes(env.BENCH_HTTP_PROFILE)
      ? []
      : env.BENCH_HTTP_PROFILE.split(',').map((s) => s.trim());
export const PROFILE_INTERVAL_US = Number(env.BENCH_HTTP_PROFILE_INTERVAL ?? 500);
export const PIN = env.BENCH_HTTP_PIN !== '0';
export const IP_POOL = 10_000;
export const MAC_POOL = 10_000;
export const TIMEOUT_S = 10;
/** Interleaved runs of the embedded and the Redis store (BENCH_HTTP_PAIRS pairs of PAIR_SECONDS each). */
export const PAIRS = Number(env.BENCH_HTTP_PAIRS ?? 3);
export const PAIR_SECONDS = Number(env.BENCH_HTTP_PAIR_SECONDS ?? 5);
/** The targets' rounds: the ceilings, nginx and ours alternating (BENCH_HTTP_ROUNDS rounds of PAIR_SECONDS runs; 0 skips). */
export const ROUNDS = Number(env.BENCH_HTTP_ROUNDS ?? 3);
/** Memory soak: seconds of random IPv4 / IPv6 / MAC traffic against one service process (0: none), RSS sampled every SOAK_EVERY s. */
export const SOAK = Number(env.BENCH_HTTP_SOAK ?? 0);
export const SOAK_EVERY = Number(env.BENCH_HTTP_SOAK_EVERY ?? 5);

export const TARGETS = {
  ipv4VsNode: 0.8,
  ipv4VsNginx: 0.5,
  ipv6MacVsNode: 0.7,
  singleP99Us: 10_000,
  batch1000P50Us: 10_000,
  soakRssMb: 400,
};

/** The shared-store cases' Redis (`none`: skipped). */
export const REDIS_URL = env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const log = (line: string) => process.stderr.write(`${line}\n`);
export const round = (n: number, digits = 0) => Math.round(n * 10 ** digits) / 10 ** digits;
export const wanted = (id: string) => ONLY === null || ONLY.has(id);

export function fmtRate(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return n.toFixed(1);
}
