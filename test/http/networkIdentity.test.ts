/**
 * The network identity of the IP record over HTTP (docs/tables.md "Network identity"): the
 * registered AS name, the registered organisation and the provider as people call it are each
 * their own source's fact, and a VPN operator's range reports hosting (SPEC 2.2).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from './harness.js';

let h: Harness;
let pro: string;

beforeAll(async () => {
  h = await Harness.start();
  pro = await h.newKey('pro');
});

afterAll(async () => {
  await h?.stop();
});

const network = async (ip: string, key = pro) => {
  const r = await h.call(`/v1/ip/${ip}`, { key });
  expect(r.status).toBe(200);
  return r.body.network;
};

describe('network identity of the IP record', () => {
  it('AS8452: the registry handle is the AS name, the organisation is the holder, the ISP its brand', async () => {
    const n = await network('41.32.0.1');
    expect(n).toMatchObject({ asn: 8452, asn_name: 'TE-AS', organization: 'Telecom Egypt', isp: 'WE', domain: 'te.eg', org_domain: null });
    expect(n.organization).not.toBe(n.asn_name);
    expect(n.usage).toBe('consumer access');
  });

  it('a curated operator: isp, organization and asn_name are not all one string, the holding is its group', async () => {
    const n = await network('1.5.0.1');
    expect(n).toMatchObject({
      asn: 4725,
      organization: 'SoftBank Corp.',
      isp: 'SoftBank',
      asn_name: null,
      holding: 'SoftBank Group Corp.',
      holding_domain: 'group.softbank',
    });
    expect(new Set([n.isp, n.organization, n.asn_name]).size).toBeGreaterThan(1);
  });

  it('a VPN operator reports hosting, with its network and organisation domains apart', async () => {
    const r = await h.call('/v1/ip/62.169.136.1', { key: pro });
    expect(r.body.network).toMatchObject({
      asn: 209103,
      organization: 'Proton AG',
      isp: 'Proton VPN',
      connection_type: 'hosting',
      domain: 'protonvpn.com',
      org_domain: 'proton.me',
      usage: 'hosting/cloud',
    });
    expect(r.body.security.is_hosting).toBe(true);
  });

  it('the free level shows the ISP and the organisation apart too', async () => {
    const free = await h.newKey('free');
    const n = await network('41.32.0.1', free);
    expect(n).toEqual({ asn: 8452, isp: 'WE', organization: 'Telecom Egypt', domain: 'te.eg', connection_type: 'residential' });
  });
});
