// The most specific special address range (src/tables/FORMAT.md, "mac": special range rows) that
// holds a MAC address, or every address of a prefix: a group, broadcast or special-purpose unicast
// range a registry or standard assigns.
//
// Rows are ordered by first address, the wider of two with the same first address first, and are
// apart or nested: the ranges that hold an address form a chain, and the last row in order that
// holds it is the most specific. A bit per value of the first 16 bits, set at configuration where
// some range reaches them, answers most addresses without a scan.

// The layout of src/tables/format/macTableLayout.ts, SPECIAL_ROW (test/tables/layout.test.ts holds
// the two equal).
const SPECIAL_ROW_BYTES: usize = 32;
const SPECIAL_FIRST_AT: usize = 0;
const SPECIAL_LAST_AT: usize = 8;

let rows: usize = 0;
let rowCount: u32 = 0;
const FIRST16 = memory.data(8192);

export function specialConfigure(table: usize, count: u32): void {
  rows = table;
  rowCount = count;
  memory.fill(FIRST16, 0, 8192);
  for (let i: u32 = 0; i < count; i++) {
    const at = table + <usize>i * SPECIAL_ROW_BYTES;
    const from = <u32>(load<u64>(at, SPECIAL_FIRST_AT) >>> 32);
    const to = <u32>(load<u64>(at, SPECIAL_LAST_AT) >>> 32) & 0xffff;
    for (let value = from; value <= to; value++) {
      const byteAt = FIRST16 + (value >>> 3);
      store<u8>(byteAt, <u8>(<u32>load<u8>(byteAt) | (<u32>1 << (value & 7))));
    }
  }
}

/**
 * Row of the most specific range holding every address that starts with the `digits` hex digits
 * (6 to 12) given in hi24 and lo24, or -1 when no range does.
 */
export function specialFind(hi24: u32, lo24: u32, digits: u32): i32 {
  const span = (<u64>1 << (<u64>(12 - digits) << 2)) - 1;
  const start = ((<u64>hi24 << 24) | <u64>(lo24 & 0xffffff)) & ~span;
  const first16 = <u32>(start >>> 32);
  if (((<u32>load<u8>(FIRST16 + (first16 >>> 3)) >>> (first16 & 7)) & 1) == 0) return -1;
  const end = start | span;
  let found: i32 = -1;
  for (let i: u32 = 0; i < rowCount; i++) {
    const at = rows + <usize>i * SPECIAL_ROW_BYTES;
    if (load<u64>(at, SPECIAL_FIRST_AT) > start) break;
    if (end <= load<u64>(at, SPECIAL_LAST_AT)) found = <i32>i;
  }
  return found;
}

/** The address of special range row `row` (from specialFind). */
export function specialRowAt(row: i32): usize {
  return rows + <usize>row * SPECIAL_ROW_BYTES;
}
