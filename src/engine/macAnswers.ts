/**
 * MAC answers from the WASM OUI match and a MAC table, full (mac) or compact (macc): one place
 * for both engines, so that the compact set answers exactly as the full table, less the company
 * address it leaves out.
 */
import { blockBits, type MacTable } from '../tables/format/macTable.js';
import type { MacAnswer, MacSpecial, MacVendor } from './answers.js';
import { formatMac, formatOui, invalidMac, parseMac, type MacParts } from '../address/macAddress.js';
import type { WasmExports } from './wasmEngine.js';

const MULTICAST = 1;
const LOCAL = 2;
const RANDOMIZED = 4;

/** The vendor of the compact set: no company address. */
export type CompactMacVendor = Omit<MacVendor, 'address'>;
export type CompactMacAnswer = Omit<MacAnswer, 'vendor'> & { vendor: CompactMacVendor | null };

export class MacAnswers {
  private readonly parts: MacParts = { hi24: 0, lo24: 0, digits: 0 };
  private readonly vmPrefixes: VmPrefixes;
  // What a block's answers share, by block row, made on the row's first answer. Three arrays, not
  // one of objects: a random row's three loads do not wait on each other. Sized up front, so
  // that V8 keeps them as plain arrays (filled at random rows, they would become hash tables).
  private readonly ouis: (string | undefined)[];
  private readonly blocks: MacAnswer['block'][];
  private readonly vendors: (MacVendor | CompactMacVendor | null)[];
  private readonly vendorAnswers: (MacVendor | CompactMacVendor | undefined)[];
  /** the answers of special range rows, made on a row's first answer */
  private readonly specials: (MacSpecial | undefined)[];

  constructor(
    private readonly exports: WasmExports,
    private readonly table: MacTable,
  ) {
    this.vmPrefixes = vmPrefixes(table);
    this.ouis = new Array<string | undefined>(table.blockCount).fill(undefined);
    this.blocks = new Array<MacAnswer['block']>(table.blockCount).fill(null);
    this.vendors = new Array<MacVendor | CompactMacVendor | null>(table.blockCount).fill(null);
    this.vendorAnswers = new Array<MacVendor | CompactMacVendor | undefined>(table.companyCount).fill(undefined);
    this.specials = new Array<MacSpecial | undefined>(table.specialCount).fill(undefined);
  }

  /** Answers a MAC address or OUI prefix in text; the vendor has an address only with the full table. */
  lookup(text: string): CompactMacAnswer {
    const parts = this.parts;
    if (!parseMac(text, parts)) throw invalidMac(text);
    const exports = this.exports;
    const flags = exports.macFlags(parts.hi24);
    const row = exports.ouiFind(parts.hi24, parts.lo24, parts.digits * 4);
    const oui = row < 0 ? formatOui(parts.hi24) : (this.ouis[row] ?? this.knowRow(row));
    const special = exports.specialFind(parts.hi24, parts.lo24, parts.digits);
    return {
      mac: text,
      oui,
      normalized: parts.digits === 12 ? formatMac(parts.hi24, parts.lo24) : null,
      is_multicast: (flags & MULTICAST) !== 0,
      is_local: (flags & LOCAL) !== 0,
      is_randomized: (flags & RANDOMIZED) !== 0,
      special: special < 0 ? null : (this.specials[special] ?? this.knowSpecial(special)),
      found: row >= 0,
      block: row < 0 ? null : this.blocks[row],
      vendor: row < 0 ? null : this.vendors[row],
      vm_platform: this.vmPrefixes.platformOf(parts),
    };
  }

  /**
   * Makes what the answers of a block row share (an address in a block has the block's first 24
   * bits: its OUI text too), frozen; returns the OUI text.
   */
  private knowRow(row: number): string {
    const block = this.table.block(row);
    const size = 2 ** (48 - blockBits[block.type]);
    const first = block.hi24 * 0x1000000 + block.lo24;
    this.blocks[row] = Object.freeze({
      type: block.type === 'IAB' ? 'MA-S' : block.type,
      registry: block.type,
      start: hex12(first),
      end: hex12(first + size - 1),
      size,
    });
    this.vendors[row] = this.vendorAnswer(block.company);
    const oui = formatOui(block.hi24);
    this.ouis[row] = oui;
    return oui;
  }

  private knowSpecial(row: number): MacSpecial {
    const { first, last, ...facts } = this.table.special(row);
    const special = Object.freeze({ ...facts, start: hex12(first), end: hex12(last) });
    this.specials[row] = special;
    return special;
  }

  private vendorAnswer(companyRow: number): MacVendor | CompactMacVendor {
    let cached = this.vendorAnswers[companyRow];
    if (cached === undefined) {
      const company = this.table.company(companyRow);
      const country = company.country_code ? (this.table.countries.get(company.country_code)?.name ?? null) : null;
      const known = {
        country_code: company.country_code,
        country,
        short_name: company.short_name,
        website: company.website,
        total_ouis: company.is_private ? null : company.total_ouis,
        is_private: company.is_private,
      };
      cached = Object.freeze(
        this.table.kind === 'mac' ? { company: company.name, address: company.address, ...known } : { company: company.name, ...known },
      );
      this.vendorAnswers[companyRow] = cached;
    }
    return cached;
  }
}

interface VmMatcher {
  /** the prefix's hex digits as a number, left-aligned in 48 bits */
  value: number;
  /** 16 ** (hex digits not covered by the prefix) */
  unit: number;
  digits: number;
  platform: string;
}

interface VmPrefixes {
  /** The platform of the first virtualisation prefix the address or prefix starts with, or null. */
  platformOf(parts: MacParts): string | null;
}

/** The table's virtualisation prefixes (longest first, as it stores them), and a bit per value of an address's first 16 bits where one starts so. */
function vmPrefixes(table: MacTable): VmPrefixes {
  const matchers: VmMatcher[] = table.vmPrefixes.map((vm) => ({
    value: parseInt(vm.prefix.padEnd(12, '0'), 16),
    unit: 16 ** (12 - vm.prefix.length),
    digits: vm.prefix.length,
    platform: vm.platform,
  }));
  // most addresses start with no prefix's first 16 bits: one bit tells, no scan
  const first16 = new Uint8Array(1 << 13);
  for (const vm of matchers) {
    const start = Math.floor(vm.value / 2 ** 32);
    const span = vm.digits >= 4 ? 1 : 16 ** (4 - vm.digits);
    for (let k = 0; k < span; k++) first16[(start + k) >>> 3] |= 1 << ((start + k) & 7);
  }
  return {
    platformOf(parts) {
      const top = parts.hi24 >>> 8;
      if (((first16[top >>> 3] >>> (top & 7)) & 1) === 0) return null;
      const mac = parts.hi24 * 0x1000000 + parts.lo24;
      for (const vm of matchers) {
        if (vm.digits <= parts.digits && Math.floor(mac / vm.unit) * vm.unit === vm.value) return vm.platform;
      }
      return null;
    },
  };
}

function hex12(n: number): string {
  return n.toString(16).toUpperCase().padStart(12, '0');
}
