import { readFileSync } from 'node:fs';
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { csvHeader, parseCsv, CsvError } from '../../src/tables/sources/csv.js';
import { loadCountryFacts } from '../../src/tables/sources/countries.js';
import { isRegistryHandle } from '../../src/tables/sources/connectionTypeRules.js';
import { CURATED_ASN_COLUMNS, loadCuratedAsns } from '../../src/tables/sources/curated.js';
import { installedAsnHolders } from './asnCoverage.js';
import { registrySpellings } from './registrySpellings.js';

const require = createRequire(import.meta.url);
const ouiData = require('oui-data') as Record<string, string>;

function curated(name: string): { header: string[]; rows: Record<string, string>[] } {
  const text = readFileSync(new URL(`../../data/curated/${name}`, import.meta.url), 'utf8');
  return { header: csvHeader(text), rows: parseCsv(text) };
}

const CONNECTION_TYPES = [
  'residential',
  'cable',
  'mobile',
  'hosting',
  'business',
  'backbone',
  'education',
  'research',
  'government',
  'military',
  'financial',
  'healthcare',
  'media',
  'satellite',
  'fixed_wireless',
  'ixp',
];
const VM_PLATFORMS = ['VMware', 'VirtualBox', 'Hyper-V', 'QEMU/KVM', 'Parallels', 'Xen', 'Docker'];
const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/;
const URL_SOURCE = /^https:\/\/[^\s]+$/;

function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const v of values) (seen.has(v) ? dup : seen).add(v);
  return [...dup];
}

describe('asn-connection-types.csv', () => {
  const { header, rows } = curated('asn-connection-types.csv');

  it('has the exact header and rows', () => {
    expect(header).toEqual([...CURATED_ASN_COLUMNS]);
    expect(rows.length).toBeGreaterThanOrEqual(1000);
  });

  it('lists only ASNs that the installed ASN data holds, except the route servers that announce nothing', () => {
    const holders = installedAsnHolders();
    const absent = rows.map((r) => Number(r.asn)).filter((asn) => !holders.has(asn));
    expect(absent.sort((a, b) => a - b)).toEqual([6695, 8714, 24115, 26162]);
  });

  it('names an organisation only where the ASN data gives nothing but a registry handle or another holder, and never a handle itself', () => {
    const holders = installedAsnHolders();
    const named = rows.filter((r) => r.organization !== '');
    expect(named.length).toBeGreaterThan(0);
    for (const r of named) {
      expect(r.organization, `AS${r.asn}`).toBe(r.organization.trim());
      expect(isRegistryHandle(r.organization), `AS${r.asn}`).toBe(false);
      // AS719 (Elisa) is given to the RIPE NCC by the installed ASN data: the one holder it names wrongly
      const misnamed = r.asn === '719' && holders.get(719)!.has('RIPE Network Coordination Centre');
      expect(
        misnamed || [...holders.get(Number(r.asn))!].every((holder) => holder === null || isRegistryHandle(holder)),
        `AS${r.asn}`,
      ).toBe(true);
    }
  });

  it('has valid, unique ASNs', () => {
    for (const r of rows) {
      expect(r.asn, JSON.stringify(r)).toMatch(/^[1-9]\d{0,9}$/);
      expect(Number(r.asn)).toBeLessThanOrEqual(4294967295);
    }
    expect(duplicates(rows.map((r) => r.asn))).toEqual([]);
  });

  it('uses only SPEC 2.2 connection types', () => {
    for (const r of rows) expect(CONNECTION_TYPES, `AS${r.asn}`).toContain(r.connection_type);
  });

  it('has a domain that is empty or a bare domain name, and a source on every row', () => {
    for (const r of rows) {
      if (r.domain !== '') expect(r.domain, `AS${r.asn}`).toMatch(DOMAIN);
      expect(r.source, `AS${r.asn}`).toMatch(URL_SOURCE);
    }
  });

  it('includes the well-known anchors with the expected type', () => {
    const byAsn = new Map(rows.map((r) => [r.asn, r.connection_type]));
    expect(byAsn.get('15169')).toBe('hosting');
    expect(byAsn.get('16509')).toBe('hosting');
    expect(byAsn.get('13335')).toBe('hosting');
    expect(byAsn.get('3356')).toBe('backbone');
    expect(byAsn.get('174')).toBe('backbone');
    expect(byAsn.get('7922')).toBe('cable');
    expect(byAsn.get('21928')).toBe('mobile');
    expect(byAsn.get('14593')).toBe('satellite');
    expect(byAsn.get('3')).toBe('education');
    expect(byAsn.get('6695')).toBe('ixp');
    expect(byAsn.get('701')).toBe('backbone');
    expect(byAsn.get('714')).toBe('business');
    expect(byAsn.get('9808')).toBe(byAsn.get('56046'));
  });
});

