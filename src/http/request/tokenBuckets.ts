/**
 * Token buckets by key, kept in this process: `burst` tokens refilled at `perSecond`. They throttle
 * authentications per client (the admin token's failures, dashboard sign-ins: while a bucket is
 * empty every attempt from that client is refused, the right secret included, so a guesser learns
 * nothing from the answers), dashboard sign-ins per key, and the requests of each dashboard
 * session. Each instance of a deployment counts on its own.
 */

/** keys remembered at most; beyond it the oldest entry goes (a flood of keys cannot grow memory) */
const MAX_TRACKED_KEYS = 10_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();

  constructor(private readonly limit: { burst: number; perSecond: number }) {}

  private level(key: string, nowMs: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.limit.burst;
    return Math.min(this.limit.burst, bucket.tokens + ((nowMs - bucket.atMs) / 1000) * this.limit.perSecond);
  }

  /** Seconds until the key has a token again; 0 when it has one now. */
  waitSeconds(key: string, nowMs: number): number {
    const tokens = this.level(key, nowMs);
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / this.limit.perSecond);
  }

  /** Uses one token. */
  take(key: string, nowMs: number): void {
    const tokens = this.level(key, nowMs) - 1;
    this.buckets.delete(key);
    if (this.buckets.size >= MAX_TRACKED_KEYS) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(key, { tokens, atMs: nowMs });
  }
}

/** Failed authentications per client: 10, then one more a second. */
export const failedAuthenticationLimit = { burst: 10, perSecond: 1 };

/** `count` at once, then `count` a minute. */
export const perMinute = (count: number) => ({ burst: count, perSecond: count / 60 });
