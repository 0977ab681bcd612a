/**
 * The engine's answers: plain objects with every field present (null where unknown). The HTTP
 * layer shapes them into SPEC records; the CLI prints them as they are.
 */
import type { ConnectionType, LocationRow } from '../tables/format/ipTable.js';
import type { BlockType } from '../tables/format/macTable.js';
import type { CountryFacts } from '../tables/format/tableMeta.js';
import type { IpVersion } from '../address/ipAddress.js';
import type { ReservedRange } from '../address/reservedRange.js';

type LocationAnswer = LocationRow;

export interface NetworkAnswer {
  asn: number | null;
  organization: string | null;
  domain: string | null;
  connection_type: ConnectionType | null;
  /** the AS name as registered */
  asn_name: string | null;
  /** the provider as people call it */
  isp: string | null;
  org_domain: string | null;
  holding: string | null;
  holding_domain: string | null;
  /** the street address of the one datacenter a hosting network is at (PeeringDB), and its country */
  datacenter_address: string | null;
  datacenter_country: string | null;
}

/** IPv4: start, end and size; IPv6: the CIDR block within the network that holds the address. */
export interface IpBlock {
  start: string;
  end: string;
  size: number | null;
  prefix: number | null;
}

export interface IpAnswer {
  /** the looked-up address in canonical text: dotted IPv4 (also for IPv4-mapped input), compressed IPv6 */
  ip: string;
  version: IpVersion;
  /** found: a table knows the address; reserved: special-purpose space; not_found: public, no data */
  status: 'found' | 'reserved' | 'not_found';
  reserved: ReservedRange | null;
  location: LocationAnswer | null;
  country: CountryFacts | null;
  network: NetworkAnswer | null;
  block: IpBlock | null;
  /** index of the matched range in the table (-1 for reserved addresses) */
  range: number;
}

export interface MacVendor {
  /** the registered company; null for a private registration */
  company: string | null;
  address: string | null;
  country_code: string | null;
  country: string | null;
  short_name: string | null;
  website: string | null;
  /** blocks of the company across the spellings of its name; null for a private registration */
  total_ouis: number | null;
  /** the registry lists the block without naming its assignee */
  is_private: boolean;
}

/**
 * The special range that holds an address (for a prefix: every address of it): a group, broadcast
 * or special-purpose unicast range a registry or standard assigns (data/curated/mac-group-addresses.csv).
 */
export interface MacSpecial {
  name: string;
  /** the protocols that use it, where the source names them */
  protocol: string | null;
  /** who gives it its meaning: IANA, IEEE, IETF or the vendor */
  assigned_by: string;
  reference: string;
  /** first and last address of the range, 12 upper-case hex digits as in `block` */
  start: string;
  end: string;
}

export interface MacAnswer {
  mac: string;
  oui: string;
  normalized: string | null;
  is_multicast: boolean;
  is_local: boolean;
  is_randomized: boolean;
  /** the most specific special range, null for an ordinary address */
  special: MacSpecial | null;
  found: boolean;
  /** type as SPEC 2.5 names it (IAB blocks are 36-bit, shown as MA-S); registry keeps IAB apart */
  block: { type: Exclude<BlockType, 'IAB'>; registry: BlockType; start: string; end: string; size: number } | null;
  vendor: MacVendor | null;
  vm_platform: string | null;
}
