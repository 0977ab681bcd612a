import { describe, expect, it } from 'vitest';
import type { CuratedAsn } from '../../../src/tables/sources/curated.js';
import { networkIdentity } from '../../../src/tables/sources/networkIdentity.js';

const none: CuratedAsn = {
  connection_type: null,
  domain: null,
  organization: null,
  isp: null,
  org_domain: null,
  holding: null,
  holding_domain: null,
};

describe('networkIdentity', () => {
  it('the CSV source: a handle is the AS name, never the organisation copied into it', () => {
    expect(networkIdentity({ organization: 'TE-AS' }, undefined)).toEqual({
      asName: 'TE-AS',
      organization: 'TE-AS',
      isp: 'TE-AS',
      domain: null,
      orgDomain: null,
      holding: null,
      holdingDomain: null,
    });
    expect(networkIdentity({ organization: 'SoftBank Corp.' }, undefined).asName).toBeNull();
    expect(networkIdentity({ organization: 'AS64500' }, undefined).asName).toBe('AS64500');
    expect(networkIdentity({ organization: null }, undefined)).toMatchObject({ asName: null, organization: null, isp: null });
  });

  it('a curated row: its organisation in place of the handle, its ISP, domains and holding', () => {
    const curated = { ...none, domain: 'te.eg', organization: 'Telecom Egypt', isp: 'WE' };
    expect(networkIdentity({ organization: 'TE-AS' }, curated)).toEqual({
      asName: 'TE-AS',
      organization: 'Telecom Egypt',
      isp: 'WE',
      domain: 'te.eg',
      orgDomain: null,
      holding: null,
      holdingDomain: null,
    });
    const softbank = { ...none, domain: 'softbank.jp', isp: 'SoftBank', holding: 'SoftBank Group Corp.', holding_domain: 'group.softbank' };
    expect(networkIdentity({ organization: 'SoftBank Corp.' }, softbank)).toMatchObject({
      asName: null,
      organization: 'SoftBank Corp.',
      isp: 'SoftBank',
      holding: 'SoftBank Group Corp.',
      holdingDomain: 'group.softbank',
    });
    const proton = { ...none, domain: 'protonvpn.com', isp: 'Proton VPN', org_domain: 'proton.me' };
    expect(networkIdentity({ organization: 'Proton AG' }, proton)).toMatchObject({ domain: 'protonvpn.com', orgDomain: 'proton.me' });
  });

  it('the ISP is the organisation where no curated row names one', () => {
    expect(networkIdentity({ organization: 'Quad9' }, { ...none, domain: 'quad9.net' }).isp).toBe('Quad9');
  });

  it('a routed source (CAIDA): its AS name, and its grouping as the holding unless a curated row names the parent', () => {
    const range = { organization: 'Reliance Jio Infocomm Limited', asName: 'RELIANCEJIO-IN', holding: 'Reliance Jio Infocomm Limited' };
    expect(networkIdentity(range, undefined)).toMatchObject({
      asName: 'RELIANCEJIO-IN',
      organization: 'Reliance Jio Infocomm Limited',
      holding: 'Reliance Jio Infocomm Limited',
      holdingDomain: null,
    });
    const jio = { ...none, isp: 'Jio', holding: 'Reliance Industries Limited', holding_domain: 'ril.com' };
    expect(networkIdentity(range, jio)).toMatchObject({ isp: 'Jio', holding: 'Reliance Industries Limited', holdingDomain: 'ril.com' });
    // a routed source's AS name is kept even when the organisation is not a handle, and a missing one stays missing
    expect(networkIdentity({ organization: 'TE-AS', asName: null }, undefined).asName).toBeNull();
  });

  it("PeeringDB where turned on: the operators' name as ISP, the website domains, and an organisation of two or more networks as holding", () => {
    const rain = {
      asn: 33762,
      name: 'rain',
      domain: 'rain.co.za',
      connectionType: 'residential' as const,
      organization: 'rain (Pty) Ltd',
      organizationDomain: 'rain.co.za',
      organizationNetworks: 2,
    };
    const range = { organization: 'RAIN GROUP HOLDINGS (PTY) LTD', asName: 'RAIN-AS', holding: null };
    expect(networkIdentity(range, undefined, rain)).toEqual({
      asName: 'RAIN-AS',
      organization: 'RAIN GROUP HOLDINGS (PTY) LTD',
      isp: 'rain',
      domain: 'rain.co.za',
      // the organisation's domain is the network's: not repeated
      orgDomain: null,
      holding: 'rain (Pty) Ltd',
      holdingDomain: 'rain.co.za',
    });
    // one network: no holding; a registry handle is no name people use; another organisation domain is kept
    const single = { ...rain, name: 'AS-GTELECOM', organizationNetworks: 1, organizationDomain: 'gtelecom.net' };
    expect(networkIdentity(range, undefined, single)).toMatchObject({
      isp: 'RAIN GROUP HOLDINGS (PTY) LTD',
      orgDomain: 'gtelecom.net',
      holding: null,
      holdingDomain: null,
    });
    // a curated row wins over PeeringDB, field by field
    const curated = { ...none, isp: 'rain mobile', domain: 'rain.mobi', holding: 'rain Group', holding_domain: 'rain.group' };
    expect(networkIdentity(range, curated, rain)).toMatchObject({
      isp: 'rain mobile',
      domain: 'rain.mobi',
      orgDomain: 'rain.co.za',
      holding: 'rain Group',
      holdingDomain: 'rain.group',
    });
  });
});
