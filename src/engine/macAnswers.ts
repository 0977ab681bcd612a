/**
 * MAC answers from the WASM OUI match and a MAC table, full (mac) or compact (macc): one place
 * for both engines, so that the compact set answers exactly as the full table, less the company
 * address it leaves out.
 */
import { ApiError } from '../errors.js';
import { blockBits, type MacTable } from '../tables/format/macTable.js';
import type { MacAnswer, MacVendor } from './answers.js';
import { formatMac, formatOui, parseMac, type MacParts } from '../address/macAddress.js';
import type { WasmExports } from './wasmEngine.js';

const MULTICAST = 1;
const LOCAL = 2;
const RANDOMIZED = 4;

/** The vendor of the compact set: no company address. */
export type CompactMacVendor = Omit<MacVendor, 'address'>;
export type CompactMacAnswer = Omit<MacAnswer, 'vendor'> & { vendor: CompactMacVendor | null };

export class MacAnswers {
  private readonly parts: MacParts = { hi24: 0, lo24: 0, digits: 0 };
  private readonly vmMatchers: VmMatcher[];
  private readonly blockAnswers: (MacAnswer['block'] | undefined)[] = [];
  private readonly vendorAnswers: (MacVendor | CompactMacVendor | undefined)[] = [];

  constructor(
    private readonly exports: WasmExports,
    private readonly table: MacTable,
  ) {
    this.vmMatchers = vmMatchers(table);
  }

  /** Answers a MAC address or OUI prefix in text; the vendor has an address only with the full table. */
  lookup(text: string): CompactMacAnswer {
    const parts = this.parts;
    if (!parseMac(text, parts)) throw new ApiError('invalid_mac');
    const { exports, table } = this;
    const flags = exports.macFlags(parts.hi24);
    const row = exports.ouiFind(parts.hi24, parts.lo24, parts.digits * 4);
    const answer: CompactMacAnswer = {
      mac: text,
      oui: formatOui(parts.hi24),
      normalized: parts.digits === 12 ? formatMac(parts.hi24, parts.lo24) : null,
      is_multicast: (flags & MULTICAST) !== 0,
      is_local: (flags & LOCAL) !== 0,
      is_randomized: (flags & RANDOMIZED) !== 0,
      found: row >= 0,
      block: null,
      vendor: null,
      vm_platform: vmPlatformOf(this.vmMatchers, parts),
    };
    if (row < 0) return answer;
    answer.block = this.blockAnswer(row);
    answer.vendor = this.vendorAnswer(table.block(row).company);
    return answer;
  }

  /** Block answers depend only on the row: built once, shared (frozen). */
  private blockAnswer(row: number): MacAnswer['block'] {
    let cached = this.blockAnswers[row];
    if (cached === undefined) {
      const block = this.table.block(row);
      const size = 2 ** (48 - blockBits[block.type]);
      const first = block.hi24 * 0x1000000 + block.lo24;
      cached = Object.freeze({
        type: block.type === 'IAB' ? 'MA-S' : block.type,
        registry: block.type,
        start: hex12(first),
        end: hex12(first + size - 1),
        size,
      });
      this.blockAnswers[row] = cached;
    }
    return cached;
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

/** The VM prefixes as numbers, longest first (the table stores them so). */
function vmMatchers(table: MacTable): VmMatcher[] {
  return table.vmPrefixes.map((vm) => ({
    value: parseInt(vm.prefix.padEnd(12, '0'), 16),
    unit: 16 ** (12 - vm.prefix.length),
    digits: vm.prefix.length,
    platform: vm.platform,
  }));
}

function vmPlatformOf(matchers: VmMatcher[], parts: MacParts): string | null {
  const mac = parts.hi24 * 0x1000000 + parts.lo24;
  for (const vm of matchers) {
    if (vm.digits <= parts.digits && Math.floor(mac / vm.unit) * vm.unit === vm.value) return vm.platform;
  }
  return null;
}

function hex12(n: number): string {
  return n.toString(16).toUpperCase().padStart(12, '0');
}
