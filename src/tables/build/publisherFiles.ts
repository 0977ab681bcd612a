/**
 * The publishers' files `netlookup update` fetched, read into what the builder takes: DB-IP's CSV
 * as a location source, the RIRs' delegations as registered blocks, RIS routes named by CAIDA's
 * AS organisations as network ranges, the IEEE CSVs as the MAC registry, PeeringDB's networks
 * and organisations as what each AS's operators say of it, and its facilities and the networks
 * present at them as the datacenter of a network at one facility.
 */
import type { SourceCredit } from '../format/tableMeta.js';
import { AS_ORG_MAX_LINE_LENGTH, readAsOrg2Info } from '../sources/asOrganizations.js';
import type { AsnRange } from '../sources/asnCsv.js';
import { readDbipCityCsv } from '../sources/dbipCityCsv.js';
import type { IabBlock } from '../sources/iabRegistry.js';
import { iabBlocksOf, readIeeeRegistryCsv, registryIndexOf, type IeeeAssignment, type IeeeRegistry } from '../sources/ieeeRegistryCsv.js';
import type { LocationFields } from '../sources/locationRecord.js';
import {
  peeringDbDatacenters,
  peeringDbNetworks,
  readPeeringDbFacilities,
  readPeeringDbNetworks,
  readPeeringDbOrganisations,
  readPeeringDbPresences,
  type PeeringDbDatacenter,
  type PeeringDbNetwork,
} from '../sources/peeringDb.js';
import { readDelegatedExtended, type DelegatedBlock, type Rir } from '../sources/rirDelegated.js';
import { readRisWhoisDump, routedRanges } from '../sources/routingTable.js';
import { linesOfFile } from '../sources/textLines.js';
import type { LocationSource } from './ipTableBuilder.js';

export interface PublisherFile {
  file: string;
  credit: SourceCredit;
}

/** The fetched files by group; a group is null until all its files are in hand (the npm-installed data stands in). */
export interface PublisherInputs {
  dbipCity: PublisherFile | null;
  routing: { ipv4: PublisherFile; ipv6: PublisherFile; asOrganizations: PublisherFile } | null;
  registrations: Record<Rir, PublisherFile> | null;
  ieee: Record<IeeeRegistry, PublisherFile> | null;
  /** PeeringDB's networks and organisations, only where the operator turned PeeringDB on */
  peeringDb?: { networks: PublisherFile; organisations: PublisherFile } | null;
  /** PeeringDB's facilities and the networks present at them, used with its networks */
  peeringDbFacilities?: { facilities: PublisherFile; presences: PublisherFile } | null;
}

/** DB-IP's CSV as a location source: rows kept as ranges, equal places interned as one record. */
export async function dbipCsvLocations(file: string): Promise<LocationSource> {
  const records: LocationFields[] = [];
  const recordOf = new Map<string, number>();
  const ranges = { 4: { start: [] as bigint[], end: [] as bigint[], record: [] as number[] }, 6: { start: [] as bigint[], end: [] as bigint[], record: [] as number[] } };
  for await (const row of readDbipCityCsv(linesOfFile(file), file)) {
    const fields: LocationFields = {
      country_code: row.country_code,
      region: row.region,
      city: row.city,
      district: null,
      postal_code: null,
      latitude: row.latitude,
      longitude: row.longitude,
      accuracy_radius_km: null,
      timezone: null,
    };
    const key = `${fields.country_code}\u0000${fields.region}\u0000${fields.city}\u0000${fields.latitude}\u0000${fields.longitude}`;
    let record = recordOf.get(key);
    if (record === undefined) {
      record = records.length;
      records.push(fields);
      recordOf.set(key, record);
    }
    const family = ranges[row.family];
    family.start.push(row.start);
    family.end.push(row.end);
    family.record.push(record);
  }
  return {
    walk: (family, visit) => {
      const list = ranges[family];
      for (let i = 0; i < list.start.length; i++) visit(list.start[i], list.end[i], list.record[i]);
    },
    record: (_family, id) => records[id],
    splitsCityNames: true,
  };
}

/** A registered block: where the registry says its holder is. */
export interface RegisteredBlock {
  start: bigint;
  end: bigint;
  country_code: string | null;
  registry: Rir;
}

/**
 * The blocks the five RIRs have allocated or assigned, by family, ascending. Available and
 * reserved space is left out: nobody holds it, so nothing is believed there.
 */
