/**
 * The persistent cache of RDAP abuse contacts: a SQLite file (better-sqlite3, as the embedded
 * store), shared by the processes of a host and kept across restarts, so that a registry is asked
 * about a block about once a week whatever the traffic.
 *
 * Keyed by block, not by address: an answer names the registry's most specific network holding
 * the asked address, and is kept for that network clipped to the asked address's /24 (IPv4) or
 * /48 (IPv6), the smallest blocks the registries allocate or assign for routing. Clipping keeps a
 * wide network's answer (a /8 allocation) from standing for reassignments inside it that were never
 * asked about; a reassignment smaller than a /24 inside a block already cached is not seen until
 * the entry expires (docs/feeds.md). Within a block the most specific entry holding the address
 * answers. A row holds the mailbox or null ("the registry names no abuse contact", or "the
 * registry has no such network") and when it expires.
 *
 * Bounded: expired rows are deleted when the cache opens and hourly; past `maxRows` the oldest go.
 *
 * In front of the file, each process keeps the blocks it has read (their entries, or none) in an
 * LRU of MEMORY_BLOCKS: a lookup of a block read within MEMORY_RECHECK_MS costs no query (a
 * SQLite point query is 3.5 to 5 µs; the memory, well under one). Another process's answer for a
 * block is seen once the block is read again.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import type { ParsedIp } from '../address/ipAddress.js';
import { ipv6Value } from '../address/ipAddress.js';

/** How long answers are kept: a contact a week, "none" a day (a new contact shows within a day). */
export const CONTACT_TTL_MS = 7 * 86_400_000;
export const NO_CONTACT_TTL_MS = 86_400_000;
const SWEEP_EVERY_MS = 3_600_000;
const MEMORY_BLOCKS = 65_536;
const MEMORY_RECHECK_MS = 60_000;
const DEFAULT_MAX_ROWS = 2_000_000;

/** The block a cache entry may span: the address's /24 or /48. */
const BLOCK_BITS = { 4: 24, 6: 48 } as const;

interface CachedContact {
  /** the mailbox, or null: the registry names none */
  email: string | null;
}

export interface RdapCache {
  /** The entry holding `ip`, unexpired at `nowMs` (wall clock), or undefined. */
  get(ip: ParsedIp, nowMs: number): CachedContact | undefined;
  /** Keeps `email` for the network [start, end] holding `ip` (clipped to its block) until `expiresAt`. */
  set(ip: ParsedIp, network: { start: bigint; end: bigint } | null, email: string | null, nowMs: number, expiresAt: number): void;
  rows(): number;
  close(): void;
}

function bytesOf(value: bigint, family: 4 | 6): Buffer {
  const out = Buffer.alloc(family === 4 ? 4 : 16);
  if (family === 4) out.writeUInt32BE(Number(value));
  else {
    out.writeBigUInt64BE(value >> 64n, 0);
    out.writeBigUInt64BE(value & 0xffffffffffffffffn, 8);
  }
  return out;
}

function addressValue(ip: ParsedIp): { family: 4 | 6; value: bigint } {
  return ip.v4 >= 0 ? { family: 4, value: BigInt(ip.v4) } : { family: 6, value: ipv6Value(ip.words) };
}

function blockOf(family: 4 | 6, value: bigint): { start: bigint; end: bigint } {
  const hostBits = BigInt((family === 4 ? 32 : 128) - BLOCK_BITS[family]);
  const start = (value >> hostBits) << hostBits;
  return { start, end: start + (1n << hostBits) - 1n };
}

/** The block holding `ip` (its /24 or /48, within which the cache keeps entries), as a key: `family:first address`. */
export function blockKeyOf(ip: ParsedIp): string {
  const { family, value } = addressValue(ip);
  return `${family}:${blockOf(family, value).start}`;
}

