/**
 * The per-second limit (ARCHITECTURE "Keys, plans, quotas"): per account, a true sliding window.
 * A request is admitted when fewer than `limit` requests were admitted in the `windowMs` before it,
 * so no window of that length, wherever it starts, ever holds more than `limit` (a counter reset
 * on the second boundary would let 2x through across the boundary).
 *
 * Each account keeps only its last `limit` admitted instants in a ring, oldest first: when the ring
 * is full, the oldest slot is the limit-th most recent admission, and the request is admitted iff
 * that one has left the window. Refused requests take no place. Accounts whose newest admission has
 * left the window carry no information and are swept, so memory follows the accounts active in the
 * last second. The clock is the caller's (`now`, in ms), which keeps this pure and testable.
 */

interface Ring {
  times: Float64Array;
  /** index of the oldest instant */
  start: number;
  size: number;
  newest: number;
}

export class SlidingRateWindow {
  private readonly rings = new Map<string, Ring>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(readonly windowMs = 1000) {}

  /** Admits (and records) the request, or refuses it without recording it. */
  tryAdmit(accountId: string, limit: number, now: number): boolean {
    this.sweep(now);
    const capacity = Math.floor(limit);
    if (!(capacity >= 1)) return false;
    let ring = this.rings.get(accountId);
    // A clock stepped back by more than the window: the recorded instants say nothing any more.
    if (ring !== undefined && now < ring.newest - this.windowMs) ring = undefined;
    if (ring === undefined) {
      ring = { times: new Float64Array(capacity), start: 0, size: 0, newest: now };
      this.rings.set(accountId, ring);
    } else if (ring.times.length !== capacity) {
      ring = resized(ring, capacity);
      this.rings.set(accountId, ring);
    }
    // Instants stay ordered: a slightly earlier `now` is recorded as the newest instant (stricter).
    const at = Math.max(now, ring.newest);
    if (ring.size < capacity) {
      ring.times[(ring.start + ring.size) % capacity] = at;
      ring.size++;
    } else if (ring.times[ring.start] <= now - this.windowMs) {
      ring.times[ring.start] = at;
      ring.start = (ring.start + 1) % capacity;
    } else {
      return false;
    }
    ring.newest = at;
    return true;
  }

  /** Accounts currently remembered (for tests and metrics). */
  get accounts(): number {
    return this.rings.size;
  }

  /** At most once per window: forget accounts with nothing left in their window. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs && now >= this.lastSweep) return;
    this.lastSweep = now;
    for (const [id, ring] of this.rings) if (ring.newest <= now - this.windowMs) this.rings.delete(id);
  }
}

/** The same ring with a new capacity (the plan changed), keeping the most recent instants. */
function resized(ring: Ring, capacity: number): Ring {
  const keep = Math.min(ring.size, capacity);
  const times = new Float64Array(capacity);
  const old = ring.times.length;
  for (let i = 0; i < keep; i++) times[i] = ring.times[(ring.start + ring.size - keep + i) % old];
  return { times, start: 0, size: keep, newest: ring.newest };
}
