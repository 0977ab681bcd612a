/**
 * The per-second limit: per account, a true sliding window.
 * A request is admitted when fewer than `limit` requests were admitted in the `windowMs` before it,
 * so no window of that length, wherever it starts, ever holds more than `limit` (a counter reset
 * on the second boundary would let 2x through across the boundary).
 *
 * Each account keeps at most its last `limit` admitted instants in a ring, oldest first: when it
 * holds `limit`, the oldest is the limit-th most recent admission, and the request is admitted iff
 * that one has left the window. Refused requests take no place. The ring starts small and, when it
 * needs room, first drops the instants that have left the window, then doubles (up to `limit`): its
 * memory follows the admissions of the last window, so a high limit costs nothing until used (a
 * ring of the limit's size is 8 MB at 1,000,000/s, made anew after every idle second). Accounts
 * whose newest admission has left the window carry no information and are swept, so memory follows
 * the accounts active in the last second. The clock is the caller's (`now`, in ms), which keeps
 * this pure and testable.
 */

/** Slots of a new ring: enough for a second of most plans' traffic without growing. */
const FIRST_SLOTS = 16;

interface Ring {
  /** the instants, oldest at `start`, wrapping around; its length grows up to `limit` */
  times: Float64Array;
  /** index of the oldest instant */
  start: number;
  size: number;
  newest: number;
  /** the limit the ring was made for */
  limit: number;
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
      ring = { times: new Float64Array(Math.min(capacity, FIRST_SLOTS)), start: 0, size: 0, newest: now, limit: capacity };
      this.rings.set(accountId, ring);
    } else if (ring.limit !== capacity) {
      ring = resized(ring, capacity);
      this.rings.set(accountId, ring);
    }
    // Instants stay ordered: a slightly earlier `now` is recorded as the newest instant (stricter).
    const at = Math.max(now, ring.newest);
    if (ring.size < capacity) {
      if (ring.size === ring.times.length) this.makeRoom(ring, now);
      ring.times[(ring.start + ring.size) % ring.times.length] = at;
      ring.size++;
    } else if (ring.times[ring.start] <= now - this.windowMs) {
      // full: the ring is `limit` long, and the oldest instant gives its slot to the newest
      ring.times[ring.start] = at;
      ring.start = (ring.start + 1) % capacity;
    } else {
      return false;
    }
    ring.newest = at;
    return true;
  }

  /**
   * The window at `now` as the X-RateLimit headers show it: the places it has left, and when all of
   * them are free again (its newest instant plus the window; `now` when it holds none). Read after
   * `tryAdmit`, it includes that request.
   */
  stateOf(accountId: string, limit: number, now: number): { remaining: number; resetMs: number } {
    const capacity = Math.floor(limit);
    if (!(capacity >= 1)) return { remaining: 0, resetMs: now };
    const ring = this.rings.get(accountId);
    const held = ring === undefined ? 0 : heldAt(ring, now - this.windowMs);
    return { remaining: Math.max(0, capacity - held), resetMs: held === 0 ? now : ring!.newest + this.windowMs };
  }

  /** A ring with every slot taken but fewer than `limit` instants: forget those out of the window, or grow. */
  private makeRoom(ring: Ring, now: number): void {
    const length = ring.times.length;
    while (ring.size > 0 && ring.times[ring.start] <= now - this.windowMs) {
      ring.start = (ring.start + 1) % length;
      ring.size--;
    }
    if (ring.size < length) return;
    const times = new Float64Array(Math.min(ring.limit, 2 * length));
    for (let i = 0; i < ring.size; i++) times[i] = ring.times[(ring.start + i) % length];
    ring.times = times;
    ring.start = 0;
  }

  /** Accounts currently remembered (for tests and metrics). */
  get accounts(): number {
    return this.rings.size;
  }

  /** Instants the rings have room for, over all accounts (for tests: memory follows traffic, not limits). */
  get slots(): number {
    let slots = 0;
    for (const ring of this.rings.values()) slots += ring.times.length;
    return slots;
  }

  /** At most once per window: forget accounts with nothing left in their window. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs && now >= this.lastSweep) return;
    this.lastSweep = now;
    for (const [id, ring] of this.rings) if (ring.newest <= now - this.windowMs) this.rings.delete(id);
  }
}

/** How many of the ring's instants come after `edge` (they are ordered: a binary search). */
function heldAt(ring: Ring, edge: number): number {
  let low = 0;
  let high = ring.size;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ring.times[(ring.start + middle) % ring.times.length] <= edge) low = middle + 1;
    else high = middle;
  }
  return ring.size - low;
}

/** The same ring with a new capacity (the plan changed), keeping the most recent instants. */
function resized(ring: Ring, capacity: number): Ring {
  const keep = Math.min(ring.size, capacity);
  const times = new Float64Array(Math.max(keep, Math.min(capacity, FIRST_SLOTS)));
  const old = ring.times.length;
  for (let i = 0; i < keep; i++) times[i] = ring.times[(ring.start + ring.size - keep + i) % old];
  return { times, start: 0, size: keep, newest: ring.newest, limit: capacity };
}
