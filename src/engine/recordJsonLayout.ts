/**
 * The record writer's layout in WASM memory: what src/engine/recordJson.ts places in the JSON area
 * and assembly/ipRecordJson.ts and assembly/macRecordJson.ts read there. The assembly names the same
 * offsets for itself (it cannot import these); test/tables/layout.test.ts holds the two equal.
 *
 * All words are little-endian. A fragment is a JSON text the host rendered, named by 8 bytes
 * (FRAGMENT); a list of fragments has them one after another, the i-th at FRAGMENT.bytes × i.
 * A description is the u32 words the host writes once per loaded table set and hands to
 * ipJsonConfigure or macJsonConfigure: each word an address in WASM memory, or a count.
 */

/** A fragment: the address of its UTF-8 JSON text u32, its byte length u16, its characters u16 (0 ASCII, 1 some beyond ASCII, 3 some beyond Latin-1). */
export const FRAGMENT = { bytes: 8, address: 0, length: 4, characters: 6 } as const;

/** What the IP writer needs of one family (ipJsonConfigure): the byte offset of each u32 word. */
export const IP_DESCRIPTION = {
  /** RLOC: the location row of each range */
  rangeLocations: 0,
  /** RNET: the network row of each range */
  rangeNetworks: 4,
  /** LROW */
  locationRows: 8,
  /** NROW */
  networkRows: 12,
  /** AROW */
  asRows: 16,
  /** the string pool's offsets */
  stringOffsets: 20,
  /** the string pool's bytes */
  stringBytes: 24,
  /** ip4: KEYS; ip6: KEYH */
  keysHigh: 28,
  /** ip6: KEYL; ip4: 0 */
  keysLow: 32,
  /** the number of ranges */
  rangeCount: 36,
  /** a small map (assembly/smallMap.ts): packed country code → its COUNTRY_FRAGMENTS, or OBJECT_PATH_VALUE */
  countries: 40,
  countryMask: 44,
  /** COUNTRY_FRAGMENTS where the location has no country */
  noCountry: 48,
  /** a small map: time zone string id → its ZONE_SLOT, or OBJECT_PATH_VALUE; absent: NEED_ZONE */
  zones: 52,
  zoneMask: 56,
  /** the template of each level: its parts, part i the JSON up to the i-th of ipHoles() */
  templateBasic: 60,
  templateFull: 64,
  /** a fragment per connection type, by its code in the tables (0: unknown) */
  connectionTypes: 68,
  /** the security block without feed or threat facts, a fragment per IS_HOSTING state */
  quietSecurity: 72,
  /** network.usage, a fragment per connection type */
  usages: 76,
  /** ADDRESS_PARTS */
  address: 80,
} as const;

/** A country's fragments (IP_DESCRIPTION countries and noCountry): location.continent, continent_code, country, is_eu, and country_info. */
export const COUNTRY_FRAGMENTS = { continent: 0, continentCode: 8, country: 16, isEu: 24, countryInfo: 32 } as const;

/** The full level's location around a datacenter address, after is_eu: the JSON before its value, and after it. */
export const ADDRESS_PARTS = { before: 0, after: 8 } as const;

/** is_hosting of a record: the index of its quiet security block, and what jsonHosting() answers. */
export const IS_HOSTING = { false: 0, true: 1, null: 2 } as const;

/**
 * A time zone's slot: the full level's timezone JSON for one UTC minute, `head` up to the seconds
 * of current_time and `tail` after them, or all head when it does not tick (`constant` 1). Minute
 * f64 (ms / 60000), constant u32, head and tail lengths u32, their characters u32 (as a fragment's),
 * then the text.
 */
export const ZONE_SLOT = { bytes: 256, minute: 0, constant: 8, headLength: 12, tailLength: 16, characters: 20, text: 24 } as const;

/** The map value (countries, zones) that sends the record to the object path. */
export const OBJECT_PATH_VALUE = 1;
/** ip4Json / ip6Json: the record's zone has no slot for this minute (jsonPendingZone()); the host refreshes it and asks again. */
export const NEED_ZONE = -2;
/** Added to the field level (0 basic, 1 full) asked of ip4Json / ip6Json: the record stays UTF-8 whatever its characters (assembly/jsonWriter.ts). */
export const UTF8_RECORD = 2;

