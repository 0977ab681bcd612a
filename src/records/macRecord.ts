/**
 * SPEC 2.5 MAC records and SPEC 2.6 search results from the engine's plain answers. Pure; the
 * caller appends `meta` and applies `fields`.
 *
 * Every key of the level is present (SPEC 1.5). Our data, field by field:
 * - vendor: null when no block is registered for the prefix (SPEC: "when false, vendor is null").
 *   company, address and country code from the IEEE registries (oui-data; the IAB listing in
 *   data/registry); country name from the table's country facts; short_name from our curated
 *   list, else the registered name cleaned by the rule of src/tables/build/companyNames.ts;
 *   website from our curated list (null where we have none); total_ouis: the blocks of the
 *   company across the spellings of its name (same rule). industry, founded, headquarters: null
 *   (no source).
 * - A private registration (the IEEE lists the block, but as "Private", without its assignee):
 *   found, with vendor.company null (SPEC 1.5: no data is null; no company name is made up),
 *   and at the full level vendor.is_private true, short_name, website and total_ouis null
 *   (the block counts for no company); address and country as registered, where given.
 * - block: the matched registry block, null when not found. IAB blocks (36-bit) show as MA-S,
 *   the type SPEC 2.5 allows.
 * - device: type and interface null (no source); vm_platform from our curated list of
 *   virtualisation prefixes, which may match even when no vendor is registered (Docker's
 *   02:42:xx is locally administered); is_virtual_machine = vm_platform is known.
 * - registry_updated: the registries carry no record dates, so null unless the caller knows one
 *   (YYYY/MM/DD).
 * - special (every level): what a group, broadcast or special-purpose unicast address is, from our
 *   curated table of IANA, IEEE, IETF and vendor assignments (data/curated/mac-group-addresses.csv):
 *   the most specific range holding the address (for a prefix, every address of it), null for any
 *   other. found and vendor stay about the registrant of the first three bytes as given: a group
 *   address whose three bytes (I/G bit set) are no registered block is not found, even when they
 *   are with the bit cleared (01-00-5E, IANA's 00-00-5E); who assigns its meaning is
 *   special.assigned_by.
 */
import type { MacAnswer, MacSpecial } from '../engine/answers.js';
import { formatMacPrefix, formatOui } from '../address/macAddress.js';
import type { BlockType } from '../tables/format/macTable.js';
import type { FieldLevel } from './ipRecord.js';

export type MacBlockType = Exclude<BlockType, 'IAB'>;

export interface MacVendorBasic {
  /** null for a private registration */
  company: string | null;
  country_code: string | null;
}

export interface MacVendorFull extends MacVendorBasic {
  short_name: string | null;
  website: string | null;
  country: string | null;
  address: string | null;
  industry: string | null;
  founded: string | number | null;
  headquarters: string | null;
  /** null for a private registration */
  total_ouis: number | null;
  /** the registry lists the block without naming its assignee */
  is_private: boolean;
}

/** What a special address is (MacSpecial): name, protocol, assigned_by, reference, start, end. */
export type MacSpecialRecord = MacSpecial;

export interface MacRecordBasic {
  success: true;
  mac: string;
  found: boolean;
  oui: string;
  normalized: string | null;
  is_multicast: boolean;
  is_local: boolean;
  is_randomized: boolean;
  special: MacSpecialRecord | null;
  vendor: MacVendorBasic | null;
}

export interface MacRecordFull {
  success: true;
  mac: string;
  found: boolean;
  oui: string;
  normalized: string | null;
  is_multicast: boolean;
  is_local: boolean;
  is_randomized: boolean;
  special: MacSpecialRecord | null;
  vendor: MacVendorFull | null;
  block: { type: MacBlockType; start: string; end: string; size: number } | null;
  device: { type: string | null; interface: string | null; is_virtual_machine: boolean; vm_platform: string | null };
  registry_updated: string | null;
}

export type MacRecord = MacRecordBasic | MacRecordFull;

export function macRecord(answer: MacAnswer, level: 'basic', registryUpdated?: string | null): MacRecordBasic;
export function macRecord(answer: MacAnswer, level: 'full', registryUpdated?: string | null): MacRecordFull;
export function macRecord(answer: MacAnswer, level: FieldLevel, registryUpdated?: string | null): MacRecord;
export function macRecord(answer: MacAnswer, level: FieldLevel, registryUpdated: string | null = null): MacRecord {
  const v = answer.found ? answer.vendor : null;
  const s = answer.special;
  const base = {
    success: true as const,
    mac: answer.mac,
    found: answer.found,
    oui: answer.oui,
    normalized: answer.normalized,
    is_multicast: answer.is_multicast,
    is_local: answer.is_local,
    is_randomized: answer.is_randomized,
    special: s
      ? { name: s.name, protocol: s.protocol, assigned_by: s.assigned_by, reference: s.reference, start: s.start, end: s.end }
      : null,
  };
  if (level === 'basic') return { ...base, vendor: v ? { company: v.company, country_code: v.country_code } : null };
  const b = answer.found ? answer.block : null;
  return {
    ...base,
    vendor: v
      ? {
          company: v.company,
          country_code: v.country_code,
          short_name: v.short_name,
          website: v.website,
          country: v.country,
          address: v.address,
          industry: null,
          founded: null,
          headquarters: null,
          total_ouis: v.total_ouis,
          is_private: v.is_private,
        }
      : null,
    block: b ? { type: b.type, start: b.start, end: b.end, size: b.size } : null,
    device: { type: null, interface: null, is_virtual_machine: answer.vm_platform !== null, vm_platform: answer.vm_platform },
    registry_updated: registryUpdated ?? null,
  };
}

/**
 * One SPEC 2.6 search result, with the block it names: `prefix` (its prefix_length / 4 hex digits
 * as byte pairs, an odd last digit alone, `8C:1F:64:A0:0`), which `/v1/mac/{prefix}` answers with
 * this company; `registry` keeps IAB apart from MA-S, which block_type shows it as.
 */
export interface MacSearchResult {
  oui: string;
  prefix: string;
  prefix_length: number;
  registry: BlockType;
  size: number;
  company: string;
  country_code: string | null;
  block_type: MacBlockType;
}

/**
 * Shapes one search hit from a table block row (MacTable.block) and its named company
 * (MacTable.company; private registrations are no hit): oui = the block's first three bytes, IAB
 * shown as MA-S.
 */
export function macSearchResult(
  block: { hi24: number; lo24: number; bits: number; type: BlockType },
  company: { name: string; country_code: string | null },
): MacSearchResult {
  return {
    oui: formatOui(block.hi24),
    prefix: formatMacPrefix(block.hi24, block.lo24, block.bits / 4),
    prefix_length: block.bits,
    registry: block.type,
    size: 2 ** (48 - block.bits),
    company: company.name,
    country_code: company.country_code,
    block_type: block.type === 'IAB' ? 'MA-S' : block.type,
  };
}
