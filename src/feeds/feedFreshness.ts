/**
 * Which feeds of a feed table answer at a time: a feed is fresh until its stale_after. Read on
 * every lookup, so the answer is kept and recomputed only once the clock passes the next feed's
 * end, or goes back (a clock set back). Browser-safe: the feeds and their ends come in.
 */
import type { FeedState } from './format/feedTable.js';

export class FeedFreshness {
  private fresh: boolean[] = [];
  /** `fresh` holds for clock readings in [since, until) */
  private since = Infinity;
  private until = -Infinity;

  constructor(
    private readonly feeds: readonly FeedState[],
    /** when a feed stops answering, ms */
    private readonly staleAfterOf: (feed: FeedState) => number,
  ) {}

  /** Per feed, whether it answers at `nowMs`: the same array while that holds, a new one when it changes. */
  at(nowMs: number): readonly boolean[] {
    if (nowMs >= this.until || nowMs < this.since) {
      this.since = nowMs;
      this.until = Infinity;
      this.fresh = this.feeds.map((feed) => {
        const end = this.staleAfterOf(feed);
        if (end > nowMs) this.until = Math.min(this.until, end);
        return end > nowMs;
      });
    }
    return this.fresh;
  }
}
