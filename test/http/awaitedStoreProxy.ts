/** A store that answers later, as a shared store over the network does: every answer a turn of the event loop away. */
import type { Store } from '../../src/store/store.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A part of the store as one that answers later: no `immediate`, and every answer a turn of the event loop away. */
function awaited<T extends object>(part: T): T {
  return new Proxy(part, {
    get(target, prop, receiver) {
      if (prop === 'immediate') return undefined;
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await nextTurn();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** The store as one that answers later: its accounts, its meter and its health. */
export function awaitedStore(inner: Store): Store {
  return {
    kind: inner.kind,
    accounts: awaited(inner.accounts),
    meter: awaited(inner.meter),
    blacklist: inner.blacklist,
    sessions: inner.sessions,
    healthy: async () => {
      await nextTurn();
      return inner.healthy();
    },
    close: () => inner.close(),
  };
}
