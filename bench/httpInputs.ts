/**
 * Inputs of the HTTP bench: the spaces of the random workload (bench/httpRandom.ts); for the
 * cache-friendly workload, a pool of public IPv4 addresses the DB-IP database holds (so that every
 * contender answers a record), MACs as in the engine bench and batch bodies drawn from the pool; and
 * the addresses reported to the blacklist before the cases.
 */
import fs from 'node:fs';
import maxmind, { type CityResponse } from 'maxmind';
import { ipv4Inputs, macInputs } from './inputs.js';
import type { LoadRequest } from './httpLoad.js';
import { writeSpaces, type RandomSpaces } from './httpRandom.js';
import { MMDB_IPV4 } from './httpServers.js';
import { IP_POOL, MAC_POOL, OUI_JSON, SEED, log } from './httpSettings.js';

/**
 * Every LISTED_EVERY-th address of the pool is reported (by the business account) before the cases
 * run, so that paid lookups meet listed addresses as well as the many that are not: their validator
 * checks `security.is_threat` against this set on every answer.
 */
export const LISTED_EVERY = 100;

export interface HttpInputs {
  spaces: RandomSpaces;
  ips: string[];
  macs: string[];
  /** every LISTED_EVERY-th address of the pool */
  listedIps: Set<string>;
}

/** The inputs; the random spaces' files are written into `dir`. */
export async function loadInputs(dir: string): Promise<HttpInputs> {
  const spaces = writeSpaces(dir);
  const reader = await maxmind.open<CityResponse>(MMDB_IPV4);
  const candidates = ipv4Inputs(IP_POOL * 2, SEED).texts;
  const ips = candidates.filter((ip) => reader.get(ip) !== null).slice(0, IP_POOL);
  if (ips.length < IP_POOL) throw new Error(`only ${ips.length} of ${candidates.length} candidates are in the mmdb`);
  const ouiPrefixes = Object.keys(JSON.parse(fs.readFileSync(OUI_JSON, 'utf8')) as Record<string, string>);
  const macs = macInputs(MAC_POOL, SEED + 2, ouiPrefixes);
  log(
    `inputs: random spaces written; pool of ${ips.length} IPv4 addresses held by the mmdb (of ${candidates.length} drawn) and ${macs.length} MACs`,
  );
  return { spaces, ips, macs, listedIps: new Set(ips.filter((_, i) => i % LISTED_EVERY === 0)) };
}

export const ipPaths = (ips: string[], prefix: string): LoadRequest[] => ips.map((ip) => ({ method: 'GET', path: `${prefix}${ip}` }));
