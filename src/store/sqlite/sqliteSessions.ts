/**
 * The embedded store's dashboard sessions (the `SessionStore` of SqliteStore, on its connection):
 * table dashboard_sessions, keyed by the SHA-256 of the session's token. A session is committed
 * before `create` resolves, so a sign-in survives `kill -9` like an account change.
 *
 * Expired rows are purged on the way, a few at a time by each `create` (its created_at is the
 * instant of the sign-in): `get` never answers an expired session, so the purge is for space only.
 * In the same transaction, `create` ends the owner's sessions past its `keep` (index
 * dashboard_sessions_owner: kind, account_id, expires_at; the operator's have no account).
 */
import type Database from 'better-sqlite3';
import { checkedKeep, checkedSession, isTokenHash, sessionExpired } from '../storeInput.js';
import type { Guard } from './sqliteGuard.js';
import type { DashboardSession, SessionStore } from '../store.js';

/** Expired sessions deleted per sign-in at most: a sign-in's cost stays bounded, and sign-ins outnumber what expires. */
const PURGE_BATCH = 100;

type SessionRow = DashboardSession & { token_hash: string };

export class SqliteSessions implements SessionStore {
  private readonly sql: ReturnType<typeof prepareStatements>;

  constructor(
    private readonly db: Database.Database,
    private readonly guard: Guard,
  ) {
    this.sql = prepareStatements(db);
  }

  async create(tokenHash: string, session: DashboardSession, keep: number): Promise<number> {
    const stored = checkedSession(tokenHash, session);
    checkedKeep(keep);
    return this.guard('create session', () =>
      this.db
        .transaction(() => {
          this.sql.purgeExpired.run(stored.created_at);
          this.sql.insert.run({ ...stored, token_hash: tokenHash });
          const owner = { kind: stored.kind, account_id: stored.account_id, now: stored.created_at, keep };
          return this.sql.endPastKeep.run(owner).changes;
        })
        .immediate(),
    );
  }

  async get(tokenHash: string, now: Date): Promise<DashboardSession | null> {
    if (!isTokenHash(tokenHash)) return null;
    const row = this.guard('read session', () => this.sql.session.get(tokenHash));
    if (row === undefined) return null;
    const { token_hash: _hash, ...session } = row;
    return sessionExpired(session, now) ? null : session;
  }

  async delete(tokenHash: string): Promise<void> {
    if (!isTokenHash(tokenHash)) return;
    this.guard('delete session', () => this.sql.delete.run(tokenHash));
  }
}

function prepareStatements(db: Database.Database) {
  return {
    insert: db.prepare(
      'INSERT OR REPLACE INTO dashboard_sessions (token_hash, kind, account_id, key_id, credential_stamp, created_at, expires_at) ' +
        'VALUES (@token_hash, @kind, @account_id, @key_id, @credential_stamp, @created_at, @expires_at)',
    ),
    session: db.prepare<[string], SessionRow>(
      'SELECT token_hash, kind, account_id, key_id, credential_stamp, created_at, expires_at FROM dashboard_sessions WHERE token_hash = ?',
    ),
    delete: db.prepare('DELETE FROM dashboard_sessions WHERE token_hash = ?'),
    // the owner's live sessions but the `keep` that end last (ties: the greater token hash stays)
    endPastKeep: db.prepare<{ kind: string; account_id: string | null; now: string; keep: number }>(
      'DELETE FROM dashboard_sessions WHERE token_hash IN (SELECT token_hash FROM dashboard_sessions ' +
        'WHERE kind = @kind AND account_id IS @account_id AND expires_at > @now ' +
        'ORDER BY expires_at DESC, token_hash DESC LIMIT -1 OFFSET @keep)',
    ),
    purgeExpired: db.prepare<[string]>(
      `DELETE FROM dashboard_sessions WHERE token_hash IN (SELECT token_hash FROM dashboard_sessions WHERE expires_at <= ? LIMIT ${PURGE_BATCH})`,
    ),
  };
}
