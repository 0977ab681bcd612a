/**
 * The identity of a network (SPEC 2.2 network.asn_name, organization, isp, domain, org_domain,
 * holding, holding_domain) from what a network source says of an AS (AsnRange) and our curated row
 * of the AS (data/curated/asn-connection-types.csv). Each field is one source's fact, never a copy
 * of another field made to fill it:
 *
 * - asn_name: the AS name as registered: the source's AS name where it gives one (CAIDA's `name` of
 *   the ASN); else, for a source that gives only one name (the ip-location-db CSV), that name when
 *   it is a registry handle (`TE-AS`), which is what such a name is; else null.
 * - organization: the curated organisation where the curated row names one (the file names one
 *   only where the ASN data gives a registry handle or another holder: AS719, which the CSV gives
 *   to the RIPE NCC); else the source's organisation (CAIDA's organisation name, the CSV's name).
 * - isp: the provider as people call it: the curated `isp` (a brand: "WE" for Telecom Egypt, "Jio"
 *   for Reliance Jio Infocomm) where the curated row names one, else the organisation.
 * - domain: the curated domain of the network (its website); org_domain: the curated domain of the
 *   organisation, only where the row names one apart from the network's (Proton VPN's network at
 *   protonvpn.com, Proton AG at proton.me); null otherwise.
 * - holding, holding_domain: the curated parent organisation and its domain where the row names
 *   one (SoftBank Corp. in SoftBank Group Corp.); else the organisation under which the source
 *   groups two or more ASNs (CAIDA's organisation id, AsnRange.holding), without a domain; else null.
 */
import type { AsnRange } from './asnCsv.js';
import { isRegistryHandle } from './connectionTypeRules.js';
import type { CuratedAsn } from './curated.js';

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
): NetworkIdentity {
  const named = range.organization;
  const asName = range.asName !== undefined ? range.asName : named !== null && isRegistryHandle(named) ? named : null;
  const organization = curated?.organization ?? named;
  const curatedHolding = curated?.holding ?? null;
  return {
    asName,
    organization,
    isp: curated?.isp ?? organization,
    domain: curated?.domain ?? null,
    orgDomain: curated?.org_domain ?? null,
    holding: curatedHolding ?? range.holding ?? null,
    holdingDomain: curatedHolding === null ? null : (curated?.holding_domain ?? null),
  };
}
