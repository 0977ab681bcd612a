import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { writeAsOrg2Info } from '../../../bench/fixtures/asOrg2Info.js';
import {
  AS_ORG_MAX_LINE_LENGTH,
  newestAsOrgFile,
  readAsOrg2Info,
  type AsOrganization,
  type AsOrganizations,
} from '../../../src/tables/sources/asOrganizations.js';
import { linesOf, linesOfFile, SourceFormatError } from '../../../src/tables/sources/textLines.js';

const FOLDER = 'test/fixtures/publishers/publicdata.caida.org/datasets/as-organizations';
const FILE = `${FOLDER}/20261001.as-org2info.jsonl.gz`;

const ORGANIZATION =
  '{"changed":"20171130","country":"US","name":"1-800 Contacts, Inc.","organizationId":"1800CO-2-ARIN","source":"ARIN","type":"Organization"}';
const ASN =
  '{"asn":"1","changed":"20240618","name":"LVLT-1","opaqueId":"e5e3b9c13678dfc483fb1f819d70883c_ARIN","organizationId":"1800CO-2-ARIN","source":"ARIN","type":"ASN"}';

function read(text: string, file = '20261001.as-org2info.jsonl.gz'): Promise<AsOrganizations> {
  return readAsOrg2Info(linesOf(Readable.from([Buffer.from(text)]), file), file);
}

async function refusal(promise: Promise<unknown>): Promise<SourceFormatError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SourceFormatError);
  return error as SourceFormatError;
}

describe('readAsOrg2Info on the publisher fixture', () => {
  it('joins every AS to its organisation', async () => {
    const data = await readAsOrg2Info(linesOfFile(FILE, { maxLineLength: AS_ORG_MAX_LINE_LENGTH }), FILE);
    expect(data.date).toBe('2026-10-01');
    expect(data.organizations).toBe(14);
    expect(data.byAsn.size).toBe(13);
    const telecomEgypt: AsOrganization = {
      asn: 8452,
      asName: 'TE-AS',
      organizationId: 'ORG-TE1-AFRINIC',
      organization: 'Telecom Egypt',
      country: 'EG',
      source: 'AFRINIC',
    };
    expect(data.byAsn.get(8452)).toEqual(telecomEgypt);
    expect(data.byAsn.get(13335)).toMatchObject({
      asName: 'CLOUDFLARENET',
      organization: 'Cloudflare, Inc.',
      country: 'US',
      source: 'ARIN',
    });
    expect(data.byAsn.get(15169)).toMatchObject({ asName: 'GOOGLE', organization: 'Google LLC' });
    expect(data.byAsn.get(719)).toMatchObject({ asName: 'ELISA-AS', organization: 'Elisa Oyj', country: 'FI', source: 'RIPE' });
    expect(data.byAsn.get(49902)).toMatchObject({ organization: 'SOCIETE REUNIONNAISE DU RADIOTELEPHONE SCS', country: 'RE' });
    expect(data.byAsn.get(14061)).toMatchObject({ asName: 'DIGITALOCEAN-ASN', organization: 'DigitalOcean, LLC' });
    expect(data.byAsn.get(400644)).toMatchObject({ asName: 'BGPKIT-LLC', organization: 'BGPKIT LLC', organizationId: 'BL-1057-ARIN' });
    // A JPNIC row has no `changed` and no `opaqueId`; an empty AS name reads as null.
    expect(data.byAsn.get(10000)).toMatchObject({
      organizationId: '@aut-10000-JPNIC',
      organization: 'Nagasaki Cable Media Inc.',
      source: 'JPNIC',
    });
    expect(data.byAsn.get(24436)?.asName).toBeNull();
    // Two ASes of one organisation.
    expect(data.byAsn.get(7575)?.organizationId).toBe(data.byAsn.get(24436)?.organizationId);
  });
});

