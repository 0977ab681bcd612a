import fs from 'node:fs';
import path from 'node:path';
import { buildTables } from '../tables/build/buildTables.js';
import type { IpBuildStats } from '../tables/build/ipTableBuilder.js';
import { buildCompactTables } from '../tables/build/compactTables.js';
import type { CompactManifest } from '../tables/format/compactManifest.js';
import { packageRoot, defaultTablesDir, defaultCompactDir, loadEngine } from '../engine/node.js';
import { MANIFEST_FILE } from '../tables/tableFiles.js';
import { INSTALLED_SET } from '../tables/tableSets.js';
import { ProgressDisplay } from './progressDisplay.js';

export interface BuildTablesFlags {
  out?: string;
  cityMmdb?: string;
  compact?: boolean;
  compactOut?: string;
  builtAt?: Date;
}

const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;

/** `part` of `whole` as a percentage with two decimals (IPv6 address counts exceed a double's exact range). */
const percent = (part: bigint, whole: bigint) => `${whole === 0n ? '0.00' : (Number((part * 10000n) / whole) / 100).toFixed(2)}%`;

/** Where the connection types of one table's addresses come from, and how many answer a registry handle. */
function coverageLine(name: string, stats: IpBuildStats): string {
  const { curated, rule, peeringdb, none } = stats.connectionTypeAddresses;
  const all = curated + rule + peeringdb + none;
  const { source, table } = stats.handleAddresses;
  const rules = Object.entries(stats.ruleAddresses)
    .sort((a, b) => (b[1] > a[1] ? 1 : b[1] < a[1] ? -1 : 0))
    .map(([rule, addresses]) => `${rule} ${percent(addresses, all)}`);
  return [
    `  ${name} addresses with an AS: connection type curated ${percent(curated, all)}, by name rule ${percent(rule, all)}, by PeeringDB type ${percent(peeringdb, all)}, unknown ${percent(none, all)}; organisation a registry handle ${percent(source, all)} in the ASN data, ${percent(table, all)} in the table`,
    `    by rule: ${rules.join(', ')}`,
  ].join('\n');
}

export async function runBuildTables(flags: BuildTablesFlags): Promise<void> {
  const outDir = path.resolve(flags.out ?? defaultTablesDir());
  // Whole seconds, as the tables' headers keep it: `--built-at` can then repeat any build.
  const builtAt = flags.builtAt ?? new Date(Math.floor(Date.now() / 1000) * 1000);
  if (!flags.compact) await buildFullTables(outDir, flags, builtAt);
  const compactDir = path.resolve(flags.compactOut ?? defaultCompactDir());
  const started = Date.now();
  const manifest = await deriveCompactTables(outDir, compactDir, builtAt);
  const lines = [`compact sets written to ${compactDir} in ${((Date.now() - started) / 1000).toFixed(1)} s`];
  for (const table of Object.values(manifest.tables))
    lines.push(`  ${table.file} ${mb(table.bytes)}, ${mb(table.gzip_bytes)} gzip: ${JSON.stringify(table.counts)}`);
  for (const [name, set] of Object.entries(manifest.sets))
    lines.push(`  ${name} set (${set.tables.join(' + ')}): ${mb(set.gzip_bytes)} gzip`);
  process.stderr.write(lines.join('\n') + '\n');
}

/** The compact sets from the full tables of `tablesDir`, checked by the engine as the server loads them. */
async function deriveCompactTables(tablesDir: string, compactDir: string, builtAt: Date): Promise<CompactManifest> {
  const engine = await loadEngine({ tablesDir, set: INSTALLED_SET });
  const fullManifest = JSON.parse(fs.readFileSync(path.join(tablesDir, MANIFEST_FILE), 'utf8'));
  return buildCompactTables({ ip4: engine.ip4!, ip6: engine.ip6!, mac: engine.macTable!, manifest: fullManifest }, compactDir, builtAt);
}

async function buildFullTables(outDir: string, flags: BuildTablesFlags, builtAt: Date): Promise<void> {
  const progress = new ProgressDisplay();
  const summary = await buildTables({
    outDir,
    builtAt,
    cityMmdb: flags.cityMmdb ? path.resolve(flags.cityMmdb) : undefined,
    curatedDir: path.join(packageRoot, 'data', 'curated'),
    registryDir: path.join(packageRoot, 'data', 'registry'),
    progress: (phase, done, total) => progress.update(phase, done, total),
  });
  progress.finishPhase();
  const { manifest, stats } = summary;
  const lines = [
    `tables written to ${outDir} in ${(manifest.duration_ms / 1000).toFixed(1)} s`,
    `  ip4.nlt ${mb(manifest.tables.ip4.bytes)}: ${stats.ip4.ranges} ranges from ${stats.ip4.leaves} tree leaves, ${stats.ip4.locationRows} locations, ${stats.ip4.networkRows} networks, ${stats.ip4.asRows} AS rows`,
    `  ip6.nlt ${mb(manifest.tables.ip6.bytes)}: ${stats.ip6.ranges} ranges from ${stats.ip6.leaves} tree leaves, ${stats.ip6.locationRows} locations, ${stats.ip6.networkRows} networks, ${stats.ip6.asRows} AS rows`,
    coverageLine('ip4', stats.ip4),
    coverageLine('ip6', stats.ip6),
    `  mac.nlt ${mb(manifest.tables.mac.bytes)}: MA-L ${stats.mac.blocks['MA-L']}, MA-M ${stats.mac.blocks['MA-M']}, MA-S ${stats.mac.blocks['MA-S']}, IAB ${stats.mac.blocks.IAB} (${stats.mac.privateBlocks} private), ${stats.mac.companies} companies from ${stats.mac.spellings} spellings, ${stats.mac.companyRows} company rows (${stats.mac.countryUnknown} without a known country)`,
    `  sources: ${manifest.sources.map((s) => s.name).join('; ')}`,
  ];
  process.stderr.write(lines.join('\n') + '\n');
}
