/**
 * Builds the MAC vendor table from the IEEE registries as packaged by `oui-data` (keys of 6, 7 and
 * 9 hex digits: MA-L, MA-M and MA-S/IAB; values: company, address lines, country name) and our
 * curated vendor names, websites and virtualisation prefixes.
 */
import type { BlockType, CompanyInput, MacBlockInput, MacTableParts, VmPrefix } from '../format/macTable.js';
import { StringPoolBuilder } from '../format/stringPool.js';
import type { CountryFacts, TableMeta } from '../format/tableMeta.js';

/** The MA-L blocks the IEEE split into the historical IAB (OUI-36) assignments. */
const IAB_PARENTS = new Set(['0050C2', '40D855']);

export interface CuratedVendor {
  short_name: string | null;
  website: string | null;
}

export interface MacBuildInput {
  registry: Record<string, string>;
  countryCodeOfName: (name: string) => string | null;
  vendors: Map<string, CuratedVendor>;
  vmPrefixes: VmPrefix[];
  countries: CountryFacts[];
  meta: TableMeta;
  builtAt: Date;
  sourceDate: Date | null;
}

export interface MacBuildStats {
  blocks: Record<BlockType, number>;
  companies: number;
  countryUnknown: number;
}

interface RegistryEntry {
  company: string;
  address: string | null;
  country_code: string | null;
}

/** Splits an oui-data value: first line the company, last line the country when it names one. */
export function registryEntry(value: string, countryCodeOfName: (name: string) => string | null): RegistryEntry {
  const lines = value.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
  const company = lines[0] ?? '';
  const rest = lines.slice(1);
  const country = rest.length > 0 ? countryCodeOfName(rest[rest.length - 1]) : null;
  const addressLines = country ? rest.slice(0, -1) : rest;
  return { company, address: addressLines.length > 0 ? addressLines.join(', ') : null, country_code: country };
}

export function blockTypeOfKey(key: string): BlockType {
  if (key.length === 6) return 'MA-L';
  if (key.length === 7) return 'MA-M';
  if (key.length === 9) return IAB_PARENTS.has(key.slice(0, 6)) ? 'IAB' : 'MA-S';
  throw new Error(`oui-data key ${key} has ${key.length} hex digits, expected 6, 7 or 9`);
}

export function buildMacTable(input: MacBuildInput): { parts: MacTableParts; stats: MacBuildStats } {
  const strings = new StringPoolBuilder();
  const keys = Object.keys(input.registry).sort();
  const entries = keys.map((key) => {
    if (!/^[0-9A-F]+$/.test(key)) throw new Error(`oui-data key ${key} is not upper-case hex`);
    return { key, type: blockTypeOfKey(key), ...registryEntry(input.registry[key], input.countryCodeOfName) };
  });
  const prefixCount = new Map<string, number>();
  for (const e of entries) prefixCount.set(e.company, (prefixCount.get(e.company) ?? 0) + 1);
  const companyRow = new Map<string, number>();
  const companies: CompanyInput[] = [];
  const blocks: MacBlockInput[] = [];
  const stats: MacBuildStats = { blocks: { 'MA-L': 0, 'MA-M': 0, 'MA-S': 0, IAB: 0 }, companies: 0, countryUnknown: 0 };
  for (const e of entries) {
    const companyKey = `${e.company}\u0000${e.address ?? ''}\u0000${e.country_code ?? ''}`;
    let row = companyRow.get(companyKey);
    if (row === undefined) {
      const curated = input.vendors.get(e.company);
      row = companies.length;
      companies.push({
        name: strings.intern(e.company),
        address: strings.intern(e.address),
        country_code: e.country_code,
        total_ouis: prefixCount.get(e.company)!,
        short_name: strings.intern(curated?.short_name ?? null),
        website: strings.intern(curated?.website ?? null),
      });
      companyRow.set(companyKey, row);
      if (!e.country_code) stats.countryUnknown++;
    }
    blocks.push({
      hi24: parseInt(e.key.slice(0, 6), 16),
      lo24: parseInt(e.key.slice(6).padEnd(6, '0'), 16),
      type: e.type,
      company: row,
    });
    stats.blocks[e.type]++;
  }
  stats.companies = companies.length;
  const meta: TableMeta = {
    ...input.meta,
    counts: { blocks: blocks.length, ma_l: stats.blocks['MA-L'], ma_m: stats.blocks['MA-M'], ma_s: stats.blocks['MA-S'], iab: stats.blocks.IAB, companies: companies.length, vm_prefixes: input.vmPrefixes.length },
  };
  return {
    parts: {
      builtAt: input.builtAt,
      sourceDate: input.sourceDate,
      meta,
      countries: input.countries,
      blocks,
      companies,
      vmPrefixes: input.vmPrefixes,
      strings: strings.sections(),
    },
    stats,
  };
}
