/**
 * AS records (`GET /v1/asn/{asn}`) from the engine's AS answers (src/engine/asnIndex.ts). Pure, like
 * the IP record: the caller appends `meta` and applies `fields`.
 *
 * - name, organization: the AS name as registered and the registered organisation, as the IP
 *   record's network.asn_name and network.organization give them (src/tables/sources/networkIdentity.ts).
 * - domain, connection_type: the AS row's, as the IP record's network.domain and connection_type.
 * - country, country_code: where most of the AS's addresses are located by the location table
 *   (IPv4 first; IPv6 for an AS without located IPv4); null when none is located.
 * - ipv4, ipv6: its prefixes (the ranges of the ASN data announced by it) and the addresses they
 *   hold: a number for IPv4, a decimal string for IPv6 (up to 2^128: beyond JSON's exact integers).
 * - prefixes (full level): one page of them, IPv4 then IPv6 in address order, each with its first
 *   and last address and the CIDR blocks that make it up (a range of the source need not be one).
 */
import type { AsnAnswer, AsnPrefix } from '../engine/asnIndex.js';
import type { ConnectionType } from '../tables/format/ipTable.js';
import type { FieldLevel } from './ipRecord.js';

/** The page of prefixes when the request names none, and the largest a request may ask for. */
export const PREFIX_PAGE = { defaultLimit: 100, maxLimit: 1000 } as const;

export interface AsnIpv4Totals {
  prefixes: number;
  addresses: number;
}

export interface AsnIpv6Totals {
  prefixes: number;
  /** decimal digits: IPv6 totals exceed JSON's exact integers */
  addresses: string;
}

export interface AsnRecordBasic {
  success: true;
  asn: number;
  found: true;
  name: string | null;
  organization: string | null;
  domain: string | null;
  country: string | null;
  country_code: string | null;
  connection_type: ConnectionType | null;
  ipv4: AsnIpv4Totals;
  ipv6: AsnIpv6Totals;
}

export interface AsnPrefixPage {
  /** the AS's prefixes, both families */
  total: number;
  offset: number;
  limit: number;
  results: AsnPrefix[];
}

export interface AsnRecordFull extends AsnRecordBasic {
  prefixes: AsnPrefixPage;
}

export interface NotFoundAsnRecord {
  success: true;
  asn: number;
  found: false;
  message: string;
}

export type AsnRecord = AsnRecordBasic | AsnRecordFull | NotFoundAsnRecord;

const ASN_NOT_FOUND_MESSAGE = 'No data for this AS number: the ASN data lists no prefix announced by it.';

/** The record of the level; `page`: the prefixes of the full level, fetched only for it. */
export function asnRecord(
  answer: AsnAnswer,
  level: FieldLevel,
  page: () => Pick<AsnPrefixPage, 'offset' | 'limit' | 'results'>,
): AsnRecord {
  const { asn, network } = answer;
  if (!answer.found || network === null) return { success: true, asn, found: false, message: ASN_NOT_FOUND_MESSAGE };
  const basic: AsnRecordBasic = {
    success: true,
    asn,
    found: true,
    name: network.asn_name,
    organization: network.organization,
    domain: network.domain,
    country: answer.country?.name ?? null,
    country_code: answer.country_code,
    connection_type: network.connection_type,
    ipv4: { prefixes: answer.ipv4.prefixes, addresses: Number(answer.ipv4.addresses) },
    ipv6: { prefixes: answer.ipv6.prefixes, addresses: answer.ipv6.addresses.toString() },
  };
  if (level === 'basic') return basic;
  return { ...basic, prefixes: { total: answer.ipv4.prefixes + answer.ipv6.prefixes, ...page() } };
}
