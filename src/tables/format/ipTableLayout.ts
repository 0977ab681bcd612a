/**
 * The byte layout of the IP range tables, kinds ip4 and ip6: src/tables/FORMAT.md, "ip4 and ip6:
 * one exact range table per family". "The ranges tile the whole address space: range i covers
 * [key i, key i+1 − 1] ... Each range points to a location row and a network row, 0xFFFFFFFF where
 * no source covers it."
 */
import { metaAndCountriesLayout, stringPoolLayout, U32_BYTES, U64_BYTES, type SectionLayout } from './containerLayout.js';

export type Family = 4 | 6;

/** The row reference of a range that no source covers. */
export const NONE = 0xffffffff;

export const IP_SECTION = {
  /** u32 × (2^B + 1) bucket index */
  index: 'INDX',
  /** ip4: u32 range starts */
  keys: 'KEYS',
  /** ip6: high and low u64 halves of the 128-bit range starts */
  keysHigh: 'KEYH',
  keysLow: 'KEYL',
  /** u32 location row of each range */
  rangeLocation: 'RLOC',
  /** u32 network row of each range */
  rangeNetwork: 'RNET',
  locationRows: 'LROW',
  networkRows: 'NROW',
  asRows: 'AROW',
} as const;

/** B, the bits of an address's top that pick its bucket of INDX. */
export const INDEX_BITS = { 4: 20, 6: 20 } as const;

/**
 * "Location row: latitude f64 (NaN: unknown), longitude f64, region, city, postal code and time zone
 * string ids (u32 each), country code u16 ..., accuracy radius km u16 (0: unknown), district string id u32".
 */
export const LOCATION_ROW = {
  bytes: 40,
  latitude: 0,
  longitude: 8,
  region: 16,
  city: 20,
  postalCode: 24,
  timeZone: 28,
  countryCode: 32,
  accuracyRadiusKm: 34,
  district: 36,
} as const;

/** The string id fields of a location row. */
export const LOCATION_STRING_FIELDS = (['region', 'city', 'postalCode', 'timeZone', 'district'] as const).map(
  (field) => LOCATION_ROW[field],
);

/**
 * "Network row: first and last address of the network block (ip4: u32 each; ip6: high u64, low u64
 * of the start, then of the end), AS row u32, 4 zero bytes."
 */
export const NETWORK_ROW = {
  4: { bytes: 16, first: 0, last: 4, asRow: 8 },
  6: { bytes: 40, first: 0, last: 16, asRow: 32 },
} as const;

/** Offsets of the halves of an ip6 address in a network row: "high u64, low u64". */
export const ADDRESS6 = { high: 0, low: 8 } as const;

/**
 * "AS row: AS number u32, organisation string id, domain string id, connection type u8 ..., 1 zero
 * byte, datacenter country code u16, AS name, ISP, organisation domain, holding and holding domain
 * string ids, datacenter address string id."
 */
export const AS_ROW = {
  bytes: 40,
  asn: 0,
  organization: 4,
  domain: 8,
  connectionType: 12,
  datacenterCountry: 14,
  asName: 16,
  isp: 20,
  orgDomain: 24,
  holding: 28,
  holdingDomain: 32,
  datacenterAddress: 36,
} as const;

/** The string id fields of an AS row. */
export const AS_STRING_FIELDS = (
  ['organization', 'domain', 'asName', 'isp', 'orgDomain', 'holding', 'holdingDomain', 'datacenterAddress'] as const
).map((field) => AS_ROW[field]);

const denseLowHalves: SectionLayout = { [IP_SECTION.keysLow]: { elementBytes: U64_BYTES } };

/** The sections every range table, full or compact, starts with; `lowHalves`: where ip6 keeps its keys' low halves. */
export const rangeHeadLayout = (family: Family, lowHalves: SectionLayout = denseLowHalves): SectionLayout => ({
  ...metaAndCountriesLayout,
  [IP_SECTION.index]: { elementBytes: U32_BYTES },
  ...(family === 4
    ? { [IP_SECTION.keys]: { elementBytes: U32_BYTES } }
    : { [IP_SECTION.keysHigh]: { elementBytes: U64_BYTES }, ...lowHalves }),
});

/** The sections of ip4 and ip6, in directory order, with their element sizes. */
export const ipSectionLayout = (family: Family): SectionLayout => ({
  ...rangeHeadLayout(family),
  [IP_SECTION.rangeLocation]: { elementBytes: U32_BYTES },
  [IP_SECTION.rangeNetwork]: { elementBytes: U32_BYTES },
  [IP_SECTION.locationRows]: { elementBytes: LOCATION_ROW.bytes },
  [IP_SECTION.networkRows]: { elementBytes: NETWORK_ROW[family].bytes },
  [IP_SECTION.asRows]: { elementBytes: AS_ROW.bytes },
  ...stringPoolLayout,
});
