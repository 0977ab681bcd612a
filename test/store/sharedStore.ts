/** The store a conformance suite's tests share: opened before the first, closed and cleaned up after the last. */
import { afterAll, beforeAll } from 'vitest';
import type { Store } from '../../src/store/store.js';

export interface SharedStore {
  readonly store: Store;
  /** Closes the store (writing what it holds in memory) and opens it again. */
  reopen(): Promise<void>;
}

/** Registers the suite's hooks: call it inside the suite's describe(). */
export function sharedStore(open: () => Promise<Store>, cleanup?: () => Promise<void>): SharedStore {
  let store: Store | undefined;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store?.close();
    await cleanup?.();
  });
  return {
    get store(): Store {
      if (store === undefined) throw new Error('the shared store is opened before the first test');
      return store;
    },
    async reopen() {
      await store?.close();
      store = await open();
    },
  };
}
