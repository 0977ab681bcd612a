/**
 * The publishers `netlookup update` fetches from: where each file is, how big it may be, how it is
 * checked, how often it changes, and its licence. docs/tables.md states the same for operators.
 *
 * Each check reads the whole file with the strict reader the builder uses, so a file that passes
 * is one the builder can read; it returns the row count (compared with the file in force) and the
 * date the publisher gives the data.
 */
import { AS_ORG_MAX_LINE_LENGTH, newestAsOrgFile, readAsOrg2Info } from '../tables/sources/asOrganizations.js';
import { DBIP_FREE_URL, dbipCityFileNames, readDbipCityCsv, type DbipCityCounts } from '../tables/sources/dbipCityCsv.js';
import { IEEE_REGISTRY_FILES, readIeeeRegistryCsv, type IeeeRegistry } from '../tables/sources/ieeeRegistryCsv.js';
import { DELEGATED_EXTENDED_URLS, md5OfChecksumFile, readDelegatedExtended, type Rir } from '../tables/sources/rirDelegated.js';
import {
  PEERINGDB_MAX_BYTES,
  PEERINGDB_URLS,
  readPeeringDbFacilities,
  readPeeringDbNetworks,
  readPeeringDbOrganisations,
  readPeeringDbPresences,
} from '../tables/sources/peeringDb.js';
import { readRisWhoisDump } from '../tables/sources/routingTable.js';
import { linesOfFile } from '../tables/sources/textLines.js';
import { publisherFileName } from './download.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const MB = 1024 * 1024;

export type SourceId =
  | 'dbip-city'
  | 'ris-ipv4'
  | 'ris-ipv6'
  | 'caida-as2org'
  | `rir-${Rir}`
  | 'ieee-ma-l'
  | 'ieee-ma-m'
  | 'ieee-ma-s'
  | 'ieee-iab'
  | 'peeringdb-net'
  | 'peeringdb-org'
  | 'peeringdb-fac'
  | 'peeringdb-netfac';

interface SourceCheck {
  rows: number;
  /** the publisher's date of the data (YYYY-MM-DD or an ISO time); null when the file states none */
  date: string | null;
}

/** A publisher's file as an update fetches and checks it: the table sources below and the feeds of feedCatalog.ts. */
export interface PublishedSource {
  id: string;
  name: string;
  /**
   * The publisher's URLs to try, in order (DB-IP names its file by month: this month's, then last
   * month's). `index` is fetched first when the file's name must be read from a directory listing.
   */
  urls(now: Date): string[];
  index?: { url: string; pick(html: string, url: string): string };
  /** the publisher's checksum file beside the data, when it publishes one */
  checksum?: { url(fileUrl: string): string; md5(text: string, fileName: string, url: string): string };
  /** the largest file accepted (counted while it streams in); a small or empty file is caught by the check and the shrink rule */
  maxBytes: number;
  /**
   * The floor of a first fetch: the fewest rows a whole file of the publisher has (about half the
   * rows of its 2026 file; the IEEE reader's own minimums for its listings), so that a partial file
   * is not taken when there is no file in force to compare it with.
   */
  minRows: number;
  /** how often the publisher changes it: a file younger than this is not fetched again (unless forced) */
  cadenceMs: number;
  licence: string;
  attribution: string;
  /** the publisher's page about the data */
  about: string;
  check(file: string, url: string): Promise<SourceCheck>;
}

export interface SourceDefinition extends PublishedSource {
  id: SourceId;
  /** the part of the tables the source feeds */
  feeds: 'location' | 'routing' | 'as-names' | 'registration' | 'mac-registry' | 'network-descriptions' | 'datacenter-addresses';
  /**
   * Fetched only when the operator turns it on (`--peeringdb`): the publisher's terms limit its
   * use, and whether a deployment's use is within them is the operator's call.
   */
  optIn?: 'peeringdb';
}

