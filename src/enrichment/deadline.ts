/**
 * A query's answer for one caller, by the caller's deadline: query-time lookups (reverse DNS,
 * RDAP) run on after a caller stops waiting, so that their answers fill the cache for later ones.
 */

/** Milliseconds of a monotonic clock (default `performance.now`): deadlines are read on it. */
export interface MonotonicClock {
  now(): number;
}

export const performanceClock: MonotonicClock = { now: () => performance.now() };

/** `flight`'s answer, or `late()` at `deadlineAt` if it has not come; a failed flight answers `failed(error)`. */
export function byDeadline<T>(
  flight: Promise<T>,
  deadlineAt: number,
  clock: MonotonicClock,
  late: () => T,
  failed: (error: unknown) => T,
): Promise<T> {
  return new Promise((resolve) => {
    // no deadline (Infinity) waits for the flight, which has its own bound
    const timer = Number.isFinite(deadlineAt) ? setTimeout(() => resolve(late()), Math.max(0, deadlineAt - clock.now())) : undefined;
    const settle = (answer: T) => {
      clearTimeout(timer);
      resolve(answer);
    };
    flight.then(settle, (error: unknown) => settle(failed(error)));
  });
}