describe('newestAsOrgFile', () => {
  const index = fs.readFileSync(`${FOLDER}/index.html`, 'utf8');

  it('finds the newest dated JSON Lines file the directory index links to', () => {
    expect(newestAsOrgFile(index, 'index.html')).toBe('20261001.as-org2info.jsonl.gz');
  });

  it('reads the href, not the link text Apache cuts at 23 characters, and skips latest.* and the .txt.gz files', () => {
    const page =
      '<a href="20250101.as-org2info.txt.gz">20250101.as-org2info..&gt;</a>\n<a href="latest.as-org2info.jsonl.gz">latest.as-org2info.j..&gt;</a>\n<a href="20241001.as-org2info.jsonl.gz">20241001.as-org2info..&gt;</a>';
    expect(newestAsOrgFile(page, 'index.html')).toBe('20241001.as-org2info.jsonl.gz');
  });

  it('skips a link with an impossible date', () => {
    const page = '<a href="20241301.as-org2info.jsonl.gz">x</a><a href="20240901.as-org2info.jsonl.gz">y</a>';
    expect(newestAsOrgFile(page, 'index.html')).toBe('20240901.as-org2info.jsonl.gz');
  });

  it('throws when the page links to no file', () => {
    expect(() => newestAsOrgFile('<html><body>Service Unavailable</body></html>', 'index.html')).toThrow(SourceFormatError);
    expect(() => newestAsOrgFile('<html><body>Service Unavailable</body></html>', 'index.html')).toThrow(/links to no YYYYMMDD/);
  });

  it('refuses a page far larger than an index', () => {
    expect(() => newestAsOrgFile('x'.repeat(5 * 1024 * 1024), 'index.html')).toThrow(/not the index/);
  });
});

describe('readAsOrg2Info bad-data corpus: each refused with its line', () => {
  const cases: [string, string, RegExp][] = [
    ['bad JSON', '{"type":"ASN",', /not JSON/],
    ['a JSON array', '["ASN"]', /not a JSON object/],
    ['a JSON string', '"ASN"', /not a JSON object/],
    ['an unknown type', '{"organizationId":"X-ARIN","name":"X","country":"US","source":"ARIN","type":"Person"}', /unknown type "Person"/],
    ['no type', '{"organizationId":"X-ARIN","name":"X","country":"US","source":"ARIN"}', /unknown type undefined/],
    ['a blank line', '', /blank line/],
    ['an AS number as a JSON number', ASN.replace('"asn":"1"', '"asn":1'), /"asn" is not a string/],
    ['AS0', ASN.replace('"asn":"1"', '"asn":"0"'), /bad AS number "0"/],
    ['an AS number past 32 bits', ASN.replace('"asn":"1"', '"asn":"4294967296"'), /bad AS number/],
    ['an AS number written AS1', ASN.replace('"asn":"1"', '"asn":"AS1"'), /bad AS number/],
    ['an AS listed twice', ASN, /AS1 listed twice/],
    ['an organisation defined twice', ORGANIZATION, /defined twice/],
    [
      'no organizationId',
      ASN.replace('"asn":"1"', '"asn":"2"').replace('"organizationId":"1800CO-2-ARIN",', ''),
      /"organizationId" is missing/,
    ],
    [
      'an empty organizationId',
      ASN.replace('"asn":"1"', '"asn":"2"').replace('"organizationId":"1800CO-2-ARIN"', '"organizationId":""'),
      /"organizationId" is empty/,
    ],
    ['a bad country', ORGANIZATION.replace('"country":"US"', '"country":"USA"').replace('1800CO-2-ARIN', 'OTHER-ARIN'), /bad "country"/],
    ['no country', ORGANIZATION.replace('"country":"US",', '').replace('1800CO-2-ARIN', 'OTHER-ARIN'), /"country" is missing/],
    [
      'a bad changed date',
      ASN.replace('"asn":"1"', '"asn":"2"').replace('"changed":"20240618"', '"changed":"2024-06-18"'),
      /bad "changed"/,
    ],
    ['a bad source', ASN.replace('"asn":"1"', '"asn":"2"').replace('"source":"ARIN"', '"source":"arin db"'), /bad "source"/],
    ['a name that is not a string', ASN.replace('"asn":"1"', '"asn":"2"').replace('"name":"LVLT-1"', '"name":7'), /"name" is not a string/],
  ];
  for (const [name, row, message] of cases) {
    it(name, async () => {
      const error = await refusal(read(`${ORGANIZATION}\n${ASN}\n${row}\n`));
      expect(error.line).toBe(3);
      expect(error.message).toMatch(message);
      expect(error.message).toMatch(/^20261001\.as-org2info\.jsonl\.gz:3: /);
    });
  }

  it('an ASN row naming an organisation no row defines, by the line of the ASN row', async () => {
    const error = await refusal(
      read(`${ORGANIZATION}\n${ASN}\n${ASN.replace('"asn":"1"', '"asn":"2"').replace('1800CO-2-ARIN', 'NOWHERE-ARIN')}\n`),
    );
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/AS2 names organization NOWHERE-ARIN, which no Organization row defines/);
  });

  it('a file with no ASN rows', async () => {
    expect((await refusal(read(`${ORGANIZATION}\n`))).message).toMatch(/no Organization or no ASN rows/);
  });

  it('an over-long line', async () => {
    const long = ORGANIZATION.replace('1-800 Contacts, Inc.', 'x'.repeat(AS_ORG_MAX_LINE_LENGTH)).replace('1800CO-2-ARIN', 'LONG-ARIN');
    const error = await refusal(read(`${ORGANIZATION}\n${ASN}\n${long}\n`));
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/line longer than/);
  });

  it('a file name without its date', async () => {
    const error = await refusal(read(`${ORGANIZATION}\n${ASN}\n`, 'as-org2info.jsonl.gz'));
    expect(error.message).toMatch(/file name is not YYYYMMDD/);
    await refusal(read(`${ORGANIZATION}\n${ASN}\n`, '20261301.as-org2info.jsonl.gz'));
  });

  it('a truncated gzip file', async () => {
    const whole = fs.readFileSync(FILE);
    const error = await refusal(readAsOrg2Info(linesOf(Readable.from([whole.subarray(0, whole.length - 100)]), FILE), FILE));
    expect(error.message).toMatch(/unreadable: /);
  });

  it('keeps keys it does not know (CAIDA may add some) out of the answer without refusing the row', async () => {
    const data = await read(`${ORGANIZATION}\n${ASN.replace('"type":"ASN"', '"type":"ASN","rank":7')}\n`);
    expect(data.byAsn.get(1)).toEqual({
      asn: 1,
      asName: 'LVLT-1',
      organizationId: '1800CO-2-ARIN',
      organization: '1-800 Contacts, Inc.',
      country: 'US',
      source: 'ARIN',
    });
  });
});