/** Half the records of each RIR's file of 2026-09-28. */
const RIR_FLOORS: Record<Rir, number> = { afrinic: 10_000, apnic: 95_000, arin: 100_000, lacnic: 48_000, ripencc: 130_000 };

function rirSource(rir: Rir): SourceDefinition {
  return {
    id: `rir-${rir}`,
    name: `${rir === 'ripencc' ? 'RIPE NCC' : rir.toUpperCase()} delegated-extended statistics`,
    feeds: 'registration',
    urls: () => [DELEGATED_EXTENDED_URLS[rir]],
    checksum: { url: (fileUrl) => `${fileUrl}.md5`, md5: (text, fileName, url) => md5OfChecksumFile(text, fileName, url) },
    maxBytes: 256 * MB,
    minRows: RIR_FLOORS[rir],
    cadenceMs: DAY,
    licence: 'published by the RIR for public use (RIR statistics exchange format)',
    attribution: `Address and AS number registrations: ${rir === 'ripencc' ? 'RIPE NCC' : rir.toUpperCase()} delegated-extended statistics`,
    about: 'https://www.nro.net/about/rirs/statistics/',
    check: async (file, url) => {
      const read = await readDelegatedExtended(linesOfFile(file), publisherFileName(url), rir);
      return { rows: read.blocks.length + read.asns.length, date: read.published };
    },
  };
}

function ieeeSource(registry: IeeeRegistry): SourceDefinition {
  return {
    id: `ieee-${registry.toLowerCase()}` as SourceId,
    name: `IEEE ${registry} registry`,
    feeds: 'mac-registry',
    urls: () => [IEEE_REGISTRY_FILES[registry].url],
    maxBytes: 64 * MB,
    minRows: IEEE_REGISTRY_FILES[registry].minimumRows,
    cadenceMs: DAY,
    licence: 'IEEE public registry listing',
    attribution: 'MAC address block assignments: IEEE Registration Authority (https://standards.ieee.org/products-programs/regauth/)',
    about: 'https://regauth.standards.ieee.org/standards-ra-web/pub/view.html',
    // the floor of a first fetch is applied by the update, as for every source
    check: async (file, url) => ({
      rows: (await readIeeeRegistryCsv(linesOfFile(file), registry, publisherFileName(url), { minimumRows: 1 })).length,
      date: null,
    }),
  };
}

/**
 * PeeringDB's daily bootstrap files. The floors of the network and organisation files are about
 * half of what PeeringDB listed in 2025 (some 30,000 networks and as many organisations); those of
 * the facility and presence files are set well below any whole file (PeeringDB lists thousands of
 * facilities and networks present at them; their 2025 counts were not checked here).
 */
const PEERINGDB_FILES: Record<
  keyof typeof PEERINGDB_URLS,
  {
    id: SourceId;
    read: (file: string, name: string) => { rows: unknown[]; date: string | null };
    minRows: number;
    feeds: SourceDefinition['feeds'];
  }
> = {
  networks: { id: 'peeringdb-net', read: readPeeringDbNetworks, minRows: 15_000, feeds: 'network-descriptions' },
  organisations: { id: 'peeringdb-org', read: readPeeringDbOrganisations, minRows: 15_000, feeds: 'network-descriptions' },
  facilities: { id: 'peeringdb-fac', read: readPeeringDbFacilities, minRows: 1_000, feeds: 'datacenter-addresses' },
  presences: { id: 'peeringdb-netfac', read: readPeeringDbPresences, minRows: 1_000, feeds: 'datacenter-addresses' },
};

