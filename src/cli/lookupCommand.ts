/**
 * `netlookup lookup`: offline answers of the engine as JSON, one line per input (inputs from the
 * arguments, or from stdin one per line when none is given or the argument is "-"). An input of AS
 * followed by digits (AS15169) answers the AS record of the full level with every prefix.
 */
import readline from 'node:readline';
import { loadEngine } from '../engine/node.js';
import { answerInput } from '../engine/typedInput.js';
import { asnAnswer, asnPrefixes } from '../engine/asnIndex.js';
import type { LookupEngine } from '../engine/lookupEngine.js';
import { parseAsn } from '../address/asNumber.js';
import { ApiError } from '../errors.js';
import { asnRecord } from '../records/asnRecord.js';

export interface LookupFlags {
  tables?: string;
  pretty?: boolean;
}

export async function runLookup(inputs: string[], flags: LookupFlags): Promise<number> {
  const engine = await loadEngine({ tablesDir: flags.tables });
  let failed = 0;
  const print = (input: string) => {
    const answer = /^as\d/i.test(input.trim()) ? answerAsn(engine, input.trim()) : answerInput(engine, input.trim());
    if (answer.kind === 'invalid') failed++;
    process.stdout.write(JSON.stringify(answer, null, flags.pretty ? 2 : undefined) + '\n');
  };
  const fromStdin = inputs.length === 0 || (inputs.length === 1 && inputs[0] === '-');
  if (!fromStdin) inputs.forEach(print);
  else {
    for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
      if (line.trim().length > 0) print(line);
    }
  }
  return failed > 0 ? 1 : 0;
}

/** The AS record with all its prefixes, or the invalid_asn refusal beside the input. */
function answerAsn(engine: LookupEngine, input: string) {
  const asn = parseAsn(input);
  if (asn < 0) {
    const { code, message } = new ApiError('invalid_asn');
    return { input, kind: 'invalid' as const, error: { code, message } };
  }
  const answer = asnAnswer(engine, asn);
  const all = answer.ipv4.prefixes + answer.ipv6.prefixes;
  const prefixes = () => ({ offset: 0, limit: all, results: asnPrefixes(engine, asn, 0, all) });
  return { input, kind: 'asn' as const, ...asnRecord(answer, 'full', prefixes) };
}
