/**
 * The keyless legacy endpoints' daily counters on the embedded store across UTC midnight: the
 * first request of a new day writes its own counter, never every client's; rows of days past are
 * purged in small batches by the store's timer.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/sqliteStore.js';

const CLIENTS = 20_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('daily counters across midnight (SQLite)', () => {
  it('costs one row for a returning client, purges days past in batches, and counts the new day afresh', async () => {
    // The store's one-second timer is held, so counts stay pending until the test moves it.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-daily-'));
    const store = SqliteStore.open(path.join(dir, 'data'));
    const rows = () => {
      const reader = new Database(path.join(dir, 'data', 'netlookup.sqlite'), { readonly: true });
      try {
        return reader.prepare('SELECT day, count(*) AS n FROM daily_counters GROUP BY day ORDER BY day').all() as {
          day: string;
          n: number;
        }[];
      } finally {
        reader.close();
      }
    };
    try {
      const before = new Date('2026-01-01T23:59:59Z');
      for (let i = 0; i < CLIENTS; i++) await store.blacklist.countDaily('legacy-check', `198.51.100.${i}`, 100, before);
      expect(rows()).toEqual([]);

      const after = new Date('2026-01-02T00:00:01Z');
      const first = await store.blacklist.countDaily('legacy-check', '198.51.100.0', 100, after);
      expect(first.used).toBe(1);
      // the returning client's own count of the day before, and nothing else
      expect(rows()).toEqual([{ day: '2026-01-01', n: 1 }]);

      vi.advanceTimersByTime(1000);
      // pending counts written (both days), then one batch of days past purged: both days are
      // before yesterday for the store's own clock
      const total = rows().reduce((n, r) => n + r.n, 0);
      expect(total).toBe(CLIENTS + 1 - 1000);
      for (let tick = 0; tick < CLIENTS / 1000 + 1; tick++) vi.advanceTimersByTime(1000);
      expect(rows()).toEqual([]);

      const today = new Date();
      await store.blacklist.countDaily('legacy-check', '198.51.100.7', 100, today);
      vi.advanceTimersByTime(1000);
      expect(rows().map((r) => r.n)).toEqual([1]);
    } finally {
      await store.close();
    }
  });
});
