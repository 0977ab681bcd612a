/**
 * The embedded store's in-memory index of listed addresses: what every paid IP lookup asks
 * ("listed? type, confidence, reports, last seen") answered without touching SQLite.
 *
 * Compact and allocation-free on reads: the addresses are keys of an AddressIds hash table
 * (src/store/addressIds.ts), whose ids index the entries' aggregates in parallel typed arrays
 * (struct of arrays, 25 bytes per entry).
 */
import type { Aggregate } from '../../blacklist/aggregate.js';
import { threatTypes, type ThreatType } from '../../blacklist/threatTypes.js';
import { AddressIds } from '../addressIds.js';

export class ThreatIndex {
  private readonly ids = new AddressIds();

  // Entries (struct of arrays), indexed by entry id.
  private capacity = 1024;
  lastAt = new Float64Array(this.capacity);
  oldestSec = new Uint32Array(this.capacity);
  reports = new Uint32Array(this.capacity);
  reportsAtAnchor = new Float32Array(this.capacity);
  reportersAtAnchor = new Float32Array(this.capacity);
  typeCode = new Uint8Array(this.capacity);
  private nextId = 0;
  private readonly freeIds: number[] = [];

  get size(): number {
    return this.ids.size;
  }

  /** Bytes held by the typed arrays (the index's memory, less a few object headers). */
  get bytes(): number {
    return (
      this.ids.bytes +
      this.lastAt.byteLength +
      this.oldestSec.byteLength +
      this.reports.byteLength +
      this.reportsAtAnchor.byteLength +
      this.reportersAtAnchor.byteLength +
      this.typeCode.byteLength
    );
  }

  /** Entry id of an IPv4 address (u32), or -1. */
  find4(key: number): number {
    return this.ids.find4(key);
  }

  /** Entry id of an IPv6 address (four words), or -1. */
  find6(words: ArrayLike<number>): number {
    return this.ids.find6(words);
  }

  /** Stores the aggregate of an IPv4 or IPv6 address (v4 ≥ 0 selects IPv4). */
  set(v4: number, words: ArrayLike<number>, aggregate: Aggregate): void {
    let id = this.ids.find(v4, words);
    if (id < 0) {
      id = this.newId();
      this.ids.insert(v4, words, id);
    }
    this.lastAt[id] = aggregate.lastAt;
    this.oldestSec[id] = Math.floor(aggregate.oldestAt / 1000);
    this.reports[id] = aggregate.reports;
    this.reportsAtAnchor[id] = aggregate.reportsAtAnchor;
    this.reportersAtAnchor[id] = aggregate.reportersAtAnchor;
    this.typeCode[id] = threatTypes.indexOf(aggregate.threatType);
  }

  /** Removes an address; true when it was present. */
  delete(v4: number, words: ArrayLike<number>): boolean {
    const id = this.ids.delete(v4, words);
    if (id < 0) return false;
    this.freeIds.push(id);
    return true;
  }

  threatType(id: number): ThreatType {
    return threatTypes[this.typeCode[id]];
  }

  /** Every IPv4 key (u32) whose entry passes `keep`, unsorted. */
  keys4(keep: (id: number) => boolean): Uint32Array {
    return this.ids.keys4(keep);
  }

  /** Every IPv6 key (four words each, concatenated) whose entry passes `keep`, unsorted. */
  keys6(keep: (id: number) => boolean): Uint32Array {
    return this.ids.keys6(keep);
  }

  clear(): void {
    this.ids.clear();
    this.nextId = 0;
    this.freeIds.length = 0;
  }

  private newId(): number {
    const reused = this.freeIds.pop();
    if (reused !== undefined) return reused;
    if (this.nextId === this.capacity) this.growEntries();
    return this.nextId++;
  }

  private growEntries(): void {
    const capacity = this.capacity * 2;
    const grow = <T extends Float64Array | Float32Array | Uint32Array | Uint8Array>(a: T, make: new (n: number) => T): T => {
      const b = new make(capacity);
      b.set(a);
      return b;
    };
    this.lastAt = grow(this.lastAt, Float64Array);
    this.oldestSec = grow(this.oldestSec, Uint32Array);
    this.reports = grow(this.reports, Uint32Array);
    this.reportsAtAnchor = grow(this.reportsAtAnchor, Float32Array);
    this.reportersAtAnchor = grow(this.reportersAtAnchor, Float32Array);
    this.typeCode = grow(this.typeCode, Uint8Array);
    this.capacity = capacity;
  }
}
