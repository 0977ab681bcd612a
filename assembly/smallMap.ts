// A small open-addressing map of u32 keys to u32 values, for the few hundred countries and time
// zones of a table. Slot: key + 1 (0: empty) u32, value u32. The host fills it through mapSet, so
// that the hash lives in one place.

@inline function home(key: u32, mask: u32): u32 {
  return ((key + 1) * 0x9e3779b1) >>> 16 & mask;
}

/** The value of `key`, or 0 when absent (the host stores no value 0). */
export function mapGet(map: usize, mask: u32, key: u32): u32 {
  let slot = home(key, mask);
  for (let probes: u32 = 0; probes <= mask; probes++) {
    const at = map + (<usize>slot << 3);
    const found = load<u32>(at);
    if (found == key + 1) return load<u32>(at, 4);
    if (found == 0) return 0;
    slot = (slot + 1) & mask;
  }
  return 0;
}

/** Sets `key` to `value` (not 0); false when the map is full. */
export function mapSet(map: usize, mask: u32, key: u32, value: u32): bool {
  let slot = home(key, mask);
  for (let probes: u32 = 0; probes <= mask; probes++) {
    const at = map + (<usize>slot << 3);
    const found = load<u32>(at);
    if (found == 0 || found == key + 1) {
      store<u32>(at, key + 1);
      store<u32>(at, value, 4);
      return true;
    }
    slot = (slot + 1) & mask;
  }
  return false;
}
