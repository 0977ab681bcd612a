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
  /** the network's website domain (network.domain) */
  domain: string | null;
  /** the holder's name where the ASN data gives only a registry handle, or names another holder */
  organization: string | null;
  /** the provider as people call it (network.isp), where it differs from the registered name */
  isp: string | null;
  /** the organisation's own domain where it is not the network's (network.org_domain) */
  org_domain: string | null;
  /** the parent organisation of a group (network.holding) and its domain */
  holding: string | null;
  holding_domain: string | null;
}

/** The columns of asn-connection-types.csv, in order. */
export const CURATED_ASN_COLUMNS = [
  'asn',
  'connection_type',
  'domain',
  'organization',
  'isp',
  'org_domain',
  'holding',
  'holding_domain',
  'identity_source',
  'source',
] as const;

/** The columns that name the network's identity beyond its type: each needs `identity_source`. */
const IDENTITY_COLUMNS = ['isp', 'org_domain', 'holding', 'holding_domain'] as const;
const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,}$/;

export function loadCuratedAsns(file: string): Map<number, CuratedAsn> {
  const map = new Map<number, CuratedAsn>();
  for (const row of rowsOf(file, [...CURATED_ASN_COLUMNS])) {
    const asn = Number(row.asn);
    if (!Number.isInteger(asn) || asn <= 0) throw new Error(`${file}: bad AS number ${row.asn}`);
    const type = row.connection_type === '' ? null : (row.connection_type as ConnectionType);
    if (type !== null && !connectionTypes.includes(type)) throw new Error(`${file}: AS${asn} has unknown connection type ${type}`);
    if (map.has(asn)) throw new Error(`${file}: AS${asn} appears twice`);
    for (const column of ['organization', 'isp', 'holding'] as const) {
      if (row[column] !== row[column].trim()) throw new Error(`${file}: AS${asn} has a ${column} with leading or trailing spaces`);
    }
    for (const column of ['domain', 'org_domain', 'holding_domain'] as const) {
      if (row[column] !== '' && !DOMAIN.test(row[column])) throw new Error(`${file}: AS${asn} has a ${column} that is not a domain name`);
    }
    const identity = IDENTITY_COLUMNS.some((column) => row[column] !== '');
    if (identity && !/^https:\/\/\S+$/.test(row.identity_source))
      throw new Error(`${file}: AS${asn} names an ISP, organisation domain or holding without an identity_source`);
    if (!identity && row.identity_source !== '') throw new Error(`${file}: AS${asn} has an identity_source for no identity column`);
    if (row.holding_domain !== '' && row.holding === '') throw new Error(`${file}: AS${asn} has a holding domain without a holding`);
    map.set(asn, {
      connection_type: type,
      domain: row.domain || null,
      organization: row.organization || null,
      isp: row.isp || null,
      org_domain: row.org_domain || null,
      holding: row.holding || null,
      holding_domain: row.holding_domain || null,
    });
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
