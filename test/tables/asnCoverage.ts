/**
 * The installed ASN CSVs read once per test file: which organisations each AS number has, and how
 * many addresses of each family get their connection type from a curated row, a name rule or
 * nothing — the same decision as the table builder's (connectionTypeOfAs).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { readAsnCsv, type AsnRange } from '../../src/tables/sources/asnCsv.js';
import { connectionTypeOfAs } from '../../src/tables/sources/connectionTypeRules.js';
import { loadCuratedAsns } from '../../src/tables/sources/curated.js';

const require = createRequire(import.meta.url);
const asnDir = path.dirname(require.resolve('@ip-location-db/asn/package.json'));
const curatedFile = new URL('../../data/curated/asn-connection-types.csv', import.meta.url).pathname;

const ranges = new Map<4 | 6, AsnRange[]>();
function rangesOf(family: 4 | 6): AsnRange[] {
  let list = ranges.get(family);
  if (!list) {
    const file = path.join(asnDir, `asn-ipv${family}.csv`);
    list = readAsnCsv(readFileSync(file, 'utf8'), family, file).ranges;
    ranges.set(family, list);
  }
  return list;
}

export function installedAsnHolders(): Map<number, Set<string | null>> {
  const holders = new Map<number, Set<string | null>>();
  for (const family of [4, 6] as const) {
    for (const r of rangesOf(family)) {
      const set = holders.get(r.asn) ?? new Set<string | null>();
      set.add(r.organization);
      holders.set(r.asn, set);
    }
  }
  return holders;
}

/** Curated ASNs whose organisation a name rule also matches: how often the rule's type is the curated one. */
export function ruleAgreement(): { matched: number; agreeing: number } {
  const curated = loadCuratedAsns(curatedFile);
  let matched = 0;
  let agreeing = 0;
  for (const [asn, organizations] of installedAsnHolders()) {
    const type = curated.get(asn)?.connection_type;
    if (!type) continue;
    for (const organization of organizations) {
      const rule = connectionTypeOfAs(null, organization);
      if (rule.type === null) continue;
      matched++;
      if (rule.type === type) agreeing++;
    }
  }
  return { matched, agreeing };
}

export interface Coverage {
  curated: bigint;
  rule: bigint;
  /** PeeringDB's network types: 0 here, the npm data has no PeeringDB */
  peeringdb: bigint;
  none: bigint;
  /** the same counted in /48 networks (IPv6 only; every range there is a whole number of /48s or lies inside one) */
  curated48: bigint;
  rule48: bigint;
  peeringdb48: bigint;
  none48: bigint;
}

export function coverage(family: 4 | 6): Coverage {
  const curated = loadCuratedAsns(curatedFile);
  const out: Coverage = { curated: 0n, rule: 0n, peeringdb: 0n, none: 0n, curated48: 0n, rule48: 0n, peeringdb48: 0n, none48: 0n };
  for (const r of rangesOf(family)) {
    const { provenance } = connectionTypeOfAs(curated.get(r.asn)?.connection_type, r.organization);
    out[provenance] += r.end - r.start + 1n;
    if (family === 6) out[`${provenance}48`] += (r.end >> 80n) - (r.start >> 80n) + 1n;
  }
  return out;
}
