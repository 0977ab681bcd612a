/** A feed's state as a feed table's META holds it, for tests that write feed tables. */
import type { FeedState } from '../../src/feeds/format/feedTable.js';

export function feedState(id: string, says: string, fields: Partial<FeedState> = {}): FeedState {
  return {
    id,
    says,
    name: id,
    origin: `https://example.org/${id}`,
    version: '0',
    date: '2026-11-28',
    licence: 'test',
    attribution: 'test',
    url: 'https://example.org',
    rows: 1,
    fetched_at: '2026-11-28T00:00:00.000Z',
    stale_after: '2026-11-29T00:00:00.000Z',
    ...fields,
  };
}
