/** OpenAPI schemas of the MAC record (SPEC 2.5): vendor, block and device at each field level. */
import { blockTypes } from '../tables/format/macTable.js';
import type { MacBlockType, MacRecordBasic, MacRecordFull, MacSpecialRecord, MacVendorBasic, MacVendorFull } from './macRecord.js';
import { withMeta } from './metaRecord.openapi.js';
import {
  COUNTRY_CODE,
  bool,
  constant,
  int,
  orNull,
  record,
  ref,
  str,
  strOrNull,
  stringEnum,
  type JsonSchema,
  type Properties,
} from './jsonSchema.js';

/** The block types a record shows (IAB blocks show as MA-S). */
export const macBlockTypes = blockTypes.filter((t): t is MacBlockType => t !== 'IAB');
export const OUI = { pattern: '^[0-9A-F]{2}(:[0-9A-F]{2}){2}$' };
const MAC48 = { pattern: '^[0-9A-F]{2}(:[0-9A-F]{2}){5}$' };
const HEX12 = { pattern: '^[0-9A-F]{12}$' };

export function macRecordSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const macEnvelope = {
    success: constant(true),
    mac: str('echoed input'),
    found: bool('a vendor is registered for the prefix; when false, vendor (and block) are null'),
    oui: str('first three bytes, AA:BB:CC', OUI),
    normalized: strOrNull('full address AA:BB:CC:DD:EE:FF; null when only a prefix was given', MAC48),
    is_multicast: bool('group address (I/G bit set)'),
    is_local: bool('locally administered (U/L bit set)'),
    is_randomized: bool('locally administered unicast (MAC randomisation pattern)'),
    special: orNull(ref('MacSpecial')),
  };
  schemas.MacSpecial = record<MacSpecialRecord>(
    'What a group, broadcast or special-purpose unicast address is: the most specific range a registry or standard assigns ' +
      'that holds the address (for a prefix, every address of it), from our curated table of IANA, IEEE, IETF and vendor ' +
      'assignments. null for any other address. found and vendor stay about the registrant of the first three bytes.',
    {
      name: str('what the address is, in the words of the registry or standard (IPv4 multicast, Bridge Group Address, Broadcast)'),
      protocol: strOrNull('the protocols that use it, where the source names them (CDP, VTP, DTP, PAgP, UDLD)'),
      assigned_by: str('who gives it its meaning: IANA, IEEE, IETF or the vendor (Cisco, Microsoft)'),
      reference: str('the standard or document that assigns it (RFC 1112, IEEE Std 802.1Q)'),
      start: str('first address of the range, 12 hex digits', HEX12),
      end: str('last address of the range, 12 hex digits', HEX12),
    },
  );
  const vendorBasic: Properties<MacVendorBasic> = {
    company: strOrNull('registered company; null for a private registration (the IEEE lists the block as "Private", without its assignee)'),
    country_code: strOrNull('country code of the company', COUNTRY_CODE),
  };
  schemas.MacVendorBasic = record<MacVendorBasic>('Vendor (basic level).', vendorBasic);
  schemas.MacVendorFull = record<MacVendorFull>('Vendor (full level).', {
    ...vendorBasic,
    short_name: strOrNull(
      'short name: our curated one, else the registered name without its legal form (all-capitals names in title case); null ' +
        'for a private registration',
    ),
    website: strOrNull('website domain'),
    country: strOrNull('country name'),
    address: strOrNull('registered address'),
    industry: strOrNull('where known'),
    founded: { type: ['string', 'integer', 'null'], description: 'where known' },
    headquarters: strOrNull('where known'),
    total_ouis: {
      type: ['integer', 'null'],
      minimum: 1,
      description: 'number of prefixes registered to the company, across the spellings of its name; null for a private registration',
    },
    is_private: bool('the IEEE lists the block without naming its assignee (company, short_name, website and total_ouis are null)'),
  });
  schemas.MacBlock = record<NonNullable<MacRecordFull['block']>>('The matched registry block (IAB blocks show as MA-S).', {
    type: stringEnum(macBlockTypes, 'registry'),
    start: str('12 hex digits', HEX12),
    end: str('12 hex digits', HEX12),
    size: int('number of addresses', { minimum: 1 }),
  });
  schemas.MacDevice = record<MacRecordFull['device']>('Device facts (full level).', {
    type: strOrNull('device type where known'),
    interface: strOrNull('interface type where known'),
    is_virtual_machine: bool('prefix belongs to a virtualisation platform'),
    vm_platform: strOrNull('which platform'),
  });
  const notFoundMeansNull = (keys: string[]): JsonSchema => ({
    if: { properties: { found: { const: false } }, required: ['found'] },
    then: { properties: Object.fromEntries(keys.map((k) => [k, { type: 'null' }])) },
  });
  schemas.MacRecordBasic = {
    ...record<MacRecordBasic>('SPEC 2.5 MAC record, basic field level (free plan).', {
      ...macEnvelope,
      vendor: orNull(ref('MacVendorBasic')),
    }),
    ...notFoundMeansNull(['vendor']),
  };
  schemas.MacRecordFull = {
    ...record<MacRecordFull>('SPEC 2.5 MAC record, full field level (paid plans).', {
      ...macEnvelope,
      vendor: orNull(ref('MacVendorFull')),
      block: orNull(ref('MacBlock')),
      device: ref('MacDevice'),
      registry_updated: strOrNull('date of the registry record, YYYY/MM/DD', { pattern: '^\\d{4}/\\d{2}/\\d{2}$' }),
    }),
    ...notFoundMeansNull(['vendor', 'block']),
  };
  schemas.MacRecordBasicResponse = withMeta(schemas.MacRecordBasic, 'MAC record (basic) with meta.');
  schemas.MacRecordFullResponse = withMeta(schemas.MacRecordFull, 'MAC record (full) with meta.');
  schemas.MacLookupResponse = {
    description: "GET /v1/mac/{mac}: the MAC record of the plan's field level.",
    oneOf: [ref('MacRecordBasicResponse'), ref('MacRecordFullResponse')],
  };
  return schemas;
}
