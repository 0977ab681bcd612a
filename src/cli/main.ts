#!/usr/bin/env node
/**
 * The netlookup command line. Exit statuses (docs/api.md "Administration"): 0 done; 1 the command ran
 * and refused or failed (an admin command's refusal, src/cli/storeAccess.ts CliErrorCode; a
 * lookup's refused input; an import's refused rows); 2 the command could not start: bad usage,
 * reported by the parser (unknown command or option, missing argument, conflicting options, a value
 * of the wrong form), or an unusable environment (a refused variable, missing tables, a data
 * directory another server uses). Help exits with 0.
 */
import { Command, CommanderError, Option } from 'commander';
import { registerAccountCommand } from './accountCommand.js';
import { registerBlacklistCommand } from './blacklistCommand.js';
import { registerKeyCommand } from './keyCommand.js';
import { registerLookupCommand } from './lookupCommand.js';
import { listenHost, unixSeconds, wholeNumber, workerCount } from './optionValues.js';
import { registerUpdateCommand } from './updateCommand.js';

const program = new Command();
program
  .name('netlookup')
  .description('Self-hostable IP, blacklist and MAC lookup: tables, offline lookups, the API server and its administration.')
  // Set before the commands are added: they inherit it. commander's default status for usage errors is 1.
  .exitOverride((error: CommanderError) => process.exit(error.exitCode === 0 ? 0 : 2));

// A command's work is imported when it runs (`await import` in the actions below and in the command
// modules): every start of the CLI would otherwise load the server, the table builder and the updater.
program
  .command('build-tables')
  .description('build the lookup tables from the installed public sources and data/curated')
  .option('--out <dir>', 'folder for the tables (default: $NETLOOKUP_TABLES or data/tables)')
  .option('--city-mmdb <file>', 'use an official MaxMind GeoLite2/GeoIP2 City .mmdb instead of DB-IP Lite')
  .addOption(
    new Option('--compact', 'only derive the compact sets (browsers, edge) from the tables already built in --out').conflicts('cityMmdb'),
  )
  .option('--compact-out <dir>', 'folder for the compact sets (default: $NETLOOKUP_COMPACT_TABLES or data/compact)')
  .addOption(
    new Option(
      '--built-at <seconds>',
      'build time in Unix seconds, recorded in the tables and the centre of the time-zone inference: the same sources and time give the same bytes (default: now)',
    )
      .env('SOURCE_DATE_EPOCH')
      .argParser(unixSeconds),
  )
  .action(async (flags) => (await import('./buildTablesCommand.js')).runBuildTables(flags));

registerLookupCommand(program);
registerUpdateCommand(program);

program
  .command('serve')
  .description(
    'run the HTTP API (PORT, HOST, NETLOOKUP_DATA_DIR, REDIS_URL, NETLOOKUP_TABLES, NETLOOKUP_PLANS, NETLOOKUP_ADMIN_TOKEN, NETLOOKUP_TRUST_PROXY)',
  )
  .option('--port <port>', 'port to listen on, 0 for any free one (default: $PORT or 8080)', wholeNumber(0, 65535))
  .option('--host <host>', 'address or host name to listen on (default: $HOST or 127.0.0.1)', listenHost)
  .addOption(
    new Option('--workers <n>', 'worker processes sharing the port (Node cluster), or auto: one per core')
      .argParser(workerCount)
      .default(1),
  )
  .action(async (flags) => (await import('./serveCommand.js')).runServe(flags));

// Administration on the server's store (docs/api.md "Administration"): the admin API's operations.
registerAccountCommand(program);
registerKeyCommand(program);
registerBlacklistCommand(program);

program.parseAsync(process.argv).catch((error: Error) => {
  process.stderr.write(`netlookup: ${error.message}\n`);
  process.exitCode = 2;
});
