/**
 * Readers of our curated files in data/curated (see its README): each row names its source, and
 * a row that does not fit its column rules stops the build rather than slipping into a table.
 */
import fs from 'node:fs';
import { connectionTypes, type ConnectionType } from '../format/ipTable.js';
import { vmPlatforms, type VmPlatform, type VmPrefix } from '../format/macTable.js';
import { parseCsv } from './csv.js';

function rowsOf(file: string, columns: string[]): Record<string, string>[] {
  const rows = parseCsv(fs.readFileSync(file, 'utf8'));
  rows.forEach((row, i) => {
    for (const column of columns) {
      if (!(column in row)) throw new Error(`${file}: row ${i + 2} has no column ${column}`);
    }
    if (!row.source) throw new Error(`${file}: row ${i + 2} names no source`);
  });
  return rows;
}

export interface CuratedAsn {
  connection_type: ConnectionType | null;
  domain: string | null;
  /** the organisation's name where the ASN CSV gives only a registry handle */
  organization: string | null;
}

export function loadCuratedAsns(file: string): Map<number, CuratedAsn> {
  const map = new Map<number, CuratedAsn>();
  for (const row of rowsOf(file, ['asn', 'connection_type', 'domain', 'organization', 'source'])) {
    const asn = Number(row.asn);
    if (!Number.isInteger(asn) || asn <= 0) throw new Error(`${file}: bad AS number ${row.asn}`);
    const type = row.connection_type === '' ? null : (row.connection_type as ConnectionType);
    if (type !== null && !connectionTypes.includes(type)) throw new Error(`${file}: AS${asn} has unknown connection type ${type}`);
    if (map.has(asn)) throw new Error(`${file}: AS${asn} appears twice`);
    if (row.organization !== row.organization.trim())
      throw new Error(`${file}: AS${asn} has an organisation with leading or trailing spaces`);
    map.set(asn, { connection_type: type, domain: row.domain || null, organization: row.organization || null });
  }
  return map;
}

export interface CuratedVendor {
  short_name: string | null;
  website: string | null;
}

export function loadCuratedVendors(file: string): Map<string, CuratedVendor> {
  const map = new Map<string, CuratedVendor>();
  for (const row of rowsOf(file, ['company_match', 'short_name', 'website', 'source'])) {
    if (map.has(row.company_match)) throw new Error(`${file}: ${row.company_match} appears twice`);
    map.set(row.company_match, { short_name: row.short_name || null, website: row.website || null });
  }
  return map;
}

/** Virtualisation prefixes, longest first so that the first match is the most specific. */
export function loadVmPrefixes(file: string): VmPrefix[] {
  return rowsOf(file, ['prefix', 'platform', 'source'])
    .map((row) => {
      if (!/^[0-9A-F]{4,9}$/.test(row.prefix)) throw new Error(`${file}: prefix ${row.prefix} is not 4 to 9 upper-case hex digits`);
      if (!vmPlatforms.includes(row.platform as VmPlatform)) throw new Error(`${file}: unknown platform ${row.platform}`);
      return { prefix: row.prefix, platform: row.platform as VmPlatform, source: row.source };
    })
    .sort((a, b) => b.prefix.length - a.prefix.length);
}
