/**
 * MAC search (SPEC 4.7): blocks whose registered company name contains the query,
 * case-insensitively, ordered by company name, at most 100. Every registry is searched (MA-L, MA-M,
 * MA-S and IAB); private registrations name no company and are never a result. The index of names
 * is built once per loaded table.
 */
import type { LookupEngine } from '../engine/lookupEngine.js';
import { macSearchResult, type MacSearchResult } from '../records/macRecord.js';
import type { MacTable } from '../tables/format/macTable.js';

export const MAX_SEARCH_RESULTS = 100;

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
    entries.sort((a, b) => a.result.company.localeCompare(b.result.company, 'en') || a.result.oui.localeCompare(b.result.oui));
    indexes.set(table, entries);
  }
  return entries;
}

export function searchVendors(engine: LookupEngine, query: string): MacSearchResult[] {
  const table = engine.macTable;
  if (!table) return [];
  const needle = query.toLowerCase();
  const results: MacSearchResult[] = [];
  for (const entry of searchIndex(table)) {
    if (entry.folded.includes(needle)) {
      results.push(entry.result);
      if (results.length === MAX_SEARCH_RESULTS) break;
    }
  }
  return results;
}
