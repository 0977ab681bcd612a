/**
 * The shared store's failure rule: a failure of Redis is StoreUnavailableError, refusals of the
 * input pass as they are, and an outage (Redis unreachable) is told from an error Redis answered.
 */
import { StoreInputError } from '../storeInput.js';
import { KeyLimitError, StoreUnavailableError } from '../store.js';

/** A MULTI's replies, failing when any command in it failed (null: the MULTI was aborted). */
export function execResult(results: [Error | null, unknown][] | null): unknown[] {
  if (results === null) throw new Error('transaction aborted');
  for (const [error] of results) if (error) throw error;
  return results.map(([, value]) => value);
}

/** Runs Redis work, mapping a failure of Redis to StoreUnavailableError (the Redis store's guard). */
export type RedisGuard = <T>(what: string, work: () => Promise<T>) => Promise<T>;

/** The guard of a store that refuses all work once `isClosed()`; refusals of the input pass as they are. */
export function redisGuard(isClosed: () => boolean): RedisGuard {
  return async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    if (isClosed()) throw new StoreUnavailableError(`redis store: ${what}: the store is closed`);
    try {
      return await work();
    } catch (e) {
      if (e instanceof KeyLimitError || e instanceof StoreInputError || e instanceof StoreUnavailableError || e instanceof RangeError)
        throw e;
      throw unavailable(`redis store: ${what} failed`, e);
    }
  };
}

export function unavailable(message: string, cause: unknown): StoreUnavailableError {
  const error = new StoreUnavailableError(`${message}: ${cause instanceof Error ? cause.message : String(cause)}`);
  error.cause = cause;
  return error;
}

/**
 * Errors Redis answers while it cannot serve, for a moment: a Cluster without a master for some
 * slots or moving them (CLUSTERDOWN, TRYAGAIN), a master whose replica link is down
 * (MASTERDOWN), a server loading its data (LOADING), a master turned replica by a failover
 * (READONLY, until the connection follows the new master).
 */
const PASSING_REFUSAL = /^(?:CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING|READONLY)\b/;

/**
 * True when a store failure is Redis being unreachable (closed connection, timeout, not connected)
 * or, for a moment, unable to serve (above), rather than Redis answering with an error: the
 * failures the fallback stands in for.
 */
export function isRedisOutage(error: unknown): boolean {
  if (!(error instanceof StoreUnavailableError)) return false;
  const cause = error.cause;
  return cause instanceof Error && (cause.name !== 'ReplyError' || PASSING_REFUSAL.test(cause.message));
}

/** True when an outage's failure certainly never reached Redis (refused before sending: not connected). */
export function neverSent(error: unknown): boolean {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error && /enableOfflineQueue/.test(cause.message);
}
