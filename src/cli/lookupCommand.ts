/**
 * `netlookup lookup`: the API's records, offline, one per input (inputs from the arguments, or from
 * stdin one per line when none is given or the argument is "-"):
 * - an IP address: the record of GET /v1/ip/{ip}; a MAC address or prefix: of GET /v1/mac/{mac}; an
 *   AS number written AS15169: of GET /v1/asn/{asn}, with every prefix at the full level; the same
 *   keys, values and rounding, without `meta` (no plan, no quota);
 * - the full field level unless `--level basic` (what the free plan answers);
 * - no store, so no blacklist: the threat fields say what the API says of an address its blacklist
 *   does not list (is_threat false, threat_confidence 0, threat_reports 0, the others null);
 * - the feed set in force beside the tables (Tor, VPN, proxy, RPKI, abuse), as the API answers from
 *   it; no reverse DNS (offline): hostname null;
 * - input of no kind, or a refusal (a table not loaded): the API's error envelope in its place.
 * JSON, indented when stdout is a terminal (or with --pretty), else one record per line.
 * Exit status: 0 every input answered (found or not), 1 some input refused, 2 bad usage or no tables.
 */
import { Option, type Command } from 'commander';
import readline from 'node:readline';
import { parseIp } from '../address/ipAddress.js';
import { inputKindOf, type InputKind } from '../address/inputKind.js';
import { parseAsn } from '../address/asNumber.js';
import { asnAnswer, asnPrefixes } from '../engine/asnIndex.js';
import { defaultTablesDir, loadEngine } from '../engine/node.js';
import { FeedSet } from '../feeds/feedSet.js';
import { ipRecordFeeds } from '../http/v1/ipRecordFeeds.js';
import type { LookupEngine } from '../engine/lookupEngine.js';
import { ApiError } from '../errors.js';
import { errorEnvelope } from '../http/request/errorResponse.js';
import { asnRecord } from '../records/asnRecord.js';
import { ipRecord, type FieldLevel } from '../records/ipRecord.js';
import { macRecord } from '../records/macRecord.js';

interface LookupFlags {
  tables?: string;
  level: FieldLevel;
  /** undefined: indented when stdout is a terminal */
  pretty?: boolean;
}

interface KindAnswer {
  /** the kind as help and refusals name it */
  noun: string;
  /** the API's record for text of this kind; throws ApiError where the API refuses */
  record(engine: LookupEngine, feeds: FeedSet, text: string, level: FieldLevel, now: Date): object;
}

/** How each kind of input is answered; which kind an input is, inputKindOf says. */
const inputKinds: Record<InputKind, KindAnswer> = {
  ip: {
    noun: 'an IP address',
    record: (engine, feeds, text, level, now) => {
      const ip = parseIp(text)!;
      return ipRecord(engine.answerOf(ip), level, now, ipRecordFeeds({ feeds: { current: feeds } }, ip, level, now, undefined));
    },
  },
  mac: {
    noun: 'a MAC address or prefix',
    record: (engine, _feeds, text, level) => macRecord(engine.lookupMac(text), level),
  },
  asn: {
    noun: 'an AS number (AS15169)',
    record: (engine, _feeds, text, level) => {
      const asn = parseAsn(text);
      if (asn < 0) throw new ApiError('invalid_asn');
      const answer = asnAnswer(engine, asn);
      const all = answer.ipv4.prefixes + answer.ipv6.prefixes;
      return asnRecord(answer, level, () => ({ offset: 0, limit: all, results: asnPrefixes(engine, asn, 0, all) }));
    },
  },
};

const nouns = Object.values(inputKinds).map((kind) => kind.noun);
const NO_KIND_MESSAGE = `Not ${nouns.slice(0, -1).join(', ')}, or ${nouns[nouns.length - 1]}.`;

/** The record of one input, or the API's error envelope; `refused` tells which. */
function answerOf(engine: LookupEngine, feeds: FeedSet, text: string, level: FieldLevel): { output: object; refused: boolean } {
  const kind = inputKindOf(text);
  if (kind === null) return { output: errorEnvelope('invalid_input', NO_KIND_MESSAGE), refused: true };
  try {
    return { output: inputKinds[kind].record(engine, feeds, text, level, new Date()), refused: false };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { output: errorEnvelope(error.code, error.message), refused: true };
  }
}

async function runLookup(inputs: string[], flags: LookupFlags): Promise<number> {
  const engine = await loadEngine({ tablesDir: flags.tables });
  const feeds = FeedSet.load(flags.tables ?? defaultTablesDir());
  const indent = (flags.pretty ?? process.stdout.isTTY === true) ? 2 : undefined;
  let refused = 0;
  const print = (input: string) => {
    const answer = answerOf(engine, feeds, input.trim(), flags.level);
    if (answer.refused) refused++;
    process.stdout.write(JSON.stringify(answer.output, null, indent) + '\n');
  };
  const fromStdin = inputs.length === 0 || (inputs.length === 1 && inputs[0] === '-');
  if (!fromStdin) inputs.forEach(print);
  else {
    for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
      if (line.trim().length > 0) print(line);
    }
  }
  return refused > 0 ? 1 : 0;
}

export function registerLookupCommand(program: Command): Command {
  return program
    .command('lookup')
    .description('print the API\'s records of the inputs, offline from the tables; reads stdin when no input (or "-") is given')
    .argument('[inputs...]', `what to look up (${nouns.join(', ')})`)
    .addOption(
      new Option('--level <level>', "field level: full (the paid plans' records) or basic (the free plan's)")
        .choices(['basic', 'full'])
        .default('full'),
    )
    .option('--tables <dir>', 'folder of the tables (default: $NETLOOKUP_TABLES or data/tables)')
    .option('--pretty', 'indented JSON (the default when stdout is a terminal)')
    .option('--no-pretty', 'one record per line (the default when stdout is not a terminal)')
    .action(async (inputs: string[], flags: LookupFlags) => {
      process.exitCode = await runLookup(inputs, flags);
    });
}
