import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SourceFormatError } from '../../../src/tables/sources/textLines.js';
import {
  connectionTypeOfNetworkTypes,
  peeringDbNetworks,
  readPeeringDbNetworks,
  readPeeringDbOrganisations,
  registrableDomain,
} from '../../../src/tables/sources/peeringDb.js';

const FIXTURES = path.join(__dirname, '../../fixtures/publishers/public.peeringdb.com');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'peeringdb-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** The fixture's net file with `change` applied to its document, written to a scratch file. */
function changedNetworks(change: (document: { data: Record<string, unknown>[] }) => unknown): string {
  const document = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'net-0.json'), 'utf8'));
  const replaced = change(document);
  const file = path.join(scratch, `net-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, typeof replaced === 'string' ? replaced : JSON.stringify(replaced ?? document));
  return file;
}

describe('PeeringDB bootstrap files', () => {
  it('reads the networks with status ok, their types, and the newest change as the date', () => {
    const read = readPeeringDbNetworks(path.join(FIXTURES, 'net-0.json'), 'net-0.json');
    expect(read.rows.map((r) => r.asn)).toEqual([2818, 31459, 33762, 37680, 38803]);
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
    const file = changedNetworks(change as (d: { data: Record<string, unknown>[] }) => unknown);
    expect(() => readPeeringDbNetworks(file, 'net-0.json')).toThrow(SourceFormatError);
  });

  it('refuses nesting deep enough to exhaust the parser as a format error', () => {
    const file = changedNetworks(() => `{"meta":{},"data":[${'['.repeat(200_000)}${']'.repeat(200_000)}]}`);
    expect(() => readPeeringDbNetworks(file, 'net-0.json')).toThrow(SourceFormatError);
  });
});
