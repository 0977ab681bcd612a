import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SourceFormatError } from '../../../src/tables/sources/textLines.js';
import {
  connectionTypeOfNetworkTypes,
  facilityAddress,
  peeringDbDatacenters,
  peeringDbNetworks,
  readPeeringDbFacilities,
  readPeeringDbNetworks,
  readPeeringDbOrganisations,
  readPeeringDbPresences,
  registrableDomain,
} from '../../../src/tables/sources/peeringDb.js';

const FIXTURES = path.join(__dirname, '../../fixtures/publishers/public.peeringdb.com');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'peeringdb-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

type Change = (document: { data: Record<string, unknown>[] }) => unknown;

/** A fixture file (the net file unless named) with `change` applied to its document, written to a scratch file. */
function changedNetworks(change: Change, name = 'net-0.json'): string {
  const document = JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));
  const replaced = change(document);
  const file = path.join(scratch, `${Math.random().toString(36).slice(2)}-${name}`);
  fs.writeFileSync(file, typeof replaced === 'string' ? replaced : JSON.stringify(replaced ?? document));
  return file;
}

describe('PeeringDB bootstrap files', () => {
  it('reads the networks with status ok, their types, and the newest change as the date', () => {
    const read = readPeeringDbNetworks(path.join(FIXTURES, 'net-0.json'), 'net-0.json');
    expect(read.rows.map((r) => r.asn)).toEqual([2818, 31459, 33762, 37680, 38803, 15169, 13335]);
    expect(read.rows.find((r) => r.asn === 33762)!.types).toEqual(['Cable/DSL/ISP', 'NSP']);
    // an empty list and "Not Disclosed" say nothing
    expect(read.rows.find((r) => r.asn === 31459)!.types).toEqual([]);
    expect(read.date).toBe('2026-10-30');
  });

  it('reads the organisations and joins them to their networks', () => {
    const networks = readPeeringDbNetworks(path.join(FIXTURES, 'net-0.json'), 'net-0.json').rows;
    const organisations = readPeeringDbOrganisations(path.join(FIXTURES, 'org-0.json'), 'org-0.json').rows;
    expect(organisations.map((o) => o.id)).toEqual([50, 7001, 7002]);
    const byAsn = peeringDbNetworks(networks, organisations);
    expect(byAsn.get(33762)).toEqual({
      asn: 33762,
      name: 'rain',
      domain: 'rain.co.za',
      connectionType: 'residential',
      organization: 'rain (Pty) Ltd',
      organizationDomain: 'rain.co.za',
      organizationNetworks: 2,
    });
    expect(byAsn.get(2818)).toMatchObject({ domain: 'bbc.co.uk', organizationDomain: 'bbc.com', connectionType: 'hosting' });
    // a network whose organisation is missing keeps its own facts
    const orphan = peeringDbNetworks(networks, []).get(2818)!;
    expect(orphan).toMatchObject({ name: 'BBC', organization: null, organizationNetworks: 0 });
  });

  it('types a network by the first of its types in the documented order', () => {
    expect(connectionTypeOfNetworkTypes(['NSP', 'Cable/DSL/ISP'])).toBe('residential');
    expect(connectionTypeOfNetworkTypes(['NSP', 'Content'])).toBe('hosting');
    expect(connectionTypeOfNetworkTypes(['NSP'])).toBe('backbone');
    expect(connectionTypeOfNetworkTypes(['Educational/Research', 'NSP'])).toBe('education');
    expect(connectionTypeOfNetworkTypes(['Non-Profit'])).toBeNull();
    expect(connectionTypeOfNetworkTypes(['Route Server'])).toBeNull();
    expect(connectionTypeOfNetworkTypes([])).toBeNull();
  });

  it('takes the registrable domain of a website by the Public Suffix List', () => {
    expect(registrableDomain('http://www.bbc.co.uk')).toBe('bbc.co.uk');
    expect(registrableDomain('https://network.example.com.au/peering')).toBe('example.com.au');
    expect(registrableDomain('rain.co.za')).toBe('rain.co.za');
    expect(registrableDomain('')).toBeNull();
    expect(registrableDomain('http://192.0.2.1/')).toBeNull();
  });

  it.each([
    ['not JSON', () => '{"meta":{},"data":[{"id":1,'],
    ['no data array', () => ({ meta: {} })],
    ['a row that is not an object', (d: { data: unknown[] }) => ({ data: [...d.data, 42] })],
    ['an id that is not an integer', (d: { data: Record<string, unknown>[] }) => ((d.data[0].id = '17'), d)],
    ['an AS number out of range', (d: { data: Record<string, unknown>[] }) => ((d.data[0].asn = 2 ** 32), d)],
    ['two networks with one AS number', (d: { data: Record<string, unknown>[] }) => ((d.data[1].asn = 2818), d)],
    ['an id listed twice', (d: { data: Record<string, unknown>[] }) => ((d.data[1].id = 17), d)],
    ['an unknown network type', (d: { data: Record<string, unknown>[] }) => ((d.data[0].info_types = ['Hosting']), d)],
    ['a name that is not a string', (d: { data: Record<string, unknown>[] }) => ((d.data[0].name = null), d)],
    ['a name past the bound', (d: { data: Record<string, unknown>[] }) => ((d.data[0].name = 'x'.repeat(2000)), d)],
    ['a bad updated time', (d: { data: Record<string, unknown>[] }) => ((d.data[0].updated = 'yesterday'), d)],
  ])('refuses %s', (_what, change) => {
    const file = changedNetworks(change as Change);
    expect(() => readPeeringDbNetworks(file, 'net-0.json')).toThrow(SourceFormatError);
  });

  it('reads the facilities with status ok and their street addresses', () => {
    const read = readPeeringDbFacilities(path.join(FIXTURES, 'fac-0.json'), 'fac-0.json');
    expect(read.rows.map((r) => r.id)).toEqual([1, 1660, 1730, 3078, 9990]);
    expect(read.date).toBe('2025-09-26');
    const ashburn = read.rows[0];
    expect(ashburn).toEqual({
      id: 1,
      address1: '21715 Filigree Ct',
      address2: 'Building F',
      city: 'Ashburn',
      state: 'VA',
      zipcode: '20147-6205',
      country: 'US',
    });
    // the order PeeringDB shows: Address 1, Address 2, then "city, state, zipcode"; no country
    expect(facilityAddress(ashburn)).toBe('21715 Filigree Ct, Building F, Ashburn, VA, 20147-6205');
    expect(facilityAddress(read.rows.find((r) => r.id === 1730)!)).toBe('900 N Kingsbury St, Chicago, IL, 60606');
    // no street, no address
    expect(facilityAddress(read.rows.find((r) => r.id === 9990)!)).toBeNull();
  });

  it('places a network at its facility only where PeeringDB lists it at exactly one', () => {
    const networks = readPeeringDbNetworks(path.join(FIXTURES, 'net-0.json'), 'net-0.json').rows;
    const presences = readPeeringDbPresences(path.join(FIXTURES, 'netfac-0.json'), 'netfac-0.json');
    // the deleted presences are left out
    expect(presences.rows.map((r) => r.id)).toEqual([90001, 90003, 90004, 90005, 90006, 90007]);
    expect(presences.rows[0]).toEqual({ id: 90001, netId: 433, facId: 1 });
    const facilities = readPeeringDbFacilities(path.join(FIXTURES, 'fac-0.json'), 'fac-0.json').rows;
    const datacenters = peeringDbDatacenters(networks, presences.rows, facilities);
    expect(Object.fromEntries(datacenters)).toEqual({
      // Google: one presence left once its deleted one is out
      15169: { address: '21715 Filigree Ct, Building F, Ashburn, VA, 20147-6205', countryCode: 'US' },
      13335: { address: '900 N Kingsbury St, Chicago, IL, 60606', countryCode: 'US' },
      // listed here whatever its type: the builder gives it to hosting networks only
      38803: { address: '4 Eden Park Drive, Macquarie Park, Sydney, NSW, 2113', countryCode: 'AU' },
    });
    // BBC (two facilities), rain (a facility without a street), rain mobile (a deleted presence): none
    for (const asn of [2818, 33762, 37680]) expect(datacenters.has(asn)).toBe(false);
    // a facility missing from the facility file places nobody
    expect(peeringDbDatacenters(networks, presences.rows, []).size).toBe(0);
  });

  it.each([
    ['a country that is not two capitals', (d: { data: Record<string, unknown>[] }) => ((d.data[0].country = 'us'), d)],
    ['a country name', (d: { data: Record<string, unknown>[] }) => ((d.data[0].country = 'USA'), d)],
    ['a missing street', (d: { data: Record<string, unknown>[] }) => (delete d.data[0].address1, d)],
    ['a city that is not a string', (d: { data: Record<string, unknown>[] }) => ((d.data[0].city = null), d)],
    ['a zipcode past the bound', (d: { data: Record<string, unknown>[] }) => ((d.data[0].zipcode = '9'.repeat(2000)), d)],
    ['a facility listed twice', (d: { data: Record<string, unknown>[] }) => ((d.data[1].id = 1), d)],
  ])('refuses a facility file with %s', (_what, change) => {
    const file = changedNetworks(change as Change, 'fac-0.json');
    expect(() => readPeeringDbFacilities(file, 'fac-0.json')).toThrow(SourceFormatError);
  });

  it.each([
    ['no network', (d: { data: Record<string, unknown>[] }) => (delete d.data[0].net_id, d)],
    ['a facility id of 0', (d: { data: Record<string, unknown>[] }) => ((d.data[0].fac_id = 0), d)],
    ['a facility id as text', (d: { data: Record<string, unknown>[] }) => ((d.data[0].fac_id = '1'), d)],
    ['a local AS number out of range', (d: { data: Record<string, unknown>[] }) => ((d.data[0].local_asn = 2 ** 32), d)],
    ['a local AS number as text', (d: { data: Record<string, unknown>[] }) => ((d.data[0].local_asn = 'AS15169'), d)],
    ['a bad status', (d: { data: Record<string, unknown>[] }) => ((d.data[0].status = 7), d)],
  ])('refuses a presence file with %s', (_what, change) => {
    const file = changedNetworks(change as Change, 'netfac-0.json');
    expect(() => readPeeringDbPresences(file, 'netfac-0.json')).toThrow(SourceFormatError);
  });

  it('refuses nesting deep enough to exhaust the parser as a format error', () => {
    const file = changedNetworks(() => `{"meta":{},"data":[${'['.repeat(200_000)}${']'.repeat(200_000)}]}`);
    expect(() => readPeeringDbNetworks(file, 'net-0.json')).toThrow(SourceFormatError);
  });
});
