/**
 * MAC search (SPEC 4.7): blocks whose registered company name contains the query,
 * case-insensitively, ordered by company name, then by prefix; a page of at most 100 of them
 * with the number of all matches. Every registry is searched (MA-L, MA-M, MA-S and IAB); private
 * registrations name no company and are never a result. The index of names is built once per
 * loaded table.
 */
import type { LookupEngine } from '../../engine/lookupEngine.js';
import { ApiError } from '../../errors.js';
import { macSearchResult, type MacSearchResult } from '../../records/macRecord.js';
import type { MacTable } from '../../tables/format/macTable.js';

/** The largest page (SPEC 8.2: at most 100 results), also the default one. */
export const MAX_SEARCH_RESULTS = 100;
/** The largest offset accepted: more than any table has blocks. */
export const MAX_SEARCH_OFFSET = 999_999_999;

export interface SearchPage {
  offset: number;
  limit: number;
}

export interface VendorSearchAnswer {
  /** all matches */
  total: number;
  /** the matches of the page */
  results: MacSearchResult[];
}

interface SearchEntry {
  folded: string;
  result: MacSearchResult;
}

const indexes = new WeakMap<MacTable, SearchEntry[]>();

function searchIndex(table: MacTable): SearchEntry[] {
  let entries = indexes.get(table);
  if (!entries) {
    entries = [];
    for (let row = 0; row < table.blockCount; row++) {
      const block = table.block(row);
      const company = table.company(block.company);
      if (company.is_private || company.name === null) continue;
      entries.push({
        folded: company.name.toLowerCase(),
        result: macSearchResult(block, { name: company.name, country_code: company.country_code }),
      });
    }
    // Prefixes of one length put their digits at the same places, and a shorter one sorts before the longer ones it begins.
    const byPrefix = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    entries.sort((a, b) => a.result.company.localeCompare(b.result.company, 'en') || byPrefix(a.result.prefix, b.result.prefix));
    indexes.set(table, entries);
  }
  return entries;
}

/** The page asked for by the `offset` and `limit` query values, or the invalid_input refusal of a bad one. */
export function searchPageOf(offset: string | undefined, limit: string | undefined): SearchPage | ApiError {
  const page = { offset: 0, limit: MAX_SEARCH_RESULTS };
  if (offset !== undefined) {
    if (!/^\d{1,9}$/.test(offset)) return new ApiError('invalid_input', `offset must be a whole number from 0 to ${MAX_SEARCH_OFFSET}.`);
    page.offset = Number(offset);
  }
  if (limit !== undefined) {
    page.limit = /^\d{1,3}$/.test(limit) ? Number(limit) : 0;
    if (page.limit < 1 || page.limit > MAX_SEARCH_RESULTS) {
      return new ApiError('invalid_input', `limit must be a whole number from 1 to ${MAX_SEARCH_RESULTS}.`);
    }
  }
  return page;
}

export function searchVendors(
  engine: LookupEngine,
  query: string,
  page: SearchPage = { offset: 0, limit: MAX_SEARCH_RESULTS },
): VendorSearchAnswer {
  const table = engine.macTable;
  if (!table) return { total: 0, results: [] };
  const needle = query.toLowerCase();
  const end = page.offset + page.limit;
  const results: MacSearchResult[] = [];
  let total = 0;
  for (const entry of searchIndex(table)) {
    if (!entry.folded.includes(needle)) continue;
    if (total >= page.offset && total < end) results.push(entry.result);
    total++;
  }
  return { total, results };
}
