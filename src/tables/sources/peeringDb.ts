/**
 * Reader of PeeringDB's daily bootstrap files (`https://public.peeringdb.com/net-0.json`,
 * `org-0.json`, `fac-0.json` and `netfac-0.json`, the same objects as its API's `/api/net`,
 * `/api/org`, `/api/fac` and `/api/netfac` lists): one JSON document `{"meta": {...}, "data": [ ... ]}`
 * whose rows carry `id`, `status`, `created`, `updated` and the object's fields. Networks (`net`)
 * are described by their operators: `asn`, `org_id`, `name`, `website`, `info_type` (one of
 * PeeringDB's network types) and, since 2024, `info_types` (a list of them). Organisations (`org`)
 * have `name` and `website`. Facilities (`fac`, the datacenters and colocation sites) have their
 * street address: `address1`, `address2`, `city`, `state`, `zipcode` and `country` (ISO 3166
 * alpha-2, or empty). A network's presence at a facility (`netfac`) joins `net_id` to `fac_id`
 * (with `local_asn`, the network's AS number, which PeeringDB means to drop).
 *
 * PeeringDB's Acceptable Use Policy limits the data to Internet operational purposes and rules out
 * commercial use, so `netlookup update` fetches it only when the operator turns it on
 * (docs/tables.md "PeeringDB").
 *
 * Rules: the file is bounded (PEERINGDB_MAX_BYTES) and read whole; every row is an object whose
 * read fields have their type (a positive integer id, an AS number, strings of bounded length; keys
 * PeeringDB adds later are ignored); rows whose `status` is not `ok` (pending or deleted objects)
 * are left out; an id, or an AS number among networks, listed twice is refused.
 */
import fs from 'node:fs';
import { getDomain } from 'tldts';
import type { ConnectionType } from '../format/ipTable.js';
import { SourceFormatError } from './textLines.js';

export const PEERINGDB_URLS = {
  networks: 'https://public.peeringdb.com/net-0.json',
  organisations: 'https://public.peeringdb.com/org-0.json',
  facilities: 'https://public.peeringdb.com/fac-0.json',
  presences: 'https://public.peeringdb.com/netfac-0.json',
} as const;

/** The largest file read: 2026's net file is tens of megabytes (its operators' notes are free text). */
export const PEERINGDB_MAX_BYTES = 256 * 1024 * 1024;
const MAX_NAME_LENGTH = 1024;
const MAX_WEBSITE_LENGTH = 4096;
/** PeeringDB's address fields are at most 255 characters (django-peeringdb's AddressModel); room to spare. */
const MAX_ADDRESS_PART_LENGTH = 1024;
const MAX_ASN = 0xffffffff;

/** PeeringDB's network types (its `info_type` choices); "" and "Not Disclosed" say nothing. */
const NETWORK_TYPES = new Set([
  '',
  'Not Disclosed',
  'NSP',
  'Content',
  'Cable/DSL/ISP',
  'Enterprise',
  'Educational/Research',
  'Non-Profit',
  'Route Server',
  'Network Services',
  'Route Collector',
  'Government',
]);

export interface PeeringDbNetworkRow {
  id: number;
  asn: number;
  orgId: number;
  name: string;
  website: string;
  /** the operator's network types, `info_types` (or the older single `info_type`), without empty ones */
  types: string[];
}

export interface PeeringDbOrganisationRow {
  id: number;
  name: string;
  website: string;
}

export interface PeeringDbFacilityRow {
  id: number;
  address1: string;
  address2: string;
  city: string;
  state: string;
  zipcode: string;
  /** ISO 3166 alpha-2; null where the facility gives none */
  country: string | null;
}

/** A network's presence at a facility (`netfac`). */
export interface PeeringDbPresenceRow {
  id: number;
  netId: number;
  facId: number;
}

export interface PeeringDbFile<Row> {
  rows: Row[];
  /** the newest `updated` of the file's rows (YYYY-MM-DD): the bootstrap files state no date of their own */
  date: string | null;
}

/** The rows of a bootstrap file, each checked by `row`; `name` names errors. */
function readRows<Row extends { id: number }>(
  file: string,
  name: string,
  row: (fields: Record<string, unknown>, field: FieldReader) => Row,
): PeeringDbFile<Row> {
  const size = fs.statSync(file).size;
  if (size > PEERINGDB_MAX_BYTES) throw new SourceFormatError(name, 0, `${size} bytes, more than the bound of ${PEERINGDB_MAX_BYTES}`);
  let document: unknown;
  try {
    document = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SourceFormatError(name, 0, `not JSON (${(error as Error).message})`);
  }
  if (typeof document !== 'object' || document === null || !Array.isArray((document as { data?: unknown }).data)) {
    throw new SourceFormatError(name, 0, 'not a PeeringDB list: no "data" array');
  }
  const data = (document as { data: unknown[] }).data;
  const rows: Row[] = [];
  const ids = new Set<number>();
  let newest = '';
  data.forEach((value, index) => {
    const fail = (message: string): never => {
      throw new SourceFormatError(name, 0, `row ${index + 1}: ${message}`);
    };
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('not an object');
    const fields = value as Record<string, unknown>;
    const field = fieldReader(fields, fail);
    const id = field.id('id');
    if (ids.has(id)) fail(`id ${id} listed twice`);
    ids.add(id);
    const status = field.text('status', 32);
    const updated = field.text('updated', 64);
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/.test(updated)) fail(`bad "updated" ${JSON.stringify(updated)}`);
    if (status !== 'ok') return;
    if (updated > newest) newest = updated;
    rows.push(row(fields, field));
  });
  return { rows, date: newest === '' ? null : newest.slice(0, 10) };
}

