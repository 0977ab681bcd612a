/**
 * `netlookup update`: new data from the publishers into a new table set, swapped in for running
 * servers (src/update/runUpdate.ts); `--rollback` returns to the set before. Exit status 0 when
 * every source was taken or had nothing new; 1 when a source failed or was refused, or the new set
 * was (the set in force keeps serving, with what could be taken); 2 when it could not start
 * (another update holds the lock).
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import { configFromEnv } from '../config/config.js';
import { defaultCompactDir, defaultTablesDir, PACKAGE_TABLES_DIR, packageRoot } from '../engine/node.js';
import { UpdateLockedError } from '../update/updateLock.js';
import { wholeNumber } from './optionValues.js';
import { ProgressDisplay } from './progressDisplay.js';

interface UpdateFlags {
  mirror?: string;
  force?: boolean;
  only?: string[];
  peeringdb?: boolean;
  feedsOnly?: boolean;
  tablesOnly?: boolean;
  rollback?: boolean;
  timeout: number;
}

/**
 * The source catalogs, imported when the command runs: their parsers are a third of a second of
 * every other command's start otherwise.
 */
async function sourceIds(): Promise<string[]> {
  const [{ SOURCES }, { FEED_SOURCES }] = await Promise.all([import('../update/sourceCatalog.js'), import('../update/feedCatalog.js')]);
  return [...SOURCES, ...FEED_SOURCES].map((s) => s.id);
}

const sourceList = (value: string): string[] => value.split(',').map((id) => id.trim());

export function registerUpdateCommand(program: Command): void {
  program
    .command('update')
    .description(
      'fetch new data from each publisher, build a new table set and swap it in for running servers (NETLOOKUP_TABLES, NETLOOKUP_UPDATE_MIRROR)',
    )
    .option('--mirror <url>', 'take every source from <url>/<host>/<path> of its publisher URL (default: $NETLOOKUP_UPDATE_MIRROR)')
    .option('--force', 'accept sources and tables that shrank past the limit, and fetch sources younger than their cadence')
    .option(
      '--peeringdb',
      "fetch PeeringDB's networks, organisations and facilities too, where your use is within PeeringDB's Acceptable Use Policy (default: $NETLOOKUP_UPDATE_PEERINGDB)",
    )
    .addOption(
      new Option('--timeout <seconds>', "the longest wait for a publisher's answer and between its bytes")
        .argParser(wholeNumber(1, 3600))
        .default(30),
    )
    .addOption(
      new Option(
        '--only <ids>',
        'only these sources and feeds, comma-separated ids (docs/tables.md and docs/feeds.md list them)',
      ).argParser(sourceList),
    )
    .addOption(new Option('--feeds-only', 'only the feeds (Tor, VPN, proxy, RPKI, abuse): no table sources').conflicts('tablesOnly'))
    .option('--tables-only', 'only the table sources: no feeds')
    .addOption(
      new Option('--rollback', 'return to the table set (with --feeds-only: the feed set) in force before the last update').conflicts([
        'only',
        'force',
        'mirror',
        'timeout',
        'peeringdb',
        'tablesOnly',
      ]),
    )
    .action(async (flags: UpdateFlags, command: Command) => {
      if (flags.only) {
        const known = await sourceIds();
        const unknown = flags.only.filter((id) => !known.includes(id));
        // the parser's form and status for a value it refuses
        if (unknown.length > 0)
          command.error(
            `error: option '--only <ids>' argument '${flags.only.join(',')}' is invalid. unknown source ${unknown.join(', ')} (sources: ${known.join(', ')})`,
            { exitCode: 2, code: 'commander.invalidArgument' },
          );
      }
      await runUpdateCommand(flags);
    });
}

async function runUpdateCommand(flags: UpdateFlags): Promise<void> {
  const [{ rollback, runUpdate }, { publishCompactSecurity }] = await Promise.all([
    import('../update/runUpdate.js'),
    import('../update/compactSecurity.js'),
  ]);
  const config = configFromEnv(process.env);
  const tablesDir = path.resolve(config.tablesDir ?? defaultTablesDir());
  // the compact sets beside the package's own tables, or where NETLOOKUP_COMPACT_TABLES says: they get the feeds'
  // security table; tables kept elsewhere (NETLOOKUP_TABLES) leave the package's compact folder alone
  const compactDir =
    process.env.NETLOOKUP_COMPACT_TABLES !== undefined || tablesDir === path.resolve(PACKAGE_TABLES_DIR)
      ? path.resolve(defaultCompactDir())
      : null;
  try {
    if (flags.rollback) {
      let back;
      try {
        back = rollback(tablesDir, new Date(), flags.feedsOnly ? 'feeds' : 'tables');
      } catch (error) {
        if (error instanceof UpdateLockedError) throw error;
        process.stderr.write(`netlookup: no rollback: ${(error as Error).message}\n`);
        process.exitCode = 1;
        return;
      }
      const kind = flags.feedsOnly ? 'feed set' : 'table set';
      if (flags.feedsOnly && compactDir !== null) {
        try {
          publishCompactSecurity(tablesDir, compactDir);
        } catch (error) {
          process.stderr.write(`netlookup: the security table beside the compact sets was not updated: ${(error as Error).message}\n`);
        }
      }
      process.stderr.write(`${kind} ${back.to} is in force again (was ${back.from}); running servers take it within a second\n`);
      return;
    }
    const progress = new ProgressDisplay();
    const result = await runUpdate({
      tablesDir,
      curatedDir: path.join(packageRoot, 'data', 'curated'),
      registryDir: path.join(packageRoot, 'data', 'registry'),
      mirror: flags.mirror ?? config.updateMirror,
      force: flags.force,
      only: flags.only,
      peeringDb: flags.peeringdb ?? config.updatePeeringDb,
      feedsOnly: flags.feedsOnly,
      tablesOnly: flags.tablesOnly,
      compactDir,
      idleTimeoutMs: flags.timeout * 1000,
      progress: (phase, done, total) => progress.update(phase, done, total),
      log: (line) => {
        progress.finishPhase();
        process.stderr.write(`${line}\n`);
      },
    });
    progress.finishPhase();
    const inForce = `table set ${result.set}${result.feedSet ? `, feed set ${result.feedSet}` : ''}`;
    const summary =
      result.outcome === 'updated'
        ? `${inForce} ${result.feedSet ? 'are' : 'is'} in force; running servers take ${result.feedSet ? 'them' : 'it'} within a second`
        : result.outcome === 'unchanged'
          ? `no newer data: ${inForce} ${result.feedSet ? 'stay' : 'stays'} in force`
          : `update failed, ${inForce} ${result.feedSet ? 'stay' : 'stays'} in force: ${result.message}`;
    const faults = Object.entries(result.sources).filter(([, source]) => source.outcome === 'failed' || source.outcome === 'refused');
    if (faults.length > 0) process.stderr.write(`not taken: ${faults.map(([id, source]) => `${id} (${source.outcome})`).join(', ')}\n`);
    process.stderr.write(`${summary}\n`);
    if (result.outcome === 'failed' || faults.length > 0) process.exitCode = 1;
  } catch (error) {
    if (error instanceof UpdateLockedError) {
      process.stderr.write(`netlookup: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}
