/**
 * Builds the MAC vendor table from the IEEE registries: MA-L, MA-M and MA-S as packaged by
 * `oui-data` (keys of 6, 7 and 9 hex digits; values: company, address lines, country name), the
 * closed IAB registry from our copy of IEEE's listing (data/registry, read by iabRegistry.ts), and
 * our curated vendor names, websites, virtualisation prefixes and special address ranges (group,
 * broadcast and special-purpose unicast addresses, macGroupAddresses.ts), kept in the file's order.
 *
 * Companies: the spellings of one company are joined by the rule of companyNames.ts, so that
 * `total_ouis` counts every block of the company and one curated row covers every spelling.
 * Private registrations (the registry names the assignee "Private") answer as registered blocks
 * of no named company: a company row flagged private, without name, short name or count.
 */
import type { BlockType, CompanyInput, MacBlockInput, MacSpecialInput, MacTableParts, VmPrefix } from '../format/macTable.js';
import { StringPoolBuilder } from '../format/stringPool.js';
import type { CountryFacts, TableMeta } from '../format/tableMeta.js';
import type { CuratedVendor } from '../sources/curated.js';
import { IAB_PARENTS, PRIVATE_NAME, type IabBlock } from '../sources/iabRegistry.js';
import type { MacGroupAddress } from '../sources/macGroupAddresses.js';
import { companiesOf, displayName, type Spelling } from './companyNames.js';

export interface MacBuildInput {
  /** oui-data's index.json */
  registry: Record<string, string>;
  /** the IAB registry (readIabRegistry) */
  iab: IabBlock[];
  countryCodeOfName: (name: string) => string | null;
  /** curated vendors by the registered spelling their row names (company_match) */
  vendors: Map<string, CuratedVendor>;
  vmPrefixes: VmPrefix[];
  /** special address ranges (loadMacGroupAddresses), in the file's order */
  specialRanges: MacGroupAddress[];
  countries: CountryFacts[];
  meta: TableMeta;
  builtAt: Date;
  /** the date of the registry data; null when a registry source states none */
  sourceDate: Date | null;
}

export interface MacBuildStats {
  blocks: Record<BlockType, number>;
  /** registered blocks whose assignee the registry does not name */
  privateBlocks: number;
  /** IAB blocks that oui-data also carries (its entry is kept) */
  iabInOuiData: number;
  /** distinct registered spellings of company names */
  spellings: number;
  /** companies after joining spellings */
  companies: number;
  companyRows: number;
  /** company rows without a known country */
  countryUnknown: number;
}

interface RegistryEntry {
  company: string;
  address: string | null;
  country_code: string | null;
}

interface BlockEntry {
  key: string;
  type: BlockType;
  /** null: a private registration */
  company: string | null;
  address: string | null;
  country_code: string | null;
}

/** Splits an oui-data value: first line the company, last line the country when it names one. */
function registryEntry(value: string, countryCodeOfName: (name: string) => string | null): RegistryEntry {
  const lines = value.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
  const company = lines[0] ?? '';
  const rest = lines.slice(1);
  const country = rest.length > 0 ? countryCodeOfName(rest[rest.length - 1]) : null;
  const addressLines = country ? rest.slice(0, -1) : rest;
  return { company, address: registryAddress(addressLines), country_code: country };
}

/**
 * The address lines of a registry entry as one text (docs/tables.md "MAC vendors"): lines joined
 * by ", ", a comma that ends or begins a line dropped (the registry often ends a line with one, and
 * joining made ",,"), and a run of commas inside a line, as the registry sometimes has (`Nagar,,
 * Near`), made one. Null when nothing is left.
 */
export function registryAddress(lines: readonly string[]): string | null {
  const parts = lines.map((line) => line.replace(/^[\s,]+|[\s,]+$/g, '')).filter((line) => line.length > 0);
  if (parts.length === 0) return null;
  return parts.join(', ').replace(/\s*,(?:\s*,)+\s*/g, ', ');
}

function blockTypeOfKey(key: string): BlockType {
  if (key.length === 6) return 'MA-L';
  if (key.length === 7) return 'MA-M';
  if (key.length === 9) return IAB_PARENTS.includes(key.slice(0, 6)) ? 'IAB' : 'MA-S';
  throw new Error(`oui-data key ${key} has ${key.length} hex digits, expected 6, 7 or 9`);
}

