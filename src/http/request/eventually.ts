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

/**
 * `step` of `self` with the value, at once when it is here, else when it arrives: the steps of a
 * request written as methods of one object, so that a request answered at once (the embedded
 * store) allocates no closure per step.
 */
export function whenReadyOn<T, S, R>(value: Eventually<T>, self: S, step: (this: S, value: T) => Eventually<R>): Eventually<R> {
  return value instanceof Promise ? value.then((ready) => step.call(self, ready)) : step.call(self, value);
}
