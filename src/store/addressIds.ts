/**
 * A map of IP addresses to small integer ids, compact and allocation-free on reads: the embedded
 * store's threat index (src/store/sqlite/threatIndex.ts) keys its entries with it, and the shared store's
 * listed-address set (src/store/redis/redisListedAddresses.ts) is one.
 *
 * Two open-addressing hash tables with linear probing over typed arrays: IPv4 keyed by the u32
 * address ([key, id+1] pairs, one cache line per probe), IPv6 by its four words ([w0..w3, id+1]).
 * The load factor stays at most 1/2, so an absent address usually costs one probe. Deletion shifts
 * the following run back (no tombstones).
 */
const GOLDEN = 0x9e3779b1;
const MIN_BITS = 10;

export class AddressIds {
  private bits4 = MIN_BITS;
  private table4 = new Uint32Array(2 << MIN_BITS);
  private count4 = 0;
  private bits6 = MIN_BITS;
  private table6 = new Uint32Array(5 << MIN_BITS);
  private count6 = 0;

  get size(): number {
    return this.count4 + this.count6;
  }

  get bytes(): number {
    return this.table4.byteLength + this.table6.byteLength;
  }

  /** Id of an IPv4 address (u32), or -1. */
  find4(key: number): number {
    const table = this.table4;
    const mask = (1 << this.bits4) - 1;
    for (let slot = Math.imul(key, GOLDEN) >>> (32 - this.bits4); ; slot = (slot + 1) & mask) {
      const id = table[2 * slot + 1];
      if (id === 0) return -1;
      if (table[2 * slot] === key) return id - 1;
    }
  }

  /** Id of an IPv6 address (four words), or -1. */
  find6(words: ArrayLike<number>): number {
    const table = this.table6;
    const mask = (1 << this.bits6) - 1;
    const w0 = words[0] >>> 0;
    const w1 = words[1] >>> 0;
    const w2 = words[2] >>> 0;
    const w3 = words[3] >>> 0;
    for (let slot = hash6(w0, w1, w2, w3) >>> (32 - this.bits6); ; slot = (slot + 1) & mask) {
      const at = 5 * slot;
      const id = table[at + 4];
      if (id === 0) return -1;
      if (table[at] === w0 && table[at + 1] === w1 && table[at + 2] === w2 && table[at + 3] === w3) return id - 1;
    }
  }

  /** Id of an IPv4 or IPv6 address (v4 ≥ 0 selects IPv4), or -1. */
  find(v4: number, words: ArrayLike<number>): number {
    return v4 >= 0 ? this.find4(v4) : this.find6(words);
  }

  /** Adds an address that is not present, with id `id` (≥ 0). */
  insert(v4: number, words: ArrayLike<number>, id: number): void {
    if (v4 >= 0) this.insert4(v4 >>> 0, id);
    else this.insert6(words, id);
  }

  /** Removes an address; its id, or -1 when it was not present. */
  delete(v4: number, words: ArrayLike<number>): number {
    if (v4 >= 0) {
      const slot = this.slot4(v4 >>> 0);
      if (slot < 0) return -1;
      const id = this.table4[2 * slot + 1] - 1;
      this.remove(this.table4, 2, this.bits4, slot, (at) => Math.imul(this.table4[at], GOLDEN) >>> (32 - this.bits4));
      this.count4--;
      return id;
    }
    const slot = this.slot6(words);
    if (slot < 0) return -1;
    const id = this.table6[5 * slot + 4] - 1;
    const t = this.table6;
    this.remove(t, 5, this.bits6, slot, (at) => hash6(t[at], t[at + 1], t[at + 2], t[at + 3]) >>> (32 - this.bits6));
    this.count6--;
    return id;
  }

  /** Every IPv4 key (u32) whose id passes `keep`, unsorted. */
  keys4(keep: (id: number) => boolean): Uint32Array {
    const out = new Uint32Array(this.count4);
    let n = 0;
    const table = this.table4;
    for (let at = 0; at < table.length; at += 2) {
      const id = table[at + 1];
      if (id !== 0 && keep(id - 1)) out[n++] = table[at];
    }
    return out.subarray(0, n);
  }

