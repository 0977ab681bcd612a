/**
 * The compact sets, derived from the built full tables (so their answers are the full tables'
 * answers, reduced): ip4c/ip6c keep country and AS of every range and merge neighbouring ranges
 * whose reduced answer is equal; macc keeps every MA-L/MA-M/MA-S/IAB block with company, country,
 * short name and website and every special address range, leaving out company addresses (the bulk
 * of the full MAC table).
 * Written with a gzip copy beside each file (what the demo serves, and what size-limited hosts pay).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { writeCompactIpTable } from '../format/compactIpTable.js';
import { ANSWER_ROW, HAS_NETWORK } from '../format/compactIpTableLayout.js';
import { COMPACT_FILES, COMPACT_SETS, type CompactKind, type CompactManifest, type CompactTable } from '../format/compactManifest.js';
import { packCountryCode } from '../format/containerLayout.js';
import type { IpTable } from '../format/ipTable.js';
import { NONE } from '../format/ipTableLayout.js';
import { writeMacTable, type CompanyInput, type MacBlockInput, type MacTable } from '../format/macTable.js';
import { StringPoolBuilder } from '../format/stringPool.js';
import type { TableMeta } from '../format/tableMeta.js';
import { replaceFile } from '../tableSets.js';

export interface BuiltCompact {
  bytes: Uint8Array;
  counts: Record<string, number>;
}

/** Time zones are derived for city rows, which the compact sets leave out, so their credits go too. */
const carried = (sources: TableMeta['sources']) => sources.filter((source) => source.origin !== 'geo-tz' && source.origin !== '@vvo/tzdb');

function compactMeta(full: TableMeta, kind: CompactKind, builtAt: Date, counts: Record<string, number>): TableMeta {
  return { ...full, kind, built_at: builtAt.toISOString(), sources: carried(full.sources), counts };
}

/** The reduced answer of every range, merged: keys, answer row per range, answer rows, strings. */
export function compactIpTable(full: IpTable, builtAt: Date): BuiltCompact {
  const strings = new StringPoolBuilder();
  const rowOf = new Map<string, number>();
  const rows: number[] = [];
  const countryOfLocation = new Map<number, number>();
  const packedCountry = (locationRow: number): number => {
    let cc = countryOfLocation.get(locationRow);
    if (cc === undefined) {
      cc = packCountryCode(full.location(locationRow).country_code);
      countryOfLocation.set(locationRow, cc);
    }
    return cc;
  };
  const answerOf = (range: number): number => {
    const locationRow = full.rangeLocation[range];
    const networkRow = full.rangeNetwork[range];
    if (locationRow === NONE && networkRow === NONE) return NONE;
    const cc = locationRow === NONE ? 0 : packedCountry(locationRow);
    let flags = 0;
    let asn = 0;
    let organization = 0;
    if (networkRow !== NONE) {
      const as = full.asRow(full.asRowOfNetwork(networkRow));
      flags = HAS_NETWORK;
      asn = as.asn;
      organization = strings.intern(as.organization);
    }
    const key = `${cc},${flags},${asn},${organization}`;
    let row = rowOf.get(key);
    if (row === undefined) {
      row = rowOf.size;
      rowOf.set(key, row);
      rows.push(cc, flags, asn, organization);
    }
    return row;
  };
  const n = full.rangeCount;
  const kept: number[] = [];
  const answers: number[] = [];
  for (let i = 0; i < n; i++) {
    const answer = answerOf(i);
    if (answers.length > 0 && answers[answers.length - 1] === answer) continue;
    kept.push(i);
    answers.push(answer);
  }
  const answerRows = new Uint8Array((rows.length / 4) * ANSWER_ROW.bytes);
  const view = new DataView(answerRows.buffer);
  for (let r = 0; r < rows.length / 4; r++) {
    const at = r * ANSWER_ROW.bytes;
    view.setUint16(at + ANSWER_ROW.countryCode, rows[4 * r], true);
    view.setUint16(at + ANSWER_ROW.flags, rows[4 * r + 1], true);
    view.setUint32(at + ANSWER_ROW.asn, rows[4 * r + 2], true);
    view.setUint32(at + ANSWER_ROW.organization, rows[4 * r + 3], true);
  }
  let keys: Uint32Array | { hi: BigUint64Array; lo: BigUint64Array };
  if (full.keys) {
    keys = Uint32Array.from(kept, (i) => full.keys![i]);
  } else {
    const hi = new BigUint64Array(kept.length);
    const lo = new BigUint64Array(kept.length);
    const words = new Uint32Array(4);
    kept.forEach((i, k) => {
      full.rangeStart(i, words);
      hi[k] = (BigInt(words[0]) << 32n) | BigInt(words[1]);
      lo[k] = (BigInt(words[2]) << 32n) | BigInt(words[3]);
    });
    keys = { hi, lo };
  }
  const kind = full.family === 4 ? 'ip4c' : 'ip6c';
  const counts = { ranges: kept.length, full_ranges: n, answer_rows: rows.length / 4, strings: strings.size };
  const bytes = writeCompactIpTable({
    family: full.family,
    builtAt,
    sourceDate: full.header.sourceDate,
    meta: compactMeta(full.meta, kind, builtAt, counts),
    countries: [...full.countries.values()],
    keys,
    rangeAnswer: Uint32Array.from(answers),
    answerRows,
    strings: strings.sections(),
  });
  return { bytes, counts };
}