export async function readRegistrations(files: Record<Rir, PublisherFile>): Promise<Record<4 | 6, RegisteredBlock[]>> {
  const held: DelegatedBlock[] = [];
  for (const [registry, { file }] of Object.entries(files) as [Rir, PublisherFile][]) {
    const read = await readDelegatedExtended(linesOfFile(file), file, registry);
    for (const block of read.blocks) if (block.status === 'allocated' || block.status === 'assigned') held.push(block);
  }
  const byFamily = { 4: [] as RegisteredBlock[], 6: [] as RegisteredBlock[] };
  held.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  for (const block of held) {
    const list = byFamily[block.family];
    const last = list[list.length - 1];
    // Two registries never hold the same space; a file that says so is not trusted over the other.
    if (last && block.start <= last.end) throw new Error(`${block.registry} and ${last.registry} both register ${block.start}`);
    list.push({ start: block.start, end: block.end, country_code: block.country_code, registry: block.registry });
  }
  return byFamily;
}

/**
 * RIS routes as network ranges, each origin AS named by CAIDA's AS organisations: its registered AS
 * name, its organisation and organisation id, and as holding the organisation's name where CAIDA
 * groups two or more ASNs under that organisation id (src/tables/sources/networkIdentity.ts).
 */
export async function readRoutedNetworks(routing: NonNullable<PublisherInputs['routing']>): Promise<Record<4 | 6, AsnRange[]>> {
  const organisations = await readAsOrg2Info(linesOfFile(routing.asOrganizations.file, { maxLineLength: AS_ORG_MAX_LINE_LENGTH }), routing.asOrganizations.file);
  const asnsOfOrganisation = new Map<string, number>();
  for (const as of organisations.byAsn.values()) asnsOfOrganisation.set(as.organizationId, (asnsOfOrganisation.get(as.organizationId) ?? 0) + 1);
  const networks = { 4: [] as AsnRange[], 6: [] as AsnRange[] };
  for (const family of [4, 6] as const) {
    const source = family === 4 ? routing.ipv4 : routing.ipv6;
    const dump = await readRisWhoisDump(linesOfFile(source.file), family, source.file);
    for (const range of routedRanges(dump.announcements, family)) {
      const named = organisations.byAsn.get(range.asn);
      networks[family].push({
        start: range.start,
        end: range.end,
        asn: range.asn,
        organization: named?.organization ?? null,
        asName: named?.asName ?? null,
        organizationId: named?.organizationId ?? null,
        holding: named && (asnsOfOrganisation.get(named.organizationId) ?? 0) >= 2 ? named.organization : null,
      });
    }
  }
  return networks;
}

/** The IEEE CSVs in the shape the MAC builder takes (oui-data's index: prefix → company, address lines, country). */
export async function readIeeeRegistries(files: Record<IeeeRegistry, PublisherFile>): Promise<{ registry: Record<string, string>; iab: IabBlock[] }> {
  const assignments: IeeeAssignment[] = [];
  let iab: IabBlock[] = [];
  for (const [name, { file }] of Object.entries(files) as [IeeeRegistry, PublisherFile][]) {
    // the row-count floor was applied when the update checked the file
    const read = await readIeeeRegistryCsv(linesOfFile(file), name, file, { minimumRows: 1 });
    if (name === 'IAB') iab = iabBlocksOf(read);
    else assignments.push(...read);
  }
  return { registry: registryIndexOf(assignments), iab };
}

/**
 * PeeringDB's description of each AS it lists, and the datacenter of each AS it places at one
 * facility where its facility files are in hand too (peeringDb.ts).
 */
export function readPeeringDbDescriptions(
  files: NonNullable<PublisherInputs['peeringDb']>,
  facilityFiles: PublisherInputs['peeringDbFacilities'] = null,
): { networks: Map<number, PeeringDbNetwork>; datacenters: Map<number, PeeringDbDatacenter> | null } {
  const networks = readPeeringDbNetworks(files.networks.file, files.networks.file);
  const organisations = readPeeringDbOrganisations(files.organisations.file, files.organisations.file);
  const datacenters = facilityFiles
    ? peeringDbDatacenters(
        networks.rows,
        readPeeringDbPresences(facilityFiles.presences.file, facilityFiles.presences.file).rows,
        readPeeringDbFacilities(facilityFiles.facilities.file, facilityFiles.facilities.file).rows,
      )
    : null;
  return { networks: peeringDbNetworks(networks.rows, organisations.rows), datacenters };
}
