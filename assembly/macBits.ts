// The two flag bits of a MAC address's first octet (IEEE 802): I/G (bit 0) marks a group
// (multicast) address, U/L (bit 1) a locally administered one. Randomised addresses, as phones
// and laptops use them, are locally administered unicast.

export const MULTICAST: u32 = 1;
export const LOCAL: u32 = 2;
export const RANDOMIZED: u32 = 4;

/** Flags of the address whose first three octets are `hi24`. */
export function macFlags(hi24: u32): u32 {
  const first = hi24 >>> 16;
  const multicast = first & 1;
  const local = (first >>> 1) & 1;
  return multicast | (local << 1) | ((local & (multicast ^ 1)) << 2);
}
