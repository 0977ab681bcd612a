/**
 * Hot reload: the engine in use is replaced only by a fully loaded and validated one. A load that
 * fails leaves the current engine answering, so a bad table file never replaces good tables.
 */
import type { LookupEngine } from './lookupEngine.js';

export class LiveEngine {
  private current: LookupEngine;

  constructor(
    initial: LookupEngine,
    private readonly load: () => Promise<LookupEngine>,
  ) {
    this.current = initial;
  }

  get engine(): LookupEngine {
    return this.current;
  }

  /** Loads new tables beside the current ones and swaps them in; throws, keeping the old, on failure. */
  async reload(): Promise<LookupEngine> {
    const next = await this.load();
    this.current = next;
    return next;
  }
}