/** The blocks of both sources, ordered by key; oui-data's entry wins where both carry a block. */
function blockEntries(input: MacBuildInput, stats: MacBuildStats): BlockEntry[] {
  const entries = new Map<string, BlockEntry>();
  for (const key of Object.keys(input.registry)) {
    if (!/^[0-9A-F]+$/.test(key)) throw new Error(`oui-data key ${key} is not upper-case hex`);
    const entry = registryEntry(input.registry[key], input.countryCodeOfName);
    if (entry.company === '') throw new Error(`oui-data key ${key} names no company`);
    entries.set(key, { key, type: blockTypeOfKey(key), ...entry, company: entry.company === PRIVATE_NAME ? null : entry.company });
  }
  for (const block of input.iab) {
    if (entries.has(block.prefix)) stats.iabInOuiData++;
    else entries.set(block.prefix, { key: block.prefix, type: 'IAB', ...block });
  }
  return [...entries.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

interface Company {
  blocks: number;
  /** the spelling with the most blocks: the source of the display name */
  mainSpelling: string;
  mainBlocks: number;
  curated: { spelling: string; vendor: CuratedVendor } | null;
}

/** Joins spellings into companies and gives each its count, display name and curated facts. */
function companiesBySpelling(entries: BlockEntry[], vendors: Map<string, CuratedVendor>): Map<string, Company> {
  const spellings = new Map<string, Spelling & { blocks: number; countries: Set<string> }>();
  for (const e of entries) {
    if (e.company === null) continue;
    let s = spellings.get(e.company);
    if (!s) {
      s = { name: e.company, countries: new Set(), blocks: 0 };
      spellings.set(e.company, s);
    }
    s.blocks++;
    if (e.country_code) s.countries.add(e.country_code);
  }
  const list = [...spellings.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  const roots = companiesOf(list);
  const byRoot = new Map<number, Company>();
  list.forEach((s, i) => {
    let company = byRoot.get(roots[i]);
    if (!company) {
      company = { blocks: 0, mainSpelling: s.name, mainBlocks: 0, curated: null };
      byRoot.set(roots[i], company);
    }
    company.blocks += s.blocks;
    if (s.blocks > company.mainBlocks) {
      company.mainSpelling = s.name;
      company.mainBlocks = s.blocks;
    }
    const vendor = vendors.get(s.name);
    if (vendor) {
      const other = company.curated;
      if (other && (other.vendor.short_name !== vendor.short_name || other.vendor.website !== vendor.website)) {
        throw new Error(`vendors.csv: "${other.spelling}" and "${s.name}" are spellings of one company but their rows differ; keep one row`);
      }
      company.curated = { spelling: s.name, vendor };
    }
  });
  return new Map(list.map((s, i) => [s.name, byRoot.get(roots[i])!]));
}

const vendorKey = (vendor: CuratedVendor): string => `${vendor.short_name ?? ''}\u0000${vendor.website ?? ''}`;

/**
 * Blocks per curated vendor: where vendors.csv names several registered companies as one vendor
 * (the same short name and website, e.g. Xiaomi's five registrants), total_ouis counts them together.
 */
function blocksByVendor(companies: Set<Company>): Map<string, number> {
  const blocks = new Map<string, number>();
  for (const company of companies) {
    if (!company.curated) continue;
    const key = vendorKey(company.curated.vendor);
    blocks.set(key, (blocks.get(key) ?? 0) + company.blocks);
  }
  return blocks;
}

export function buildMacTable(input: MacBuildInput): { parts: MacTableParts; stats: MacBuildStats } {
  const stats: MacBuildStats = {
    blocks: { 'MA-L': 0, 'MA-M': 0, 'MA-S': 0, IAB: 0 },
    privateBlocks: 0,
    iabInOuiData: 0,
    spellings: 0,
    companies: 0,
    companyRows: 0,
    countryUnknown: 0,
  };
  const known = new Set(input.countries.map((c) => c.code));
  const entries = blockEntries(input, stats);
  for (const e of entries) if (e.country_code !== null && !known.has(e.country_code)) e.country_code = null;
  const companyOf = companiesBySpelling(entries, input.vendors);
  stats.spellings = companyOf.size;
  stats.companies = new Set(companyOf.values()).size;
  const vendorBlocks = blocksByVendor(new Set(companyOf.values()));
  const strings = new StringPoolBuilder();
  const companyRow = new Map<string, number>();
  const companies: CompanyInput[] = [];
  const blocks: MacBlockInput[] = [];
  for (const e of entries) {
    const rowKey = `${e.company ?? ''}\u0000${e.address ?? ''}\u0000${e.country_code ?? ''}`;
    let row = companyRow.get(rowKey);
    if (row === undefined) {
      row = companies.length;
      const company = e.company === null ? null : companyOf.get(e.company)!;
      const curated = company?.curated?.vendor;
      companies.push({
        name: strings.intern(e.company),
        address: strings.intern(e.address),
        country_code: e.country_code,
        total_ouis: company === null ? 0 : company.curated ? vendorBlocks.get(vendorKey(company.curated.vendor))! : company.blocks,
        short_name: strings.intern(company ? curated?.short_name ?? displayName(company.mainSpelling) : null),
        website: strings.intern(curated?.website ?? null),
        is_private: company === null,
      });
      companyRow.set(rowKey, row);
      if (!e.country_code) stats.countryUnknown++;
    }
    blocks.push({
      hi24: parseInt(e.key.slice(0, 6), 16),
      lo24: parseInt(e.key.slice(6).padEnd(6, '0'), 16),
      type: e.type,
      company: row,
    });
    stats.blocks[e.type]++;
    if (e.company === null) stats.privateBlocks++;
  }
  stats.companyRows = companies.length;
  const specialRanges: MacSpecialInput[] = input.specialRanges.map((r) => ({
    first: r.first,
    last: r.last,
    name: strings.intern(r.name),
    protocol: strings.intern(r.protocol),
    assigned_by: strings.intern(r.assigned_by),
    reference: strings.intern(r.reference),
  }));
  const meta: TableMeta = {
    ...input.meta,
    counts: {
      blocks: blocks.length,
      ma_l: stats.blocks['MA-L'],
      ma_m: stats.blocks['MA-M'],
      ma_s: stats.blocks['MA-S'],
      iab: stats.blocks.IAB,
      private_blocks: stats.privateBlocks,
      spellings: stats.spellings,
      companies: stats.companies,
      company_rows: stats.companyRows,
      vm_prefixes: input.vmPrefixes.length,
      special_ranges: specialRanges.length,
    },
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
      specialRanges,
      strings: strings.sections(),
    },
    stats,
  };
}
