/**
 * The embedded store's one rule for failures: any SQLite failure surfaces as StoreUnavailableError,
 * so the HTTP layer can answer `unavailable`; refusals of the input (KeyLimitError,
 * StoreInputError) pass as they are. The accounts, the meter and the blacklist run their SQLite
 * work through the guard of the store that owns the connection.
 */
import { StoreInputError } from '../storeInput.js';
import { KeyLimitError, StoreUnavailableError } from '../store.js';

/** Runs SQLite work, mapping database failures to StoreUnavailableError (SqliteStore's guard). */
export type Guard = <T>(what: string, work: () => T) => T;

/** The guard of a store that refuses all work once `isClosed()`. */
export function sqliteGuard(isClosed: () => boolean): Guard {
  return <T>(what: string, work: () => T): T => {
    if (isClosed()) throw new StoreUnavailableError(`sqlite store: ${what}: the store is closed`);
    try {
      return work();
    } catch (e) {
      if (e instanceof KeyLimitError || e instanceof StoreInputError) throw e;
      throw unavailable(`sqlite store: ${what} failed`, e);
    }
  };
}

export function unavailable(message: string, cause: unknown): StoreUnavailableError {
  const error = new StoreUnavailableError(`${message}: ${cause instanceof Error ? cause.message : String(cause)}`);
  error.cause = cause;
  return error;
}