const LOCATION_HOLES = [
  'continent',
  'continent_code',
  'country',
  'country_code',
  'region',
  'city',
  'district',
  'postal_code',
  'latitude',
  'longitude',
  'accuracy_radius_km',
  'is_eu',
].map((key) => `location.${key}`);
const NETWORK_HOLES = ['asn', 'isp', 'organization', 'domain', 'connection_type'].map((key) => `network.${key}`);

/**
 * The values the IP writer puts into a template, in its order, by their path in the record: a
 * template's part i (the fragment at FRAGMENT.bytes × i) is the JSON up to the i-th value, and
 * one more part ends the record. The two levels agree up to the basic level's end.
 */
export const ipHoles = (level: 'basic' | 'full', family: 4 | 6): string[] =>
  level === 'basic'
    ? ['ip', ...LOCATION_HOLES, 'timezone.id', ...NETWORK_HOLES]
    : [
        'ip',
        ...LOCATION_HOLES,
        'timezone',
        ...NETWORK_HOLES,
        'network.asn_name',
        'network.org_domain',
        'network.holding',
        'network.holding_domain',
        'network.usage',
        'network.range.start',
        'network.range.end',
        family === 4 ? 'network.range.size' : 'network.range.prefix',
        'country_info',
        'security',
      ];

/** What the MAC writer needs of the MAC table (macJsonConfigure): the byte offset of each u32 word. */
export const MAC_DESCRIPTION = {
  /** BROW */
  blockRows: 0,
  /** CROW */
  companyRows: 4,
  stringOffsets: 8,
  stringBytes: 12,
  /** a small map: packed country code → the fragment of its name */
  countries: 16,
  countryMask: 20,
  /** the fragment of no country's name */
  noCountry: 24,
  /** the template of each level, found or not: its parts, part i the JSON up to the i-th of macHoles() */
  templateFoundBasic: 28,
  templateFoundFull: 32,
  templateMissingBasic: 36,
  templateMissingFull: 40,
  /** a fragment per block type, by its code in the table */
  blockTypes: 44,
  /** VM_PREFIX rows */
  vmPrefixes: 48,
  vmPrefixCount: 52,
  /** the special range object's parts, part i the JSON up to the i-th of MAC_SPECIAL_HOLES */
  specialParts: 56,
} as const;

/** A virtualisation prefix: the prefix left-aligned in 48 bits u64, its hex digits u32, 4 zero bytes, the fragment of its platform's name. */
export const VM_PREFIX = { bytes: 24, value: 0, digits: 8, platform: 16 } as const;

const MAC_INPUT_HOLES = ['mac', 'oui', 'normalized', 'is_multicast', 'is_local', 'is_randomized', 'special'];
const VENDOR_HOLES = ['company', 'country_code'].map((key) => `vendor.${key}`);
const VENDOR_FULL_HOLES = ['short_name', 'website', 'country', 'address', 'total_ouis', 'is_private'].map((key) => `vendor.${key}`);
const BLOCK_HOLES = ['type', 'start', 'end', 'size'].map((key) => `block.${key}`);
const DEVICE_HOLES = ['device.is_virtual_machine', 'device.vm_platform'];

/**
 * The values the MAC writer puts into a template, in its order, by their path in the record (parts
 * as for ipHoles): the input's in all four templates, then where a block is found its vendor's
 * (the full level: the whole vendor and the block), then at the full level the device's. A basic
 * template is the start of the full one of the same found or not.
 */
export const macHoles = (level: 'basic' | 'full', found: boolean): string[] =>
  level === 'basic'
    ? [...MAC_INPUT_HOLES, ...(found ? VENDOR_HOLES : [])]
    : [...MAC_INPUT_HOLES, ...(found ? [...VENDOR_HOLES, ...VENDOR_FULL_HOLES, ...BLOCK_HOLES] : []), ...DEVICE_HOLES];

/** The values of the special range object (MAC_DESCRIPTION specialParts), in the writer's order, by their key in it. */
export const MAC_SPECIAL_HOLES: readonly string[] = ['name', 'protocol', 'assigned_by', 'reference', 'start', 'end'];

/** The bytes of a description: a u32 word at each of its offsets. */
export const descriptionBytes = (description: Readonly<Record<string, number>>): number => 4 * Object.keys(description).length;
