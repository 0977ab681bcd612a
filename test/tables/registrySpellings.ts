/**
 * The registered company spellings of the real registries (oui-data and our copy of the IAB
 * listing), with the countries and the number of their blocks, read here as a test reads them:
 * first line of an oui-data value the company, last line its country.
 */
import fs from 'node:fs';
import path from 'node:path';
import { companiesOf } from '../../src/tables/build/companyNames.js';
import { countryCodeOfName } from '../../src/tables/sources/countries.js';
import { loadIabRegistry } from '../../src/tables/sources/iabRegistry.js';
import { modulePath } from '../engine/differential/reference.js';

const REGISTRY_DIR = path.join(import.meta.dirname, '..', '..', 'data', 'registry');

export interface RegisteredSpelling {
  name: string;
  countries: Set<string>;
  blocks: number;
}

/** Every named spelling (private registrations left out), and the company of each by companiesOf. */
export function registrySpellings(): { spellings: Map<string, RegisteredSpelling>; companyOf: (name: string) => number } {
  const spellings = new Map<string, RegisteredSpelling>();
  const add = (name: string, country: string | null) => {
    const spelling = spellings.get(name) ?? { name, countries: new Set<string>(), blocks: 0 };
    spelling.blocks++;
    if (country) spelling.countries.add(country);
    spellings.set(name, spelling);
  };
  const oui = JSON.parse(fs.readFileSync(modulePath('oui-data', 'index.json'), 'utf8')) as Record<string, string>;
  for (const value of Object.values(oui)) {
    const lines = value
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    add(lines[0], lines.length > 1 ? countryCodeOfName(lines[lines.length - 1]) : null);
  }
  for (const block of loadIabRegistry(REGISTRY_DIR).blocks) if (block.company) add(block.company, block.country_code);
  spellings.delete('Private');
  const list = [...spellings.values()];
  const roots = companiesOf(list);
  const index = new Map(list.map((s, i) => [s.name, i]));
  return {
    spellings,
    companyOf: (name) => {
      const i = index.get(name);
      if (i === undefined) throw new Error(`${name} is not a registered spelling`);
      return roots[i];
    },
  };
}
