/**
 * What the v1 lookups take of a request beside the address: the refusal of a text that is not one,
 * the table an address needs, and the `fields` filter; the single lookups and the batches alike.
 */
import type { Exchange } from '../request/exchange.js';
import { ApiError } from '../../errors.js';
import type { ParsedIp } from '../../address/ipAddress.js';
import { reservedIPv4, reservedIPv6 } from '../../address/reservedRange.js';
import { parseFields, type FieldsFilter } from '../../records/fieldsFilter.js';
import type { ServiceDeps } from '../serviceDeps.js';

export function fieldsOf(ctx: Exchange): FieldsFilter | null {
  if (ctx.querystring === '') return null;
  const value = ctx.query.fields;
  return parseFields(Array.isArray(value) ? value.join(',') : value);
}

/**
 * The refusal of a text that is not an address. A range (CIDR, `192.0.2.0/24`) is told apart: it
 * reads as an address to whoever sends it, and only single addresses are looked up.
 */
export function invalidIp(text: string): ApiError {
  return new ApiError('invalid_ip', invalidIpMessage(text));
}

export function invalidIpMessage(text: string): string {
  return text.includes('/') ? RANGE_MESSAGE : INVALID_IP_MESSAGE;
}

const INVALID_IP_MESSAGE = new ApiError('invalid_ip').message;
const RANGE_MESSAGE = 'Not a single IPv4 or IPv6 address: ranges (CIDR, such as 192.0.2.0/24) are not looked up; give one address.';

/** An IP table the address needs but the engine lacks (special-purpose space needs none). */
export function missingTable(deps: ServiceDeps, ip: ParsedIp | null): ApiError | undefined {
  if (ip === null) return undefined;
  const engine = deps.engine.engine;
  if (ip.v4 >= 0) return engine.ip4 || reservedIPv4(ip.v4) ? undefined : new ApiError('unavailable', 'The IPv4 table is not loaded.');
  return engine.ip6 || reservedIPv6(ip.words) ? undefined : new ApiError('unavailable', 'The IPv6 table is not loaded.');
}
