/**
 * Schema of the embedded store, as an ordered list of migrations. `PRAGMA user_version` holds the
 * version a file has reached; each migration runs in its own transaction together with the version
 * bump, so a failed migration leaves the file at the previous version, never half-changed.
 * Append new migrations; never edit one that has shipped.
 */
import type Database from 'better-sqlite3';

export interface Migration {
  version: number;
  description: string;
  up(db: Database.Database): void;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: 'accounts and API keys (hash only, never the secret)',
    up(db) {
      db.exec(`
        CREATE TABLE accounts (
          id TEXT PRIMARY KEY,
          plan TEXT NOT NULL,
          expires_at TEXT,
          suspended INTEGER NOT NULL DEFAULT 0,
          email TEXT,
          created_at TEXT NOT NULL
        );
        CREATE TABLE api_keys (
          id TEXT PRIMARY KEY,
          account_id TEXT NOT NULL REFERENCES accounts(id),
          name TEXT NOT NULL,
          websites TEXT NOT NULL DEFAULT '[]',
          hash BLOB NOT NULL,
          created_at TEXT NOT NULL,
          rolled_at TEXT
        );
        CREATE UNIQUE INDEX api_keys_hash ON api_keys(hash);
        CREATE INDEX api_keys_account ON api_keys(account_id);
      `);
    },
  },
  {
    version: 2,
    description: 'usage counters per account, UTC day and api (ip, blacklist, mac, rejected)',
    up(db) {
      // No foreign key to accounts: a counter flush must never fail on a row it cannot fix.
      db.exec(`
        CREATE TABLE usage (
          account_id TEXT NOT NULL,
          day TEXT NOT NULL,
          api TEXT NOT NULL CHECK (api IN ('ip', 'blacklist', 'mac', 'rejected')),
          count INTEGER NOT NULL,
          PRIMARY KEY (account_id, day, api)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 3,
    description: 'blacklist: reports, listed addresses, change counter; daily counters of the keyless legacy endpoints',
    up(db) {
      // Times are epoch milliseconds. A report's created_at is the first of its merged repeats and
      // last_at the latest; addresses.seq is the change counter value of the address's last change,
      // so another connection's changes can be found (src/store/sqlite/sqliteBlacklist.ts).
      db.exec(`
        CREATE TABLE blacklist_reports (
          id INTEGER PRIMARY KEY,
          ip TEXT NOT NULL,
          reporter TEXT NOT NULL,
          threat_type TEXT NOT NULL,
          message TEXT,
          source TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          last_at INTEGER NOT NULL,
          repeats INTEGER NOT NULL DEFAULT 1
        );
        CREATE INDEX blacklist_reports_ip ON blacklist_reports(ip, reporter, created_at);
        CREATE INDEX blacklist_reports_last ON blacklist_reports(last_at);
        CREATE TABLE blacklist_addresses (
          ip TEXT PRIMARY KEY,
          country_code TEXT,
          isp TEXT,
          seq INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX blacklist_addresses_seq ON blacklist_addresses(seq);
        CREATE TABLE blacklist_state (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          seq INTEGER NOT NULL,
          changed_at INTEGER
        );
        INSERT INTO blacklist_state (id, seq, changed_at) VALUES (1, 0, NULL);
        CREATE TABLE daily_counters (
          bucket TEXT NOT NULL,
          client TEXT NOT NULL,
          day TEXT NOT NULL,
          count INTEGER NOT NULL,
          PRIMARY KEY (bucket, client, day)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 4,
    description: 'daily counters by day, so that days past can be purged without reading every row',
    up(db) {
      db.exec('CREATE INDEX daily_counters_day ON daily_counters (day)');
    },
  },
  {
    version: 5,
    description: "dashboard: sessions, when each key was last used, and each reporter's reports",
    up(db) {
      // A session is keyed by the SHA-256 (hex) of its token; the token itself is never stored.
      db.exec(`
        CREATE TABLE dashboard_sessions (
          token_hash TEXT PRIMARY KEY,
          kind TEXT NOT NULL CHECK (kind IN ('account', 'operator')),
          account_id TEXT,
          key_id TEXT,
          credential_stamp TEXT,
          created_at TEXT NOT NULL,
          expires_at TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX dashboard_sessions_expires ON dashboard_sessions(expires_at);
        ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
        CREATE INDEX accounts_created ON accounts(created_at, id);
        CREATE INDEX blacklist_reports_reporter ON blacklist_reports(reporter, last_at);
      `);
    },
  },
  {
    version: 6,
    description: "dashboard: sessions by their owner, so that a sign-in can end the owner's oldest past the cap",
    up(db) {
      db.exec('CREATE INDEX dashboard_sessions_owner ON dashboard_sessions(kind, account_id, expires_at)');
    },
  },
];

export const latestVersion = migrations[migrations.length - 1].version;

class SchemaVersionError extends Error {
  constructor(found: number, known: number) {
    super(`the database has schema version ${found}, newer than this program knows (${known}); upgrade netlookup`);
    this.name = 'SchemaVersionError';
  }
}

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Brings the file to the last version of `list` (or `target`); returns the versions before and after. */
export function migrate(
  db: Database.Database,
  list: readonly Migration[] = migrations,
  target: number = list[list.length - 1].version,
): { from: number; to: number } {
  const from = schemaVersion(db);
  const known = list[list.length - 1].version;
  if (from > known) throw new SchemaVersionError(from, known);
  for (const m of list) {
    if (m.version <= from || m.version > target) continue;
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
  return { from, to: schemaVersion(db) };
}
