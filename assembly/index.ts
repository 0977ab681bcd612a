// The netlookup WASM engine: only the hot, numeric steps, and the records' JSON written from the
// tables. Tables are placed in linear memory by the host (above heapBase()) and described to the
// engine by the *Configure calls; nothing here allocates, so a lookup costs no garbage collection
// and no memory growth.

export { v4Configure, v4Find, v6Configure, v6FindWords } from './ipRange';
export { ouiConfigure, ouiFind } from './ouiBlock';
export { macFlags } from './macBits';
export { specialConfigure, specialFind } from './macSpecial';
export { checksumReset, checksumUpdate, checksumHigh, checksumLow } from './checksum';
export { firstRowAtOrAbove, firstBadKey4, firstBadKey6 } from './tableCheck';
export { jsonOutput } from './jsonWriter';
export { mapSet } from './smallMap';
export { ipJsonConfigure, ip4Json, ip6Json, jsonPendingZone, jsonHosting } from './ipRecordJson';
export { macJsonConfigure, macJson } from './macRecordJson';

export function heapBase(): usize {
  return __heap_base;
}