describe('the full-size AS organisations generator', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'as-org2info-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes a file the reader reads back, and an index that links to it, at a small size', async () => {
    const written = await writeAsOrg2Info(dir, { seed: 3, organizations: 2000, asns: 2600 });
    expect(written.file).toBe(path.join(dir, 'publicdata.caida.org/datasets/as-organizations/20261001.as-org2info.jsonl.gz'));
    const data = await readAsOrg2Info(linesOfFile(written.file, { maxLineLength: AS_ORG_MAX_LINE_LENGTH }), written.file);
    expect(data.date).toBe('2026-10-01');
    expect(data.organizations).toBe(2000);
    expect(data.byAsn.size).toBe(2600);
    expect(newestAsOrgFile(fs.readFileSync(written.index, 'utf8'), written.index)).toBe('20261001.as-org2info.jsonl.gz');
    const sources = new Set([...data.byAsn.values()].map((o) => o.source));
    expect([...sources].sort()).toEqual(['AFRINIC', 'APNIC', 'ARIN', 'JPNIC', 'KRNIC', 'LACNIC', 'RIPE']);
  });

  it('is deterministic from its seed', async () => {
    const a = await writeAsOrg2Info(path.join(dir, 'a'), { seed: 5, organizations: 300, asns: 400 });
    const b = await writeAsOrg2Info(path.join(dir, 'b'), { seed: 5, organizations: 300, asns: 400 });
    expect(fs.readFileSync(a.file).equals(fs.readFileSync(b.file))).toBe(true);
  });
});
