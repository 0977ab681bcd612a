/**
 * The checks a reader runs over a whole table before trusting it. This is the TypeScript
 * implementation; the engine passes its WASM twin (src/engine/wasmEngine.ts), several times
 * faster on 100 MB tables. A test holds the two equal on valid and invalid inputs.
 */
import { tableChecksum } from './checksum.js';
import type { ChecksumFn } from './container.js';
import { NONE } from './ipTableLayout.js';

export interface TableChecks {
  checksum: ChecksumFn;
  /** first position whose row reference is >= limit (NONE excepted), or -1 */
  firstRowAtOrAbove(rows: Uint32Array, limit: number): number;
  /** first position where u32 keys stop ascending strictly or the bucket index disagrees, or -1 */
  firstBadKey4(keys: Uint32Array, index: Uint32Array, shift: number): number;
  /** the same for 128-bit keys given as u64 halves, each seen as two u32 (low word first) */
  firstBadKey6(keysHi: Uint32Array, keysLo: Uint32Array, index: Uint32Array, shift: number): number;
}

export const jsTableChecks: TableChecks = {
  checksum: tableChecksum,

  firstRowAtOrAbove(rows, limit) {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (row >= limit && row !== NONE) return i;
    }
    return -1;
  },

  firstBadKey4(keys, index, shift) {
    let previous = -1;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (key <= previous) return i;
      const firstBucket = previous < 0 ? 0 : (previous >>> shift) + 1;
      for (let b = firstBucket; b <= key >>> shift; b++) if (index[b] !== i) return i;
      previous = key;
    }
    return -1;
  },

  firstBadKey6(keysHi, keysLo, index, shift) {
    const n = keysHi.length >>> 1;
    let p3 = 0,
      p2 = 0,
      p1 = 0,
      p0 = 0;
    for (let i = 0; i < n; i++) {
      const k3 = keysHi[2 * i + 1],
        k2 = keysHi[2 * i],
        k1 = keysLo[2 * i + 1],
        k0 = keysLo[2 * i];
      if (i > 0) {
        const ascending = k3 > p3 || (k3 === p3 && (k2 > p2 || (k2 === p2 && (k1 > p1 || (k1 === p1 && k0 > p0)))));
        if (!ascending) return i;
      }
      const firstBucket = i === 0 ? 0 : (p3 >>> (shift - 32)) + 1;
      for (let b = firstBucket; b <= k3 >>> (shift - 32); b++) if (index[b] !== i) return i;
      p3 = k3;
      p2 = k2;
      p1 = k1;
      p0 = k0;
    }
    return -1;
  },
};
