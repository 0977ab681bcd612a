/**
 * The identity of a network (SPEC 2.2 network.asn_name, organization, isp, domain, org_domain,
 * holding, holding_domain) from what a network source says of an AS (AsnRange), our curated row
 * of the AS (data/curated/asn-connection-types.csv) and, where the operator turned it on, what the
 * network's operators say of it in PeeringDB (peeringDb.ts). Each field is one source's fact, never
 * a copy of another field made to fill it:
 *
 * - asn_name: the AS name as registered: the source's AS name where it gives one (CAIDA's `name` of
 *   the ASN); else, for a source that gives only one name (the ip-location-db CSV), that name when
 *   it is a registry handle (`TE-AS`), which is what such a name is; else null.
 * - organization: the curated organisation where the curated row names one (the file names one
 *   only where the ASN data gives a registry handle or another holder: AS719, which the CSV gives
 *   to the RIPE NCC); else the source's organisation (CAIDA's organisation name, the CSV's name).
 * - isp: the provider as people call it: the curated `isp` (a brand: "WE" for Telecom Egypt, "Jio"
 *   for Reliance Jio Infocomm) where the curated row names one; else the name the operators give
 *   the network in PeeringDB, unless it is a registry handle; else the organisation.
 * - domain: the curated domain of the network (its website), else the registrable domain of the
 *   network's PeeringDB website; org_domain: the curated domain of the organisation, only where the
 *   row names one apart from the network's (Proton VPN's network at protonvpn.com, Proton AG at
 *   proton.me), else the registrable domain of the PeeringDB organisation's website where it differs
 *   from the network's; null otherwise.
 * - holding, holding_domain: the curated parent organisation and its domain where the row names
 *   one (SoftBank Corp. in SoftBank Group Corp.); else the PeeringDB organisation holding two or more
 *   networks, with its website's domain; else the organisation under which the source groups two or
 *   more ASNs (CAIDA's organisation id, AsnRange.holding), without a domain; else null.
 */
import type { AsnRange } from './asnCsv.js';
import { isRegistryHandle } from './connectionTypeRules.js';
import type { CuratedAsn } from './curated.js';
import type { PeeringDbNetwork } from './peeringDb.js';

export interface NetworkIdentity {
  asName: string | null;
  organization: string | null;
  isp: string | null;
  domain: string | null;
  orgDomain: string | null;
  holding: string | null;
  holdingDomain: string | null;
}

/** The identity of the AS of `range`, by the rules above. */
export function networkIdentity(
  range: Pick<AsnRange, 'organization' | 'asName' | 'holding'>,
  curated: CuratedAsn | undefined,
  peeringDb?: PeeringDbNetwork,
): NetworkIdentity {
  const named = range.organization;
  const asName = range.asName !== undefined ? range.asName : named !== null && isRegistryHandle(named) ? named : null;
  const organization = curated?.organization ?? named;
  const operatorsName = peeringDb && peeringDb.name !== '' && !isRegistryHandle(peeringDb.name) ? peeringDb.name : null;
  const domain = curated?.domain ?? peeringDb?.domain ?? null;
  const peeringDbOrgDomain = peeringDb?.organizationDomain ?? null;
  const peeringDbHolding = peeringDb && peeringDb.organizationNetworks >= 2 ? peeringDb.organization : null;
  const curatedHolding = curated?.holding ?? null;
  return {
    asName,
    organization,
    isp: curated?.isp ?? operatorsName ?? organization,
    domain,
    orgDomain: curated?.org_domain ?? (peeringDbOrgDomain !== domain ? peeringDbOrgDomain : null),
    holding: curatedHolding ?? peeringDbHolding ?? range.holding ?? null,
    holdingDomain: curatedHolding !== null ? (curated?.holding_domain ?? null) : peeringDbHolding !== null ? peeringDbOrgDomain : null,
  };
}
