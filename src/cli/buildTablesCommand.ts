import path from 'node:path';
import { buildTables } from '../tables/build/buildTables.js';
import { packageRoot, defaultTablesDir } from '../engine/node.js';
import { ProgressDisplay } from './progressDisplay.js';

export interface BuildTablesFlags {
  out?: string;
  cityMmdb?: string;
}

export function runBuildTables(flags: BuildTablesFlags): void {
  const progress = new ProgressDisplay();
  const outDir = path.resolve(flags.out ?? defaultTablesDir());
  const summary = buildTables({
    outDir,
    cityMmdb: flags.cityMmdb ? path.resolve(flags.cityMmdb) : undefined,
    curatedDir: path.join(packageRoot, 'data', 'curated'),
    progress: (phase, done, total) => progress.update(phase, done, total),
  });
  progress.finishPhase();
  const { manifest, stats } = summary;
  const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
  const lines = [
    `tables written to ${outDir} in ${(manifest.duration_ms / 1000).toFixed(1)} s`,
    `  ip4.nlt ${mb(manifest.tables.ip4.bytes)}: ${stats.ip4.ranges} ranges from ${stats.ip4.leaves} tree leaves, ${stats.ip4.locationRows} locations, ${stats.ip4.networkRows} networks, ${stats.ip4.asRows} AS rows`,
    `  ip6.nlt ${mb(manifest.tables.ip6.bytes)}: ${stats.ip6.ranges} ranges from ${stats.ip6.leaves} tree leaves, ${stats.ip6.locationRows} locations, ${stats.ip6.networkRows} networks, ${stats.ip6.asRows} AS rows`,
    `  mac.nlt ${mb(manifest.tables.mac.bytes)}: MA-L ${stats.mac.blocks['MA-L']}, MA-M ${stats.mac.blocks['MA-M']}, MA-S ${stats.mac.blocks['MA-S']}, IAB ${stats.mac.blocks.IAB}, ${stats.mac.companies} companies (${stats.mac.countryUnknown} without a known country)`,
    `  sources: ${manifest.sources.map((s) => s.name).join('; ')}`,
  ];
  process.stderr.write(lines.join('\n') + '\n');
}
