/**
 * When each key was last used (`ApiKey.last_used_at`), as both stores keep it: noted in the process
 * on every authenticated request (`AccountStore.noteKeyUse`), to the minute, and taken in bulk by
 * the store's writer (SQLite's flush, Redis's periodic script). A request in a minute already noted
 * costs one map lookup and one comparison; a key is pending at most once per minute, and the
 * stores write a value only over an older one, so the time never moves backwards.
 */

const MINUTE_MS = 60_000;
/** The map of noted minutes is cleared wholesale past this size: a key noted again is only written again. */
const NOTED_LIMIT = 100_000;

/** key id → the minute of its last use, ISO 8601 ("2026-11-25T10:07:00.000Z") */
export type KeyUses = Map<string, string>;

export class KeyUseNotes {
  /** the newest minute noted per key (epoch ms) */
  private readonly noted = new Map<string, number>();
  /** minutes not written yet (epoch ms), by key */
  private pending = new Map<string, number>();

  note(keyId: string, now: Date): void {
    const minute = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;
    const last = this.noted.get(keyId);
    if (Number.isNaN(minute) || (last !== undefined && minute <= last)) return;
    if (this.noted.size >= NOTED_LIMIT) this.noted.clear();
    this.noted.set(keyId, minute);
    this.pending.set(keyId, minute);
  }

  /** The uses noted since the last take; what the store could not write goes back with `giveBack`. */
  take(): KeyUses {
    const taken: KeyUses = new Map();
    for (const [keyId, minute] of this.pending) taken.set(keyId, new Date(minute).toISOString());
    this.pending = new Map();
    return taken;
  }

  /** Uses taken but not written: pending again, unless a newer minute was noted meanwhile. */
  giveBack(uses: KeyUses): void {
    for (const [keyId, at] of uses) {
      const minute = Date.parse(at);
      const noted = this.pending.get(keyId);
      if (noted === undefined || noted < minute) this.pending.set(keyId, minute);
    }
  }
}