export function openRdapCache(file: string, maxRows = DEFAULT_MAX_ROWS): RdapCache {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // better-sqlite3 waits on the event loop: a write meeting another process's write waits at most this
  db.pragma('busy_timeout = 50');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE IF NOT EXISTS abuse_contacts (
    family INTEGER NOT NULL,
    block BLOB NOT NULL,
    start BLOB NOT NULL,
    "end" BLOB NOT NULL,
    email TEXT,
    fetched_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (family, block, start, "end")
  ) WITHOUT ROWID`);
  db.exec('CREATE INDEX IF NOT EXISTS abuse_contacts_expiry ON abuse_contacts (expires_at)');
  const blockRows = db.prepare<[number, Buffer, number], { start: Buffer; end: Buffer; email: string | null; expires_at: number }>(
    `SELECT start, "end", email, expires_at FROM abuse_contacts WHERE family = ? AND block = ? AND expires_at > ?`,
  );
  const put = db.prepare<[number, Buffer, Buffer, Buffer, string | null, number, number]>(
    `INSERT OR REPLACE INTO abuse_contacts (family, block, start, "end", email, fetched_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM abuse_contacts');
  const expire = db.prepare<[number]>('DELETE FROM abuse_contacts WHERE expires_at <= ?');
  const trim = db.prepare<[number]>(
    `DELETE FROM abuse_contacts WHERE (family, block, start, "end") IN
     (SELECT family, block, start, "end" FROM abuse_contacts ORDER BY fetched_at LIMIT ?)`,
  );
  const sweep = () => {
    expire.run(Date.now());
    const excess = count.get()!.n - maxRows;
    if (excess > 0) trim.run(excess);
  };
  sweep();
  const timer = setInterval(() => {
    try {
      sweep();
    } catch {
      // a busy or failing file: the next sweep tries again (lookups report their own errors)
    }
  }, SWEEP_EVERY_MS);
  timer.unref();
  let open = true;

  interface Entry {
    start: bigint;
    end: bigint;
    email: string | null;
    expiresAt: number;
  }
  const valueOf = (bytes: Buffer) =>
    bytes.length === 4 ? BigInt(bytes.readUInt32BE(0)) : (bytes.readBigUInt64BE(0) << 64n) | bytes.readBigUInt64BE(8);
  /** blocks read from the file, by `family:block start`, least recently used first */
  const memory = new Map<string, { entries: Entry[]; readAt: number }>();

  function entriesOf(family: 4 | 6, blockStart: bigint, nowMs: number): Entry[] {
    const key = `${family}:${blockStart}`;
    let block = memory.get(key);
    if (block !== undefined) memory.delete(key);
    if (block === undefined || nowMs - block.readAt >= MEMORY_RECHECK_MS || nowMs < block.readAt) {
      const rows = blockRows.all(family, bytesOf(blockStart, family), nowMs);
      block = {
        entries: rows.map((r) => ({ start: valueOf(r.start), end: valueOf(r.end), email: r.email, expiresAt: r.expires_at })),
        readAt: nowMs,
      };
      if (memory.size >= MEMORY_BLOCKS) memory.delete(memory.keys().next().value as string);
    }
    memory.set(key, block);
    return block.entries;
  }

  return {
    get(ip, nowMs) {
      if (!open) return undefined;
      const { family, value } = addressValue(ip);
      let best: Entry | undefined;
      for (const entry of entriesOf(family, blockOf(family, value).start, nowMs)) {
        if (entry.start > value || entry.end < value || entry.expiresAt <= nowMs) continue;
        // the most specific: the latest start, then the earliest end
        if (best === undefined || entry.start > best.start || (entry.start === best.start && entry.end < best.end)) best = entry;
      }
      return best === undefined ? undefined : { email: best.email };
    },
    set(ip, network, email, nowMs, expiresAt) {
      if (!open) return;
      const { family, value } = addressValue(ip);
      const block = blockOf(family, value);
      const start = network === null || network.start < block.start ? block.start : network.start;
      const end = network === null || network.end > block.end ? block.end : network.end;
      put.run(family, bytesOf(block.start, family), bytesOf(start, family), bytesOf(end, family), email, nowMs, expiresAt);
      const entries = entriesOf(family, block.start, nowMs);
      const same = entries.findIndex((entry) => entry.start === start && entry.end === end);
      if (same >= 0) entries.splice(same, 1);
      entries.push({ start, end, email, expiresAt });
    },
    rows: () => (open ? count.get()!.n : 0),
    close() {
      if (!open) return;
      open = false;
      clearInterval(timer);
      memory.clear();
      db.close();
    },
  };
}
