#!/usr/bin/env node
/** The netlookup command line. */
import { Command } from 'commander';
import { registerAccountCommand } from './accountCommand.js';
import { registerBlacklistCommand } from './blacklistCommand.js';
import { runBuildTables } from './buildTablesCommand.js';
import { registerKeyCommand } from './keyCommand.js';
import { runLookup } from './lookupCommand.js';
import { runServe } from './serveCommand.js';

const program = new Command();
program.name('netlookup').description('Self-hostable IP, blacklist and MAC lookup: tables, offline lookups and the API server.');

program
  .command('build-tables')
  .description('build the lookup tables from the installed public sources and data/curated')
  .option('--out <dir>', 'folder for the tables (default: $NETLOOKUP_TABLES or data/tables)')
  .option('--city-mmdb <file>', 'use an official MaxMind GeoLite2/GeoIP2 City .mmdb instead of DB-IP Lite')
  .option('--compact', 'only derive the compact sets (browsers, edge) from the tables already built in --out')
  .option('--compact-out <dir>', 'folder for the compact sets (default: $NETLOOKUP_COMPACT_TABLES or data/compact)')
  .action((flags) => runBuildTables(flags));

program
  .command('lookup')
  .description('look up IP addresses, MAC addresses and AS numbers offline; reads stdin when no input (or "-") is given')
  .argument('[inputs...]', 'IPv4, IPv6, MAC addresses, OUI prefixes or AS numbers (AS15169)')
  .option('--tables <dir>', 'folder of the tables (default: $NETLOOKUP_TABLES or data/tables)')
  .option('--pretty', 'indented JSON')
  .action(async (inputs: string[], flags) => {
    process.exitCode = await runLookup(inputs, flags);
  });

program
  .command('serve')
  .description(
    'run the HTTP API (PORT, HOST, NETLOOKUP_DATA_DIR, REDIS_URL, NETLOOKUP_TABLES, NETLOOKUP_PLANS, NETLOOKUP_ADMIN_TOKEN, NETLOOKUP_TRUST_PROXY)',
  )
  .option('--port <port>', 'port (default: $PORT or 8080)')
  .option('--host <host>', 'address to listen on (default: $HOST or 127.0.0.1)')
  .option('--workers <n>', 'worker processes sharing the port (Node cluster); more than 1 needs REDIS_URL', '1')
  .action((flags) => runServe(flags));

// Administration on the server's store (docs/api.md "Administration"): the admin API's operations.
registerAccountCommand(program);
registerKeyCommand(program);
registerBlacklistCommand(program);

program.parseAsync(process.argv).catch((error: Error) => {
  process.stderr.write(`netlookup: ${error.message}\n`);
  process.exitCode = 2;
});
