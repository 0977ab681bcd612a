/**
 * The pure-JS peer of the WASM IPv4 search: the same two-level search (bucket by the top bits
 * through INDX, then a binary search inside the bucket) over the same packed arrays (the IpTable
 * views into WASM memory), so that the comparison isolates the engine from the data layout.
 */

/** Range index of an IPv4 address (u32) over KEYS and INDX of an ip4 table. */
export function v4SearchOver(keys: Uint32Array, index: Uint32Array): (ip: number) => number {
  // INDX has 2^bits + 1 entries; the bucket of an address is its top `bits` bits.
  const bits = Math.log2(index.length - 1);
  if (!Number.isInteger(bits) || bits < 1 || bits > 31) throw new Error(`bucket index of ${index.length} entries is not 2^bits + 1`);
  const shift = 32 - bits;
  return function find(ip: number): number {
    const bucket = ip >>> shift;
    const first = index[bucket];
    let base = first > 0 ? first - 1 : 0;
    let len = index[bucket + 1] - base;
    while (len > 1) {
      const half = len >>> 1;
      const probe = base + half;
      base = keys[probe] <= ip ? probe : base;
      len -= half;
    }
    return base;
  };
}