describe('vm-ouis.csv', () => {
  const { header, rows } = curated('vm-ouis.csv');
  /** The company the IEEE registry lists for each platform's registered prefixes. */
  const registeredTo: Record<string, string> = {
    VMware: 'VMware, Inc.',
    VirtualBox: 'PCS Systemtechnik GmbH',
    'Hyper-V': 'Microsoft Corporation',
    'QEMU/KVM': 'Qumranet Inc.',
    Parallels: 'Parallels, Inc.',
    Xen: 'Xensource, Inc.',
  };
  const isLocal = (prefix: string): boolean => (parseInt(prefix.slice(0, 2), 16) & 0x02) !== 0;

  it('has the exact header, valid prefixes and platforms, no duplicates', () => {
    expect(header).toEqual(['prefix', 'platform', 'source']);
    for (const r of rows) {
      expect(r.prefix).toMatch(/^(?:[0-9A-F]{4}|[0-9A-F]{6}|[0-9A-F]{7}|[0-9A-F]{9})$/);
      // 4-digit prefixes are only for locally administered conventions (Docker's 02:42)
      if (r.prefix.length === 4) expect(isLocal(r.prefix), r.prefix).toBe(true);
      // never a multicast (group) prefix
      expect(parseInt(r.prefix.slice(0, 2), 16) & 0x01, r.prefix).toBe(0);
      expect(VM_PLATFORMS).toContain(r.platform);
      expect(r.source, r.prefix).toMatch(URL_SOURCE);
    }
    expect(duplicates(rows.map((r) => r.prefix))).toEqual([]);
  });

  it('covers every platform of SPEC 2.5', () => {
    expect(new Set(rows.map((r) => r.platform))).toEqual(new Set(VM_PLATFORMS));
  });

  it('finds every IEEE-registered prefix in oui-data, registered to the expected company', () => {
    for (const r of rows.filter((row) => !isLocal(row.prefix))) {
      const value = ouiData[r.prefix];
      expect(value, `${r.prefix} is not in oui-data`).toBeDefined();
      expect(value.split('\n')[0], r.prefix).toBe(registeredTo[r.platform]);
    }
  });

  it('keeps locally administered prefixes out of the IEEE registry', () => {
    const local = rows.filter((row) => isLocal(row.prefix)).map((r) => r.prefix);
    expect(local.sort()).toEqual(['0242', '0A0027', '525400']);
    for (const p of local) expect(ouiData[p]).toBeUndefined();
  });
});

