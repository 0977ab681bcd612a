/**
 * The netlookup engine for browsers and edge runtimes (ESM, Web APIs only). Built by
 * `npm run build:web` into dist/browser/netlookup.js with its types.
 *
 *   const engine = await loadCompactEngine({ wasm: '/netlookup.wasm', ip4: '/ip4c.nlt', ip6: '/ip6c.nlt', mac: '/macc.nlt',
 *     security: '/security.nlt' });
 *   engine.lookupIp('8.8.8.8'); engine.lookupMac('00:00:0c:12:34:56');
 *   engine.useSecurityTable(await (await fetch('/security.nlt')).arrayBuffer()); // newer feeds
 *
 * loadEngine takes the full tables instead and gives the engine's answers the server's records are
 * made from (docs/browser-and-edge.md says what the records add).
 */
import { CompactEngine } from '../engine/compactEngine.js';
import { LookupEngine } from '../engine/lookupEngine.js';
import type { TableNames, TableSources } from '../engine/wasmEngine.js';
import { fileBytes, tableSource, wasmModule, type Source } from './sources.js';

export { CompactEngine } from '../engine/compactEngine.js';
export type { CompactIpAnswer, CompactMacAnswer, FeedSecurity } from '../engine/compactEngine.js';
export { LookupEngine } from '../engine/lookupEngine.js';
export type { IpAnswer, MacAnswer } from '../engine/answers.js';
export { ApiError } from '../errors.js';
export { answerInput, isIpInput, splitInputs, type InputAnswer } from '../engine/typedInput.js';
export type { Source } from './sources.js';

export interface EngineInputs {
  /** the engine's WASM module: a URL, a Response, its bytes, or a compiled module */
  wasm: Source | WebAssembly.Module;
  /** each table is optional; a lookup of a family or kind not loaded answers `unavailable` */
  ip4?: Source;
  ip6?: Source;
  mac?: Source;
  /** compact engine only: the security feed table (security.nlt) for the Tor, VPN and proxy flags */
  security?: Source;
}

/** Fetches (in parallel) and compiles the module and the tables' first bytes, then places the tables. */
async function gather(inputs: EngineInputs): Promise<{ module: WebAssembly.Module; sources: TableSources; names: TableNames }> {
  const kinds = (['ip4', 'ip6', 'mac'] as const).filter((kind) => inputs[kind] !== undefined);
  const [module, ...tables] = await Promise.all([wasmModule(inputs.wasm), ...kinds.map((kind) => tableSource(inputs[kind]!, kind))]);
  const sources: TableSources = {};
  const names: TableNames = {};
  kinds.forEach((kind, i) => {
    const table = tables[i];
    sources[kind] = table;
    if (!(table instanceof Uint8Array)) names[kind] = table.name;
  });
  return { module, sources, names };
}

/** The engine over the compact sets (ip4c.nlt, ip6c.nlt, macc.nlt): country and AS, MAC vendors. */
export async function loadCompactEngine(inputs: EngineInputs): Promise<CompactEngine> {
  const [{ module, sources, names }, security] = await Promise.all([
    gather(inputs),
    inputs.security === undefined ? null : fileBytes(inputs.security, 'security'),
  ]);
  const engine = await CompactEngine.create(module, sources, names);
  if (security !== null) engine.useSecurityTable(security, typeof inputs.security === 'string' ? inputs.security : 'security.nlt');
  return engine;
}

/** The engine over the full tables (ip4.nlt, ip6.nlt, mac.nlt): the engine's answers, which the server shapes into its records. */
export async function loadEngine(inputs: EngineInputs): Promise<LookupEngine> {
  const { module, sources, names } = await gather(inputs);
  return LookupEngine.create(module, sources, names);
}
