/**
 * The store of a worker on the embedded store (src/store/workers/): the meter and the blacklist's
 * conformance suites through the primary's channel — JSON in both directions, as the cluster's
 * channel carries it — so that what the primary decides and what the worker hears are what one
 * process would answer. And failures cross as what they were.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import { StoreUnavailableError, type Store } from '../../src/store/store.js';
import { answerStoreCalls, storeCallsOf, type StoreCalls, type StoreChannelEnd } from '../../src/store/workers/storeCalls.js';
import { StoreCallChannel, WorkerStore } from '../../src/store/workers/workerStore.js';
import { blacklistConformance } from './blacklistConformance.js';
import { meterConformance } from './meterConformance.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-worker-store-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** One end of a channel that carries what JSON carries, as the cluster's channel does. */
function jsonEnd(port: MessagePort): StoreChannelEnd & { port: MessagePort } {
  return {
    port,
    send(message, done) {
      port.postMessage(JSON.parse(JSON.stringify(message)));
      done(null);
    },
    on(_event, listener) {
      port.on('message', listener);
    },
  };
}

/** A worker's store on `dir`, its primary (a store of its own on the same file) answering in this process. */
function workerStoreOn(dir: string, calls?: (primary: Store) => StoreCalls): Store {
  const primary = SqliteStore.open(dir);
  const { port1, port2 } = new MessageChannel();
  answerStoreCalls(jsonEnd(port2), (calls ?? storeCallsOf)(primary));
  const worker = new WorkerStore(SqliteStore.open(dir), new StoreCallChannel(jsonEnd(port1)));
  return {
    kind: worker.kind,
    accounts: worker.accounts,
    meter: worker.meter,
    blacklist: worker.blacklist,
    sessions: worker.sessions,
    healthy: () => worker.healthy(),
    close: async () => {
      await worker.close();
      await primary.close();
      port1.close();
    },
  };
}

meterConformance('sqlite worker', async () => workerStoreOn(path.join(root, 'meter')));
blacklistConformance('sqlite worker', async () => workerStoreOn(path.join(root, 'blacklist')));

describe('the channel to the primary', () => {
  it("refusals cross as the store's unavailability or as what they were; a closed channel refuses at once", async () => {
    const store = workerStoreOn(path.join(root, 'failures'), (primary) => ({
      ...storeCallsOf(primary),
      usage: async () => {
        throw new StoreUnavailableError('sqlite store: read usage failed: disk I/O error');
      },
      countRejected: async () => {
        throw new RangeError('no such account');
      },
    }));
    const now = new Date('2026-11-29T10:00:00Z');
    const unavailable = store.meter.usage('acc_1', now);
    await expect(unavailable).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(unavailable).rejects.toThrow('disk I/O error');
    const other = store.meter.countRejected('acc_1', now);
    await expect(other).rejects.not.toBeInstanceOf(StoreUnavailableError);
    await expect(other).rejects.toThrow('no such account');
    await store.close();

    const { port1 } = new MessageChannel();
    const channel = new StoreCallChannel(jsonEnd(port1));
    const waiting = channel.call('healthy');
    channel.close('the primary process is gone');
    await expect(waiting).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(channel.call('healthy')).rejects.toThrow('the primary process is gone');
    port1.close();
  });
});