  /** Every IPv6 key (four words each, concatenated) whose id passes `keep`, unsorted. */
  keys6(keep: (id: number) => boolean): Uint32Array {
    const out = new Uint32Array(4 * this.count6);
    let n = 0;
    const table = this.table6;
    for (let at = 0; at < table.length; at += 5) {
      const id = table[at + 4];
      if (id !== 0 && keep(id - 1)) {
        out.set(table.subarray(at, at + 4), n);
        n += 4;
      }
    }
    return out.subarray(0, n);
  }

  clear(): void {
    this.bits4 = MIN_BITS;
    this.table4 = new Uint32Array(2 << MIN_BITS);
    this.count4 = 0;
    this.bits6 = MIN_BITS;
    this.table6 = new Uint32Array(5 << MIN_BITS);
    this.count6 = 0;
  }

  private slot4(key: number): number {
    const mask = (1 << this.bits4) - 1;
    for (let slot = Math.imul(key, GOLDEN) >>> (32 - this.bits4); ; slot = (slot + 1) & mask) {
      if (this.table4[2 * slot + 1] === 0) return -1;
      if (this.table4[2 * slot] === key) return slot;
    }
  }

  private slot6(words: ArrayLike<number>): number {
    const t = this.table6;
    const mask = (1 << this.bits6) - 1;
    const [w0, w1, w2, w3] = [words[0] >>> 0, words[1] >>> 0, words[2] >>> 0, words[3] >>> 0];
    for (let slot = hash6(w0, w1, w2, w3) >>> (32 - this.bits6); ; slot = (slot + 1) & mask) {
      const at = 5 * slot;
      if (t[at + 4] === 0) return -1;
      if (t[at] === w0 && t[at + 1] === w1 && t[at + 2] === w2 && t[at + 3] === w3) return slot;
    }
  }

  private insert4(key: number, id: number): void {
    if (2 * (this.count4 + 1) > 1 << this.bits4) this.grow4();
    const mask = (1 << this.bits4) - 1;
    let slot = Math.imul(key, GOLDEN) >>> (32 - this.bits4);
    while (this.table4[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
    this.table4[2 * slot] = key;
    this.table4[2 * slot + 1] = id + 1;
    this.count4++;
  }

  private insert6(words: ArrayLike<number>, id: number): void {
    if (2 * (this.count6 + 1) > 1 << this.bits6) this.grow6();
    const mask = (1 << this.bits6) - 1;
    const t = this.table6;
    let slot = hash6(words[0] >>> 0, words[1] >>> 0, words[2] >>> 0, words[3] >>> 0) >>> (32 - this.bits6);
    while (t[5 * slot + 4] !== 0) slot = (slot + 1) & mask;
    for (let i = 0; i < 4; i++) t[5 * slot + i] = words[i] >>> 0;
    t[5 * slot + 4] = id + 1;
    this.count6++;
  }

  private grow4(): void {
    const old = this.table4;
    this.bits4++;
    this.table4 = new Uint32Array(2 << this.bits4);
    this.count4 = 0;
    for (let at = 0; at < old.length; at += 2) if (old[at + 1] !== 0) this.insert4(old[at], old[at + 1] - 1);
  }

  private grow6(): void {
    const old = this.table6;
    this.bits6++;
    this.table6 = new Uint32Array(5 << this.bits6);
    this.count6 = 0;
    for (let at = 0; at < old.length; at += 5) if (old[at + 4] !== 0) this.insert6(old.subarray(at, at + 4), old[at + 4] - 1);
  }

  /** Backward-shift deletion: later members of the run move into the hole when their home allows. */
  private remove(table: Uint32Array, width: number, bits: number, slot: number, home: (at: number) => number): void {
    const mask = (1 << bits) - 1;
    let hole = slot;
    for (let next = (hole + 1) & mask; table[width * next + width - 1] !== 0; next = (next + 1) & mask) {
      const h = home(width * next);
      // The entry at `next` may move to `hole` unless its home lies cyclically in (hole, next].
      const stays = hole <= next ? hole < h && h <= next : hole < h || h <= next;
      if (stays) continue;
      table.copyWithin(width * hole, width * next, width * next + width);
      hole = next;
    }
    table.fill(0, width * hole, width * hole + width);
  }
}

function hash6(w0: number, w1: number, w2: number, w3: number): number {
  return Math.imul(w0 ^ Math.imul(w1, 0x85ebca6b) ^ Math.imul(w2, 0xc2b2ae35) ^ Math.imul(w3, 0x27d4eb2f), GOLDEN);
}
