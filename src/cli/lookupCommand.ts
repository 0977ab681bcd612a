/**
 * `netlookup lookup`: offline answers of the engine as JSON, one line per input (inputs from the
 * arguments, or from stdin one per line when none is given or the argument is "-").
 */
import readline from 'node:readline';
import { loadEngine } from '../engine/node.js';
import { answerInput } from '../engine/typedInput.js';

export interface LookupFlags {
  tables?: string;
  pretty?: boolean;
}

export async function runLookup(inputs: string[], flags: LookupFlags): Promise<number> {
  const engine = await loadEngine({ tablesDir: flags.tables });
  let failed = 0;
  const print = (input: string) => {
    const answer = answerInput(engine, input.trim());
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
