/**
 * `netlookup lookup`: offline answers of the engine as JSON, one line per input (inputs from the
 * arguments, or from stdin one per line when none is given or the argument is "-").
 */
import readline from 'node:readline';
import { ApiError } from '../errors.js';
import { loadEngine } from '../engine/node.js';
import { parseIPv4, parseIPv6 } from '../engine/ipAddress.js';
import type { LookupEngine } from '../engine/lookupEngine.js';

export interface LookupFlags {
  tables?: string;
  pretty?: boolean;
}

const words = new Uint32Array(4);

export function answerOf(engine: LookupEngine, input: string): unknown {
  try {
    if (parseIPv4(input) >= 0 || parseIPv6(input, words)) return { input, ...engine.lookupIp(input) };
    return { input, ...engine.lookupMac(input) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const code = error.code === 'invalid_mac' ? 'invalid_input' : error.code;
    const message = error.code === 'invalid_mac' ? 'Neither an IP address nor a MAC address or prefix.' : error.message;
    return { input, error: { code, message } };
  }
}

export async function runLookup(inputs: string[], flags: LookupFlags): Promise<number> {
  const engine = await loadEngine({ tablesDir: flags.tables });
  let failed = 0;
  const print = (input: string) => {
    const answer = answerOf(engine, input.trim());
    if ((answer as { error?: unknown }).error) failed++;
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
