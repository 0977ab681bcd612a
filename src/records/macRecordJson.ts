/**
 * The MAC record (SPEC 2.5) as JSON text for the single-lookup hot path: the same text as
 * `JSON.stringify(macRecord(engine.lookupMac(text), level))`, written by the WASM engine straight
 * from the MAC table (src/engine/recordJson.ts) into the object path's JSON split at its values.
 */
import type { MacAnswer } from '../engine/answers.js';
import type { LookupEngine } from '../engine/lookupEngine.js';
import type { MacJsonShape } from '../engine/recordJson.js';
import { MAC_SPECIAL_HOLES, macHoles } from '../engine/recordJsonLayout.js';
import { withEnding } from '../engine/recordText.js';
import { blockTypes } from '../tables/format/macTable.js';
import type { FieldLevel } from './ipRecord.js';
import { JsonTemplate } from './jsonTemplate.js';
import { macRecord } from './macRecord.js';

/** An answer with every part present (or absent, when not found), for the object path to show where the values go. */
function answer(found: boolean): MacAnswer {
  return {
    mac: '',
    oui: '',
    normalized: null,
    is_multicast: false,
    is_local: false,
    is_randomized: false,
    special: null,
    found,
    block: found ? { type: 'MA-L', registry: 'MA-L', start: '', end: '', size: 1 } : null,
    vendor: found
      ? {
          company: null,
          address: null,
          country_code: null,
          country: null,
          short_name: null,
          website: null,
          total_ouis: null,
          is_private: false,
        }
      : null,
    vm_platform: null,
  };
}

const templateOf = (found: boolean, level: FieldLevel) =>
  JsonTemplate.compile(macRecord(answer(found), level), macHoles(level, found)).parts;

const SHAPE: MacJsonShape = {
  templates: {
    found: { basic: templateOf(true, 'basic'), full: templateOf(true, 'full') },
    missing: { basic: templateOf(false, 'basic'), full: templateOf(false, 'full') },
  },
  countryName: (facts) => JSON.stringify(facts?.name ?? null),
  // IAB blocks show as MA-S (src/engine/macAnswers.ts)
  blockTypes: blockTypes.map((type) => JSON.stringify(type === 'IAB' ? 'MA-S' : type)),
  platform: (name) => JSON.stringify(name),
  // the object path's special object (macRecord), split at its values
  special: JsonTemplate.compile(
    macRecord({ ...answer(false), special: { name: '', protocol: null, assigned_by: '', reference: '', start: '', end: '' } }, 'basic')
      .special!,
    MAC_SPECIAL_HOLES,
  ).parts,
};

/**
 * The record of a MAC address or prefix in text as JSON: the engine's when it can write it, else the
 * object path's; `ending` (ASCII) in place of its closing brace. Throws ApiError invalid_mac.
 */
export function macRecordJson(engine: LookupEngine, text: string, level: FieldLevel, ending = ''): string {
  const json = engine.macJsonWriter(SHAPE)?.write(text, level, ending) ?? null;
  return json ?? withEnding(JSON.stringify(macRecord(engine.lookupMac(text), level)), ending);
}
