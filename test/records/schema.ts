/**
 * A tiny exact-shape checker for the record tests: every key of the schema must be present with
 * the given JSON type, and no other key may appear. Leaf types: 'string', 'number', 'integer',
 * 'boolean', 'true', 'false', 'string[]', unions with '|' ('string|null'). Objects nest; an
 * object schema wrapped in nullable() may also be null; oneOf() accepts any of its schemas.
 */
import { expect } from 'vitest';

export type Schema = string | { [key: string]: Schema } | Nullable | OneOf;

class Nullable {
  constructor(readonly schema: Schema) {}
}
class OneOf {
  constructor(readonly schemas: Schema[]) {}
}
const nullable = (schema: Schema) => new Nullable(schema);
const oneOf = (...schemas: Schema[]) => new OneOf(schemas);

function leafOk(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'true':
      return value === true;
    case 'false':
      return value === false;
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    default:
      throw new Error(`unknown schema type ${type}`);
  }
}

/** The problems of `value` against `schema`; empty when it fits exactly. */
export function shapeErrors(value: unknown, schema: Schema, path = '$'): string[] {
  if (typeof schema === 'string') {
    return schema.split('|').some((t) => leafOk(value, t)) ? [] : [`${path}: ${JSON.stringify(value)} is not ${schema}`];
  }
  if (schema instanceof Nullable) return value === null ? [] : shapeErrors(value, schema.schema, path);
  if (schema instanceof OneOf) {
    const all = schema.schemas.map((s) => shapeErrors(value, s, path));
    return all.some((e) => e.length === 0) ? [] : all.flat();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: ${JSON.stringify(value)} is not an object`];
  const errors: string[] = [];
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(schema)) {
    if (!(key in record)) errors.push(`${path}.${key}: missing`);
    else errors.push(...shapeErrors(record[key], schema[key], `${path}.${key}`));
  }
  for (const key of Object.keys(record)) if (!(key in schema)) errors.push(`${path}.${key}: not allowed at this level`);
  return errors;
}

const s = 'string';
const sn = 'string|null';
const nn = 'number|null';

const basicLocation = {
  continent: sn,
  continent_code: sn,
  country: sn,
  country_code: sn,
  region: sn,
  city: sn,
  district: sn,
  postal_code: sn,
  latitude: nn,
  longitude: nn,
  accuracy_radius_km: nn,
  is_eu: 'boolean|null',
};

const connectionType = sn;
const basicNetwork = { asn: 'integer|null', isp: sn, organization: sn, domain: sn, connection_type: connectionType };

export const ipBasicSchema: Schema = {
  success: 'true',
  ip: s,
  version: 'integer',
  location: basicLocation,
  timezone: { id: sn },
  network: basicNetwork,
};

export const ipFullSchema: Schema = {
  success: 'true',
  ip: s,
  version: 'integer',
  location: basicLocation,
  timezone: { id: sn, utc_offset: sn, is_dst: 'boolean|null', current_time: sn },
  network: {
    ...basicNetwork,
    asn_name: sn,
    org_domain: sn,
    holding: sn,
    holding_domain: sn,
    usage: sn,
    hostname: sn,
    range: nullable(oneOf({ start: s, end: s, size: 'integer' }, { start: s, end: s, prefix: 'integer' })),
    rpki: sn,
    speed_mbps: nullable({ download: 'number', upload: 'number' }),
  },
  country_info: nullable({ calling_code: sn, tld: sn, currency: { code: sn, symbol: sn }, languages: 'string[]' }),
  security: {
    is_vpn: nullable('boolean'),
    vpn_provider: sn,
    is_proxy: nullable('boolean'),
    is_tor: nullable('boolean'),
    listed_by: 'string[]|null',
    is_hosting: nullable('boolean'),
    is_threat: 'boolean',
    threat_type: sn,
    threat_confidence: 'number',
    threat_reports: 'integer',
    threat_last_seen: sn,
  },
  abuse: { email: sn },
};

export const reservedSchema: Schema = {
  success: 'true',
  ip: s,
  version: 'integer',
  reserved: 'true',
  reserved_type: s,
  description: s,
  security: { is_private: 'boolean', is_cgnat: 'boolean' },
};

export const notFoundSchema: Schema = { success: 'true', ip: s, version: 'integer', found: 'false', message: s };

const macCommon = {
  success: 'true',
  mac: s,
  found: 'boolean',
  oui: s,
  normalized: sn,
  is_multicast: 'boolean',
  is_local: 'boolean',
  is_randomized: 'boolean',
  special: nullable({ name: s, protocol: sn, assigned_by: s, reference: s, start: s, end: s }),
};

export const macBasicSchema: Schema = { ...macCommon, vendor: nullable({ company: sn, country_code: sn }) };

export const macFullSchema: Schema = {
  ...macCommon,
  vendor: nullable({
    company: sn,
    country_code: sn,
    short_name: sn,
    website: sn,
    country: sn,
    address: sn,
    industry: sn,
    founded: 'string|number|null',
    headquarters: sn,
    total_ouis: 'integer|null',
    is_private: 'boolean',
  }),
  block: nullable({ type: s, start: s, end: s, size: 'integer' }),
  device: { type: sn, interface: sn, is_virtual_machine: 'boolean', vm_platform: sn },
  registry_updated: sn,
};

/** Every dot path of a schema's object keys (leaves and objects), for "no paid key" checks. */
export function schemaPaths(schema: Schema, prefix = ''): string[] {
  if (typeof schema === 'string') return [];
  if (schema instanceof Nullable) return schemaPaths(schema.schema, prefix);
  if (schema instanceof OneOf) return [...new Set(schema.schemas.flatMap((x) => schemaPaths(x, prefix)))];
  return Object.entries(schema).flatMap(([k, v]) => [prefix + k, ...schemaPaths(v, `${prefix}${k}.`)]);
}

/** value has exactly the schema's shape and survives a JSON round trip unchanged. */
export function expectShape(value: unknown, schema: Schema): void {
  expect(shapeErrors(value, schema)).toEqual([]);
  expect(JSON.parse(JSON.stringify(value))).toEqual(value);
}
