// Most-specific OUI block match: MA-S (36 bits) before MA-M (28) before MA-L (24).
//
// One open-addressing hash table holds every block, keyed by (prefix length << 56 | prefix of the
// 48-bit address). Each 24-bit entry says whether longer blocks exist below it, so the common
// case is a single probe; a 24-bit placeholder exists for every OUI that only has longer blocks.
// Slot layout (16 bytes): key u64, value u32, unused u32. Value: block row, bit 31 set when longer
// blocks exist under this OUI; NO_ROW (0x7ffffffe) when the OUI itself has no block. A probe that
// finds nothing answers ABSENT, which no slot can hold.

// The layout of src/tables/FORMAT.md, "mac" (hash slot, key, home slot). This module cannot import
// src/tables/format/macTableLayout.ts, which names the same numbers: test/tables/layout.test.ts
// holds the two equal.
const SLOT_BYTES: usize = 16;
const SLOT_KEY_AT: usize = 0;
const SLOT_VALUE_AT: usize = 8;
const KEY_PREFIX_LENGTH_SHIFT: u64 = 56;
const HASH_MULTIPLIER: u64 = 0x9e3779b97f4a7c15;
const NO_ROW: u32 = 0x7ffffffe;
const HAS_LONGER: u32 = 0x80000000;
const ABSENT: u32 = 0xffffffff;
// Prefix lengths of the block types: MA-L (the OUI), MA-M, MA-S and IAB.
const OUI_BITS: u32 = 24;
const MA_M_BITS: u32 = 28;
const MA_S_BITS: u32 = 36;

let slots: usize = 0;
let slotMask: u64 = 0;
let slotShift: u64 = 0;

export function ouiConfigure(table: usize, slotBits: u32): void {
  slots = table;
  slotMask = (<u64>1 << slotBits) - 1;
  slotShift = <u64>(64 - slotBits);
}

@inline export function ouiKey(prefix48: u64, bits: u32): u64 {
  return (<u64>bits << KEY_PREFIX_LENGTH_SHIFT) | (prefix48 & ~((<u64>1 << (48 - bits)) - 1));
}

/**
 * The slot value of a key, or -1 (all ones) when absent. At most one pass over the slots: a table
 * without an empty slot (which the builder never writes) cannot make a probe run forever.
 */
@inline function probe(key: u64): u32 {
  let slot = (key * HASH_MULTIPLIER) >>> slotShift;
  for (let probes: u64 = 0; probes <= slotMask; probes++) {
    const at = slots + <usize>slot * SLOT_BYTES;
    const found = load<u64>(at, SLOT_KEY_AT);
    if (found == key) return load<u32>(at, SLOT_VALUE_AT);
    if (found == 0) break;
    slot = (slot + 1) & slotMask;
  }
  return ABSENT;
}

/**
 * Block row of the most specific block containing a MAC address or prefix. `bitsKnown` is how many
 * leading bits the caller gave (24 to 48): a block longer than that cannot be chosen. -1: no block.
 */
export function ouiFind(hi24: u32, lo24: u32, bitsKnown: u32): i32 {
  const mac = (<u64>hi24 << 24) | <u64>(lo24 & 0xffffff);
  const top = probe(ouiKey(mac, OUI_BITS));
  if (top == ABSENT) return -1;
  if ((top & HAS_LONGER) != 0) {
    if (bitsKnown >= MA_S_BITS) {
      const s = probe(ouiKey(mac, MA_S_BITS));
      if (s != ABSENT) return <i32>s;
    }
    if (bitsKnown >= MA_M_BITS) {
      const m = probe(ouiKey(mac, MA_M_BITS));
      if (m != ABSENT) return <i32>m;
    }
  }
  const row = top & ~HAS_LONGER;
  return row == NO_ROW ? -1 : <i32>row;
}
