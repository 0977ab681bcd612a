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
 * Cases run once more under `node --cpu-prof` (a fresh server child each); bare gives the baseline of
 * node + Koa, the Redis case what the shared store adds.
 */
export const PROFILE_CASES: string[] =
  env.BENCH_HTTP_PROFILE === undefined
    ? ['bare', 'ip-paid', 'redis-ip-free-many']
    : ['0', 'none', 'false', ''].includes(env.BENCH_HTTP_PROFILE)
      ? []
      : env.BENCH_HTTP_PROFILE.split(',').map((s) => s.trim());
export const PROFILE_INTERVAL_US = Number(env.BENCH_HTTP_PROFILE_INTERVAL ?? 500);
export const PIN = env.BENCH_HTTP_PIN !== '0';
export const IP_POOL = 10_000;
export const MAC_POOL = 10_000;
export const BATCH_BODIES = 32;
export const TIMEOUT_S = 10;
/** Interleaved runs of the embedded and the Redis store (BENCH_HTTP_PAIRS pairs of PAIR_SECONDS each). */
export const PAIRS = Number(env.BENCH_HTTP_PAIRS ?? 3);
export const PAIR_SECONDS = Number(env.BENCH_HTTP_PAIR_SECONDS ?? 5);
export const SAMPLE_CHECKS = 5;

export const TARGETS = {
  singleVsCeiling: 0.8,
  singleP99Us: 10_000,
  batch1000P50Us: 10_000,
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