interface FieldReader {
  id(key: string): number;
  text(key: string, maxLength: number): string;
}

function fieldReader(fields: Record<string, unknown>, fail: (message: string) => never): FieldReader {
  return {
    id: (key) => {
      const value = fields[key];
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) fail(`"${key}" is not a positive integer`);
      return value as number;
    },
    text: (key, maxLength) => {
      const value = fields[key];
      if (typeof value !== 'string') fail(`"${key}" is ${value === undefined ? 'missing' : 'not a string'}`);
      if ((value as string).length > maxLength) fail(`"${key}" is longer than ${maxLength} characters`);
      return value as string;
    },
  };
}

/** Reads `net-0.json` (or an `/api/net` list); networks listed twice under one AS number are refused. */
export function readPeeringDbNetworks(file: string, name: string): PeeringDbFile<PeeringDbNetworkRow> {
  const asns = new Set<number>();
  return readRows(file, name, (fields, field) => {
    const asn = field.id('asn');
    const fail = (message: string): never => {
      throw new SourceFormatError(name, 0, `network ${String(fields.id)}: ${message}`);
    };
    if (asn > MAX_ASN) fail(`AS number ${asn} out of range`);
    if (asns.has(asn)) fail(`AS${asn} listed by two networks`);
    asns.add(asn);
    const types: string[] = [];
    const listed = fields.info_types;
    if (listed !== undefined && listed !== null) {
      if (!Array.isArray(listed) || listed.length > NETWORK_TYPES.size) fail('"info_types" is not a list of network types');
      types.push(...(listed as unknown[]).map((type) => (typeof type === 'string' ? type : fail('"info_types" holds a non-string'))));
    } else if (fields.info_type !== undefined) {
      types.push(field.text('info_type', 64));
    }
    for (const type of types) if (!NETWORK_TYPES.has(type)) fail(`unknown network type ${JSON.stringify(type)}`);
    return {
      id: field.id('id'),
      asn,
      orgId: field.id('org_id'),
      name: field.text('name', MAX_NAME_LENGTH),
      website: field.text('website', MAX_WEBSITE_LENGTH),
      types: types.filter((type) => type !== '' && type !== 'Not Disclosed'),
    };
  });
}

/** Reads `org-0.json` (or an `/api/org` list). */
export function readPeeringDbOrganisations(file: string, name: string): PeeringDbFile<PeeringDbOrganisationRow> {
  return readRows(file, name, (_fields, field) => ({
    id: field.id('id'),
    name: field.text('name', MAX_NAME_LENGTH),
    website: field.text('website', MAX_WEBSITE_LENGTH),
  }));
}

/** Reads `fac-0.json` (or an `/api/fac` list): each facility's street address. */
export function readPeeringDbFacilities(file: string, name: string): PeeringDbFile<PeeringDbFacilityRow> {
  return readRows(file, name, (fields, field) => {
    const country = field.text('country', 2);
    if (country !== '' && !/^[A-Z]{2}$/.test(country)) {
      throw new SourceFormatError(name, 0, `facility ${String(fields.id)}: country ${JSON.stringify(country)} is not a two-letter code`);
    }
    return {
      id: field.id('id'),
      address1: field.text('address1', MAX_ADDRESS_PART_LENGTH),
      address2: field.text('address2', MAX_ADDRESS_PART_LENGTH),
      city: field.text('city', MAX_ADDRESS_PART_LENGTH),
      state: field.text('state', MAX_ADDRESS_PART_LENGTH),
      zipcode: field.text('zipcode', MAX_ADDRESS_PART_LENGTH),
      country: country === '' ? null : country,
    };
  });
}

/** Reads `netfac-0.json` (or an `/api/netfac` list): which network is present at which facility. */
export function readPeeringDbPresences(file: string, name: string): PeeringDbFile<PeeringDbPresenceRow> {
  return readRows(file, name, (fields, field) => {
    // local_asn is the network's own AS number, which PeeringDB keeps in step and means to drop: checked where given, not used
    if (fields.local_asn !== undefined && fields.local_asn !== null && field.id('local_asn') > MAX_ASN) {
      throw new SourceFormatError(name, 0, `presence ${String(fields.id)}: AS number out of range`);
    }
    return { id: field.id('id'), netId: field.id('net_id'), facId: field.id('fac_id') };
  });
}

