/**
 * The company-name rule (src/tables/build/companyNames.ts): legal forms, display names, and which
 * spellings are one company, on small cases and on the real registries in both directions: the
 * spellings of one company join, companies that only share a name do not.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { companiesOf, displayName, nameParts, type Spelling } from '../../src/tables/build/companyNames.js';
import { registrySpellings } from './registrySpellings.js';

describe('legal forms', () => {
  it('reads the spellings of one form alike', () => {
    const same = [
      ['Nintendo Co.,Ltd', 'Nintendo Co., Ltd.', 'NINTENDO CO LTD', 'Nintendo Limited', 'Nintendo Co.Ltd', 'Nintendo Coltd'],
      ['HUAWEI TECHNOLOGIES CO.,LTD', 'Huawei Technologies Co., Ltd.'],
      ['Cisco Systems, Inc', 'Cisco Systems Inc', 'CISCO SYSTEMS, INCORPORATED'],
      ['Microsoft Corporation', 'Microsoft Corp.', 'MICROSOFT CORP.'],
      ['Siemens AG', 'SIEMENS AG', 'Siemens AG,'],
      ['Realme Chongqing Mobile Telecommunications Corp.,Ltd.', 'Realme Chongqing MobileTelecommunications Corp Ltd'],
      ["MICRO-STAR INT'L CO.,LTD", 'Micro-Star INTL CO., LTD.'],
      ['NetComm Wireless Pty Ltd', 'NetComm Wireless Limited'],
      ['GN Netcom A/S', 'GN Netcom AS'],
      ['Arçelik A.Ş.', 'ARCELIK AS'],
    ];
    for (const spellings of same) {
      const parts = spellings.map((s) => nameParts(s));
      for (const p of parts)
        expect({ base: p.base, forms: p.forms }, spellings.join(' / ')).toEqual({ base: parts[0].base, forms: parts[0].forms });
    }
  });

  it('sets the form apart from the name', () => {
    expect(nameParts('Robert Bosch GmbH & Co. KG')).toMatchObject({ base: 'robertbosch', forms: 'gmbh+kg' });
    expect(nameParts('Potter Electric Signal Company')).toMatchObject({ base: 'potterelectricsignal', forms: '' });
    expect(nameParts('Potter Electric Signal Co. LLC')).toMatchObject({ base: 'potterelectricsignal', forms: 'llc' });
    expect(nameParts('Samsung Electronics Co., Ltd. ARTIK')).toMatchObject({ base: 'samsungelectronicscoltdartik', forms: '' });
  });

  it('keeps initials that look like a second form, and at least one word', () => {
    expect(nameParts('I.S.A. S.r.l.')).toMatchObject({ base: 'isa', forms: 'srl' });
    expect(nameParts('S.& A.S. Ltd.')).toMatchObject({ base: 'sandas', forms: 'ltd' });
    expect(nameParts('Limited')).toMatchObject({ base: 'limited', forms: '' });
    expect(nameParts('AG')).toMatchObject({ base: 'ag', forms: '' });
  });

  it('compares names in other scripts as written', () => {
    expect(nameParts('浙江路川科技有限公司').base).toBe('浙江路川科技有限公司');
    expect(nameParts('ООО РОНЕКС').base).toBe('оооронекс');
    expect(nameParts('合肥乾盾智能科技有限公司').base).not.toBe(nameParts('浙江路川科技有限公司').base);
  });
});

describe('display names', () => {
  it('drop the legal form and the punctuation before it', () => {
    expect(displayName('Apple, Inc.')).toBe('Apple');
    expect(displayName('Hon Hai Precision Ind. Co.,Ltd.')).toBe('Hon Hai Precision Ind');
    expect(displayName('Yichip Microelectronics (Hangzhou) Co.,Ltd')).toBe('Yichip Microelectronics (Hangzhou)');
    expect(displayName('Robert Bosch GmbH & Co. KG')).toBe('Robert Bosch');
    expect(displayName('  Texas   Instruments  ')).toBe('Texas Instruments');
  });

  it('put all-capitals names in title case, acronyms kept', () => {
    expect(displayName('HUAWEI TECHNOLOGIES CO.,LTD')).toBe('Huawei Technologies');
    expect(displayName('TP-LINK TECHNOLOGIES CO.,LTD.')).toBe('TP-Link Technologies');
    expect(displayName('LG ELECTRONICS INC')).toBe('LG Electronics');
    expect(displayName("MICRO-STAR INT'L CO.,LTD")).toBe("Micro-Star INT'l");
    expect(displayName('HTRC AUTOMATION, INC.')).toBe('HTRC Automation');
    expect(displayName('BANK OF AMERICA')).toBe('Bank of America');
    expect(displayName('ZTE CORPORATION')).toBe('ZTE');
  });

  it('leave mixed-case names as registered and keep a name that is only a form', () => {
    expect(displayName('Raspberry Pi Trading Ltd')).toBe('Raspberry Pi Trading');
    expect(displayName('iRobot Corporation')).toBe('iRobot');
    expect(displayName('Limited')).toBe('Limited');
    expect(displayName('7+ Kft')).toBe('7+');
  });
});

describe('one company, several spellings', () => {
  const s = (name: string, ...countries: string[]): Spelling => ({ name, countries: new Set(countries) });

  it('joins equal names with one form that share a country', () => {
    expect(companiesOf([s('Acme Co., Ltd.', 'JP'), s('ACME CO.,LTD', 'JP', 'US'), s('Acme Limited', 'US')])).toEqual([0, 0, 0]);
  });

  it('keeps apart other forms and names registered in other countries', () => {
    expect(companiesOf([s('Acme Co., Ltd.', 'JP'), s('Acme S.r.l.', 'JP')])).toEqual([0, 1]);
    expect(companiesOf([s('Acme Limited', 'IN'), s('Acme Ltd.', 'BG')])).toEqual([0, 1]);
    expect(companiesOf([s('Acme Limited'), s('Acme Ltd.')])).toEqual([0, 1]);
  });

  it('joins a name without a form to the one company of that name in its country, else to none', () => {
    expect(companiesOf([s('Acme Inc.', 'US'), s('ACME', 'US'), s('Acme GmbH', 'DE')])).toEqual([0, 0, 2]);
    expect(companiesOf([s('Acme Inc.', 'US'), s('Acme', 'US', 'DE'), s('Acme GmbH', 'DE')])).toEqual([0, 1, 2]);
    expect(companiesOf([s('Acme', 'US'), s('ACME', 'US'), s('A.C.M.E.', 'FR')])).toEqual([0, 0, 2]);
  });
});

describe('companies of the real registries', () => {
  let company: (name: string) => number;

  beforeAll(() => {
    company = registrySpellings().companyOf;
  });

  it('joins the spellings of one company', () => {
    const same = [
      ['HUAWEI TECHNOLOGIES CO.,LTD', 'Huawei Technologies Co., Ltd.'],
      [
        'Samsung Electronics Co.,Ltd',
        'Samsung Electronics Co., Ltd.',
        'Samsung Electronics.,LTD',
        'SAMSUNG Electronics. Co. LTD',
        'Samsung Electronics',
        'SAMSUNG ELECTRONICS',
      ],
      ['Nintendo Co.,Ltd', 'Nintendo Co., Ltd.'],
      ['Microsoft Corporation', 'Microsoft Corp.', 'MICROSOFT CORP.', 'Microsoft'],
      ['Beijing Xiaomi Electronics Co.,Ltd', 'Beijing Xiaomi Electronics Co., Ltd.'],
      ['Hon Hai Precision Ind. Co.,Ltd.', 'Hon Hai Precision IND.CO.,LTD'],
      ['DEUTA-WERKE GmbH', 'DEUTA Werke GmbH'],
      ['TP-Link Systems Inc', 'TP-Link Systems Inc.'],
      ['AMPAK Technology, Inc.', 'AMPAK Technology,Inc.', 'AMPAK Technology Inc.'],
      ['Commscope', 'Commscope, Inc'],
    ];
    for (const names of same) for (const name of names) expect(company(name), `${name} is ${names[0]}`).toBe(company(names[0]));
  });

  it('keeps apart companies that only share a name, or part of it', () => {
    const apart = [
      [
        'Xiaomi Communications Co Ltd',
        'Beijing Xiaomi Mobile Software Co., Ltd',
        'Beijing Xiaomi Electronics Co.,Ltd',
        'XIAOMI Electronics,CO.,LTD',
        'Xiaomi EV Technology Co., Ltd.',
      ],
      ['HUAWEI TECHNOLOGIES CO.,LTD', 'Huawei Device Co., Ltd.', 'Huawei Symantec Technologies Co.,Ltd.'],
      ['Cisco Systems, Inc', 'Cisco Meraki', 'Cisco SPVTG', 'Cisco-Linksys, LLC'],
      [
        'Samsung Electronics Co.,Ltd',
        'SAMSUNG ELECTRO MECHANICS CO., LTD.',
        'SAMSUNG ELECTRO-MECHANICS(THAILAND)',
        'Samsung Electronics Co., Ltd. ARTIK',
      ],
      ['MG Co., Ltd.', 'MG s.r.l.'],
      ['Teracom Limited', 'Teracom Ltd.'],
      ['ISAC, Inc.', 'ISAC SRL'],
      ['Mitel Corporation', 'MI.TEL s.r.l.'],
      ['Crypto S.A.', 'CRYPTO AG'],
      ['MATRIX CORPORATION', 'MATRIX INC.'],
      ['CAEN', 'C.A.E.N.'],
      ['WAVE Corporation', 'WAVE'],
      ['Broadcom', 'Broadcom Limited', 'Broadcom Inc.', 'Broadcom Corporation'],
      ['ABB AG', 'ABB Oy', 'ABB Ltd', 'ABB S.p.A.'],
    ];
    for (const names of apart) expect(new Set(names.map(company)).size, names.join(' / ')).toBe(names.length);
  });
});