/** The MAC table without company addresses. */
export function compactMacTable(full: MacTable, builtAt: Date): BuiltCompact {
  const strings = new StringPoolBuilder();
  const blocks: MacBlockInput[] = [];
  for (let r = 0; r < full.blockCount; r++) {
    const b = full.block(r);
    blocks.push({ hi24: b.hi24, lo24: b.lo24, type: b.type, company: b.company });
  }
  const companies: CompanyInput[] = [];
  for (let r = 0; r < full.companyCount; r++) {
    const c = full.company(r);
    companies.push({ name: strings.intern(c.name), address: 0, country_code: c.country_code, total_ouis: c.total_ouis, short_name: strings.intern(c.short_name), website: strings.intern(c.website), is_private: c.is_private });
  }
  const specialRanges = Array.from({ length: full.specialCount }, (_, r) => {
    const special = full.special(r);
    return {
      first: special.first,
      last: special.last,
      name: strings.intern(special.name),
      protocol: strings.intern(special.protocol),
      assigned_by: strings.intern(special.assigned_by),
      reference: strings.intern(special.reference),
    };
  });
  const counts = { ...full.meta.counts, strings: strings.size };
  const bytes = writeMacTable(
    {
      builtAt,
      sourceDate: full.header.sourceDate,
      meta: compactMeta(full.meta, 'macc', builtAt, counts),
      countries: [...full.countries.values()],
      blocks,
      companies,
      vmPrefixes: full.vmPrefixes,
      specialRanges,
      strings: strings.sections(),
    },
    'macc',
  );
  return { bytes, counts };
}

export interface FullTables {
  ip4: IpTable;
  ip6: IpTable;
  mac: MacTable;
  /** the full tables' manifest.json, parsed */
  manifest: { built_at: string; sources: TableMeta['sources']; tables: Record<string, { file: string; sha256: string }> };
}

/** Writes the compact files, their gzip copies and manifest.json into `outDir`. */
export function buildCompactTables(
  full: FullTables,
  outDir: string,
  builtAt: Date,
  progress: (phase: string) => void = () => {},
): CompactManifest {
  fs.mkdirSync(outDir, { recursive: true });
  const tables = {} as Record<CompactKind, CompactTable>;
  const build: Record<CompactKind, () => BuiltCompact> = {
    ip4c: () => compactIpTable(full.ip4, builtAt),
    ip6c: () => compactIpTable(full.ip6, builtAt),
    macc: () => compactMacTable(full.mac, builtAt),
  };
  for (const kind of Object.keys(COMPACT_FILES) as CompactKind[]) {
    progress(`compact ${kind}`);
    const { bytes, counts } = build[kind]();
    const gzip = zlib.gzipSync(bytes, { level: 9 });
    const file = COMPACT_FILES[kind];
    replaceFile(path.join(outDir, file), bytes);
    replaceFile(path.join(outDir, `${file}.gz`), gzip);
    tables[kind] = { file, bytes: bytes.byteLength, gzip_file: `${file}.gz`, gzip_bytes: gzip.byteLength, sha256: createHash('sha256').update(bytes).digest('hex'), counts };
  }
  const sets = {} as CompactManifest['sets'];
  for (const [set, kinds] of Object.entries(COMPACT_SETS) as [keyof typeof COMPACT_SETS, readonly CompactKind[]][]) {
    sets[set] = { tables: [...kinds], bytes: kinds.reduce((n, k) => n + tables[k].bytes, 0), gzip_bytes: kinds.reduce((n, k) => n + tables[k].gzip_bytes, 0) };
  }
  const manifest: CompactManifest = {
    built_at: builtAt.toISOString(),
    derived_from: {
      built_at: full.manifest.built_at,
      tables: Object.fromEntries(Object.entries(full.manifest.tables).map(([k, t]) => [k, { file: t.file, sha256: t.sha256 }])),
    },
    sources: carried(full.manifest.sources),
    tables,
    sets,
  };
  replaceFile(path.join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}
