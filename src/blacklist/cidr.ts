/**
 * Minimal CIDR cover of a sorted stream of addresses: each address enters as a /32 (/128); two
 * sibling blocks of one size on top of the stack merge into their parent, like a binary carry.
 * A gap ends the run and the stack goes out in address order. IPv4 as numbers, IPv6 as BigInt.
 */

interface Block {
  start: bigint;
  /** host bits: the block holds 2^bits addresses */
  bits: number;
}

export class CidrMerger {
  private stack: Block[] = [];
  private readonly width: number;

  constructor(
    version: 4 | 6,
    private readonly format: (start: bigint) => string,
  ) {
    this.width = version === 4 ? 32 : 128;
  }

  /** Adds the next address (ascending, duplicates ignored); answers the blocks that are final. */
  add(address: bigint): string[] {
    const top = this.stack[this.stack.length - 1];
    let out: string[] = [];
    if (top !== undefined) {
      const end = top.start + (1n << BigInt(top.bits));
      if (address < end) return out;
      if (address !== end) out = this.flush();
    }
    let block: Block = { start: address, bits: 0 };
    for (;;) {
      const below = this.stack[this.stack.length - 1];
      const size = 1n << BigInt(block.bits);
      if (
        below === undefined ||
        below.bits !== block.bits ||
        block.bits === this.width ||
        below.start + size !== block.start ||
        below.start % (size * 2n) !== 0n
      )
        break;
      this.stack.pop();
      block = { start: below.start, bits: block.bits + 1 };
    }
    this.stack.push(block);
    return out;
  }

  /** The remaining blocks, in address order. */
  flush(): string[] {
    const out = this.stack.map((b) => `${this.format(b.start)}/${this.width - b.bits}`);
    this.stack = [];
    return out;
  }
}
