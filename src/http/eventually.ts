/**
 * A value now or later. The embedded store answers a request's checks at once and a shared one
 * over the network; the single lookups are written once for both and await only what is not here
 * yet (each await costs the hot path a promise and a turn of the microtask queue).
 */
export type Eventually<T> = T | Promise<T>;

/** `next(value)` at once when the value is here, else when it arrives. */
export function whenReady<T, R>(value: Eventually<T>, next: (value: T) => Eventually<R>): Eventually<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