function peeringDbSource(kind: keyof typeof PEERINGDB_URLS): SourceDefinition {
  const { id, read, minRows, feeds } = PEERINGDB_FILES[kind];
  return {
    id,
    name: `PeeringDB ${kind === 'presences' ? 'network presences at facilities' : kind}`,
    feeds,
    optIn: 'peeringdb',
    urls: () => [PEERINGDB_URLS[kind]],
    maxBytes: PEERINGDB_MAX_BYTES,
    minRows,
    cadenceMs: DAY,
    licence: 'PeeringDB Acceptable Use Policy: Internet operational purposes, no commercial use',
    attribution: `${feeds === 'network-descriptions' ? 'Network descriptions' : 'Datacenter addresses'}: PeeringDB (https://www.peeringdb.com), under its Acceptable Use Policy`,
    about: 'https://www.peeringdb.com/aup',
    check: async (file, url) => {
      const listed = read(file, publisherFileName(url));
      return { rows: listed.rows.length, date: listed.date };
    },
  };
}

const ASORG_DIRECTORY = 'https://publicdata.caida.org/datasets/as-organizations/';

export const SOURCES: readonly SourceDefinition[] = [
  {
    id: 'dbip-city',
    name: 'DB-IP IP to City Lite',
    feeds: 'location',
    urls: (now) => dbipCityFileNames(now).map((name) => new URL(name, DBIP_FREE_URL).href),
    maxBytes: 1024 * MB,
    minRows: 4_000_000,
    cadenceMs: 7 * DAY,
    licence: 'CC BY 4.0',
    attribution: 'IP Geolocation by DB-IP (https://db-ip.com)',
    about: 'https://db-ip.com/db/download/ip-to-city-lite',
    check: async (file, url) => {
      const counts: DbipCityCounts = { ipv4Rows: 0, ipv6Rows: 0 };
      for await (const row of readDbipCityCsv(linesOfFile(file), publisherFileName(url), counts)) void row;
      const month = /(\d{4})-(\d{2})\.csv/.exec(url);
      return { rows: counts.ipv4Rows + counts.ipv6Rows, date: month ? `${month[1]}-${month[2]}-01` : null };
    },
  },
  ...([4, 6] as const).map((family): SourceDefinition => ({
    id: `ris-ipv${family}`,
    name: `RIPE RIS routing table (IPv${family})`,
    feeds: 'routing',
    urls: () => [`https://www.ris.ripe.net/dumps/riswhoisdump.IPv${family}.gz`],
    maxBytes: 512 * MB,
    minRows: family === 4 ? 600_000 : 130_000,
    cadenceMs: 8 * HOUR,
    licence: 'RIPE NCC RIS data, RIPE NCC terms of use for RIS raw data',
    attribution: 'Routing data: RIPE NCC Routing Information Service (RIS)',
    about: 'https://ris.ripe.net',
    check: async (file, url) => {
      const dump = await readRisWhoisDump(linesOfFile(file), family, publisherFileName(url));
      return { rows: dump.announcements.length, date: dump.dumpedAt };
    },
  })),
  {
    id: 'caida-as2org',
    name: 'CAIDA AS Organizations',
    feeds: 'as-names',
    urls: () => [],
    index: { url: ASORG_DIRECTORY, pick: (html, url) => new URL(newestAsOrgFile(html, url), ASORG_DIRECTORY).href },
    maxBytes: 256 * MB,
    minRows: 50_000,
    cadenceMs: 7 * DAY,
    licence: 'CAIDA Acceptable Use Agreement for publicly accessible datasets',
    attribution: 'The CAIDA UCSD AS to Organization Mapping Dataset, https://www.caida.org/catalog/datasets/as-organizations',
    about: 'https://www.caida.org/catalog/datasets/as-organizations/',
    check: async (file, url) => {
      const read = await readAsOrg2Info(linesOfFile(file, { maxLineLength: AS_ORG_MAX_LINE_LENGTH }), publisherFileName(url));
      return { rows: read.byAsn.size, date: read.date };
    },
  },
  ...(['afrinic', 'apnic', 'arin', 'lacnic', 'ripencc'] as const).map(rirSource),
  ...(['MA-L', 'MA-M', 'MA-S', 'IAB'] as const).map(ieeeSource),
  peeringDbSource('networks'),
  peeringDbSource('organisations'),
  peeringDbSource('facilities'),
  peeringDbSource('presences'),
];
