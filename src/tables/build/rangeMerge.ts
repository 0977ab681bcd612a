/**
 * Overlays two sorted, non-overlapping range lists (location ranges and network ranges) into one
 * list of ranges that tiles the whole address space, each carrying both values (NONE where a
 * list has no range), with neighbours of equal values joined.
 */
import { NONE } from '../format/ipTableLayout.js';

export interface ValuedRanges {
  start: bigint[];
  end: bigint[];
  value: number[];
}

export interface TiledRanges {
  keys: bigint[];
  first: number[];
  second: number[];
}

export function tileRanges(a: ValuedRanges, b: ValuedRanges, last: bigint): TiledRanges {
  const out: TiledRanges = { keys: [], first: [], second: [] };
  let i = 0;
  let j = 0;
  let at = 0n;
  const past = last + 1n;
  while (at < past) {
    while (i < a.start.length && a.end[i] < at) i++;
    while (j < b.start.length && b.end[j] < at) j++;
    const inA = i < a.start.length && a.start[i] <= at;
    const inB = j < b.start.length && b.start[j] <= at;
    const nextA = i < a.start.length ? (inA ? a.end[i] + 1n : a.start[i]) : past;
    const nextB = j < b.start.length ? (inB ? b.end[j] + 1n : b.start[j]) : past;
    const first = inA ? a.value[i] : NONE;
    const second = inB ? b.value[j] : NONE;
    const n = out.keys.length;
    if (n === 0 || out.first[n - 1] !== first || out.second[n - 1] !== second) {
      out.keys.push(at);
      out.first.push(first);
      out.second.push(second);
    }
    at = nextA < nextB ? nextA : nextB;
  }
  return out;
}

/** The last address of tile `i`: the one before the next tile's key, or the last address of the space. */
export function tileEnd(tiled: TiledRanges, i: number, last: bigint): bigint {
  return i + 1 < tiled.keys.length ? tiled.keys[i + 1] - 1n : last;
}