describe('vendors.csv', () => {
  const { header, rows } = curated('vendors.csv');

  it('has the exact header and unique companies', () => {
    expect(header).toEqual(['company_match', 'short_name', 'website', 'source']);
    expect(rows.length).toBeGreaterThanOrEqual(150);
    expect(duplicates(rows.map((r) => r.company_match))).toEqual([]);
  });

  const registry = registrySpellings();

  it('matches every company_match exactly to a registered spelling (oui-data or the IAB listing)', () => {
    const missing = rows.map((r) => r.company_match).filter((c) => !registry.spellings.has(c));
    expect(missing).toEqual([]);
  });

  it('names each company once (one row covers every spelling of the company)', () => {
    const byCompany = new Map<number, string>();
    const twice: string[] = [];
    for (const r of rows) {
      const company = registry.companyOf(r.company_match);
      if (byCompany.has(company)) twice.push(`${byCompany.get(company)} / ${r.company_match}`);
      else byCompany.set(company, r.company_match);
    }
    expect(twice).toEqual([]);
  });

  it('has a short name, a bare website domain or none, and a source on every row', () => {
    for (const r of rows) {
      expect(r.short_name.trim(), r.company_match).not.toBe('');
      expect(r.short_name, r.company_match).toBe(r.short_name.trim());
      if (r.website !== '') expect(r.website, r.company_match).toMatch(DOMAIN);
      expect(r.source, r.company_match).toMatch(URL_SOURCE);
    }
  });

  it('covers the companies with the most prefixes and the well-known brands', () => {
    const byCompany = new Map(rows.map((r) => [r.company_match, r]));
    expect(byCompany.get('Apple, Inc.')?.website).toBe('apple.com');
    expect(byCompany.get('Cisco Systems, Inc')?.short_name).toBe('Cisco');
    expect(byCompany.get('Raspberry Pi Trading Ltd')?.short_name).toBe('Raspberry Pi');
    const blocks = new Map<number, number>();
    for (const s of registry.spellings.values()) {
      const company = registry.companyOf(s.name);
      blocks.set(company, (blocks.get(company) ?? 0) + s.blocks);
    }
    const curatedCompanies = new Set(rows.map((r) => registry.companyOf(r.company_match)));
    const top = [...blocks.entries()]
      .filter(([c]) => c !== registry.companyOf('IEEE Registration Authority'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 50)
      .map(([c]) => c);
    expect(top.filter((c) => curatedCompanies.has(c)).length).toBeGreaterThanOrEqual(40);
  });
});

describe('eu-countries.csv', () => {
  const { header, rows } = curated('eu-countries.csv');

  it('lists the 27 member states and the 7 EU territories with codes of their own, with known codes and a source', () => {
    expect(header).toEqual(['country_code', 'name', 'source']);
    expect(rows).toHaveLength(27 + 7);
    expect(duplicates(rows.map((r) => r.country_code))).toEqual([]);
    const facts = loadCountryFacts();
    for (const r of rows) {
      expect(facts.has(r.country_code), r.country_code).toBe(true);
      expect(r.source).toMatch(URL_SOURCE);
    }
  });
});

describe('csv reader', () => {
  it('reads quoted fields, doubled quotes, CRLF and a BOM', () => {
    const text = '\ufeffa,b\r\n1,"x,""y""\nz"\r\n"",3\n';
    expect(parseCsv(text)).toEqual([
      { a: '1', b: 'x,"y"\nz' },
      { a: '', b: '3' },
    ]);
    expect(parseCsv('a,b\n1,2')).toEqual([{ a: '1', b: '2' }]);
  });

  it('refuses malformed input with the line number', () => {
    const bad = [
      'a,b\n1\n', // too few fields
      'a,b\n1,2\n\n3,4\n', // blank line
      'a,b\n1,"2\n', // unterminated quote
      'a,b\n1,2"x\n', // quote inside an unquoted field
      'a,b\n1,"2"x\n', // text after a closing quote
      'a,a\n1,2\n', // duplicate header
      'a,b\r1,2\n', // bare CR
      '', // no header
    ];
    for (const text of bad) expect(() => parseCsv(text), JSON.stringify(text)).toThrow(CsvError);
  });
});

describe('asn-connection-types.csv as the builder reads it', () => {
  const curated = loadCuratedAsns(new URL('../../data/curated/asn-connection-types.csv', import.meta.url).pathname);

  it('types the VPN operators hosting and the big operators the user reported untyped', () => {
    for (const asn of [209103, 209854, 19281]) expect(curated.get(asn)?.connection_type, `AS${asn}`).toBe('hosting');
    for (const asn of [4725, 25019, 55836, 55824, 8193, 28910, 719, 8452])
      expect(curated.get(asn)?.connection_type, `AS${asn}`).not.toBeNull();
  });

  it('names the provider, the organisation domain and the holding apart from the registered organisation', () => {
    expect(curated.get(8452)).toMatchObject({ organization: 'Telecom Egypt', isp: 'WE', domain: 'te.eg' });
    expect(curated.get(719)).toMatchObject({ organization: 'Elisa Oyj', isp: 'Elisa' });
    expect(curated.get(209103)).toMatchObject({ isp: 'Proton VPN', domain: 'protonvpn.com', org_domain: 'proton.me' });
    expect(curated.get(4725)).toMatchObject({ isp: 'SoftBank', holding: 'SoftBank Group Corp.', holding_domain: 'group.softbank' });
    expect(curated.get(55836)).toMatchObject({ isp: 'Jio', holding: 'Reliance Industries Limited', holding_domain: 'ril.com' });
  });

  it('never gives an identity column that copies another: an ISP equal to the organisation, an org domain equal to the domain', () => {
    for (const [asn, row] of curated) {
      expect(row.isp === null || row.isp !== row.organization, `AS${asn}`).toBe(true);
      expect(row.org_domain === null || row.org_domain !== row.domain, `AS${asn}`).toBe(true);
    }
  });
});

describe('loadCuratedAsns refuses a row it cannot trust, naming the AS', () => {
  const header = CURATED_ASN_COLUMNS.join(',');
  const load = (row: string) => {
    const file = `${fs.mkdtempSync(`${os.tmpdir()}/curated-`)}/asn.csv`;
    fs.writeFileSync(file, `${header}\n${row}\n`);
    return () => loadCuratedAsns(file);
  };
  it.each([
    [
      'an ISP without its source',
      '8452,residential,te.eg,,WE,,,,,https://rdap.org/autnum/8452',
      /AS8452 names an ISP.*without an identity_source/,
    ],
    [
      'an identity source for nothing',
      '8452,residential,te.eg,,,,,,https://te.eg,https://rdap.org/autnum/8452',
      /AS8452 has an identity_source for no identity column/,
    ],
    [
      'a holding domain without a holding',
      '4725,residential,,,,,,group.softbank,https://group.softbank,https://rdap.org/autnum/4725',
      /AS4725 has a holding domain without a holding/,
    ],
    [
      'an org domain that is no domain',
      '4725,residential,,,,Not A Domain,,,https://x.example,https://rdap.org/autnum/4725',
      /AS4725 has a org_domain that is not a domain name/,
    ],
    [
      'an ISP with spaces around it',
      '4725,residential,,, SoftBank,,,,https://x.example,https://rdap.org/autnum/4725',
      /AS4725 has a isp with leading or trailing spaces/,
    ],
  ])('%s', (_name, row, reason) => {
    expect(load(row)).toThrow(reason);
  });

  it('reads a good row', () => {
    expect(
      load(
        '4725,residential,softbank.jp,,SoftBank,,SoftBank Group Corp.,group.softbank,https://group.softbank,https://rdap.org/autnum/4725',
      )(),
    ).toEqual(
      new Map([
        [
          4725,
          {
            connection_type: 'residential',
            domain: 'softbank.jp',
            organization: null,
            isp: 'SoftBank',
            org_domain: null,
            holding: 'SoftBank Group Corp.',
            holding_domain: 'group.softbank',
          },
        ],
      ]),
    );
  });
});