/**
 * A facility's street address as one line, its parts in the order PeeringDB shows them (Address 1,
 * Address 2, then "city, state, zipcode"), the empty ones left out, joined by ", ". The country is
 * not in it: the record has country fields of its own. Null without a street (address1).
 */
export function facilityAddress(facility: PeeringDbFacilityRow): string | null {
  if (facility.address1.trim() === '') return null;
  const parts = [facility.address1, facility.address2, facility.city, facility.state, facility.zipcode].map((part) => part.trim());
  return parts.filter((part) => part !== '').join(', ');
}

/** The datacenter a network is at, where PeeringDB places it at one facility only. */
export interface PeeringDbDatacenter {
  address: string;
  /** the facility's country (ISO 3166 alpha-2) */
  countryCode: string;
}

/**
 * The facility of each AS whose network PeeringDB lists at exactly one facility (presences with
 * status ok, counted by facility), where that facility is in the facility file with a street and
 * a country. A network at two or more facilities gets none: which one an address is at, PeeringDB
 * does not say.
 */
export function peeringDbDatacenters(
  networks: readonly PeeringDbNetworkRow[],
  presences: readonly PeeringDbPresenceRow[],
  facilities: readonly PeeringDbFacilityRow[],
): Map<number, PeeringDbDatacenter> {
  const facilitiesOf = new Map<number, Set<number>>();
  for (const presence of presences) {
    let at = facilitiesOf.get(presence.netId);
    if (at === undefined) facilitiesOf.set(presence.netId, (at = new Set()));
    at.add(presence.facId);
  }
  const facilityOf = new Map(facilities.map((facility) => [facility.id, facility]));
  const out = new Map<number, PeeringDbDatacenter>();
  for (const net of networks) {
    const at = facilitiesOf.get(net.id);
    if (at === undefined || at.size !== 1) continue;
    const facility = facilityOf.get([...at][0]);
    const address = facility ? facilityAddress(facility) : null;
    if (facility && facility.country !== null && address !== null) out.set(net.asn, { address, countryCode: facility.country });
  }
  return out;
}

/**
 * The connection type an operator's network types say, by PeeringDB's own categories: an access
 * network ("Cable/DSL/ISP") sells to homes first, so it wins over the others it lists (most also
 * list NSP); then government, education, enterprise, content and network services (servers:
 * hosting), and transit ("NSP") last, since transit networks list it beside what they mostly are.
 * Non-Profit, Route Server and Route Collector say nothing of the addresses' use: null.
 */
const TYPE_ORDER: readonly [string, ConnectionType][] = [
  ['Cable/DSL/ISP', 'residential'],
  ['Government', 'government'],
  ['Educational/Research', 'education'],
  ['Enterprise', 'business'],
  ['Content', 'hosting'],
  ['Network Services', 'hosting'],
  ['NSP', 'backbone'],
];

export function connectionTypeOfNetworkTypes(types: readonly string[]): ConnectionType | null {
  for (const [type, connectionType] of TYPE_ORDER) if (types.includes(type)) return connectionType;
  return null;
}

/** The registrable domain of a website as its operator wrote it (`http://www.bbc.co.uk` → bbc.co.uk), by the Public Suffix List; null for none or an address. */
export function registrableDomain(website: string): string | null {
  const trimmed = website.trim();
  if (trimmed === '') return null;
  return getDomain(trimmed) ?? null;
}

/** What PeeringDB says of one AS: its operators' name, website and type, and the organisation that holds it. */
export interface PeeringDbNetwork {
  asn: number;
  name: string;
  domain: string | null;
  connectionType: ConnectionType | null;
  organization: string | null;
  organizationDomain: string | null;
  /** how many networks (AS numbers) PeeringDB lists under the organisation */
  organizationNetworks: number;
}

/**
 * One description per AS number. A network whose organisation is not in the organisation file
 * (the two files are taken minutes apart) keeps its own facts without an organisation.
 */
export function peeringDbNetworks(
  networks: readonly PeeringDbNetworkRow[],
  organisations: readonly PeeringDbOrganisationRow[],
): Map<number, PeeringDbNetwork> {
  const organisationOf = new Map(organisations.map((org) => [org.id, org]));
  const networksOf = new Map<number, number>();
  for (const net of networks) networksOf.set(net.orgId, (networksOf.get(net.orgId) ?? 0) + 1);
  const out = new Map<number, PeeringDbNetwork>();
  for (const net of networks) {
    const org = organisationOf.get(net.orgId);
    out.set(net.asn, {
      asn: net.asn,
      name: net.name.trim(),
      domain: registrableDomain(net.website),
      connectionType: connectionTypeOfNetworkTypes(net.types),
      organization: org ? org.name.trim() || null : null,
      organizationDomain: org ? registrableDomain(org.website) : null,
      organizationNetworks: org ? (networksOf.get(net.orgId) ?? 0) : 0,
    });
  }
  return out;
}
