/**
 * Failed authentications per client address (the admin token, dashboard sign-ins): a token bucket
 * of `burst` failures refilled at `perSecond`. While a bucket is empty every attempt from that
 * address is refused, the right secret included, so a guesser learns nothing from the answers.
 * Kept per process: each instance of a deployment throttles on its own.
 */
const defaultLimit = { burst: 10, perSecond: 1 };
/** addresses remembered at most; beyond it the oldest entry goes (a flood of addresses cannot grow memory) */
const MAX_TRACKED_ADDRESSES = 10_000;

export class FailureThrottle {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();

  constructor(private readonly limit = defaultLimit) {}

  private level(address: string, nowMs: number): number {
    const bucket = this.buckets.get(address);
    if (!bucket) return this.limit.burst;
    return Math.min(this.limit.burst, bucket.tokens + ((nowMs - bucket.atMs) / 1000) * this.limit.perSecond);
  }

  /** Seconds until the address may try again; 0 when it may now. */
  waitSeconds(address: string, nowMs: number): number {
    const tokens = this.level(address, nowMs);
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / this.limit.perSecond);
  }

  fail(address: string, nowMs: number): void {
    const tokens = this.level(address, nowMs) - 1;
    this.buckets.delete(address);
    if (this.buckets.size >= MAX_TRACKED_ADDRESSES) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(address, { tokens, atMs: nowMs });
  }
}
