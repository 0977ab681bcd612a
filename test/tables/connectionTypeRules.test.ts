import { describe, expect, it } from 'vitest';
import { connectionTypeRules, isRegistryHandle, ruleOfOrganization } from '../../src/tables/sources/connectionTypeRules.js';

/** Organisation names as the ASN data spells them, and the type the rules must give (null: none). */
const cases: Record<string, [name: string, expected: string | null][]> = {
  'stock exchange': [
    ['Deutsche Boerse AG', 'financial'],
    ['BOEAG Boersen AG', 'financial'],
    ['Zagreb Stock Exchange, Inc.', 'financial'],
  ],
  'internet exchange': [
    ['Associacao Cabo Verde Internet Exchange Point', 'ixp'],
    ['Burkina Faso Internet EXchange Point ( BFIX)', 'ixp'],
    ['China Networks Inter-Exchange', null],
    ['Army & Air Force Exchange Service', 'military'],
  ],
  'armed forces': [
    ['DoD Network Information Center', 'military'],
    ['UK Ministry of Defence', 'military'],
    ['Headquarters, USAISC', null],
    ['Bangladesh Army', 'military'],
    ['Navy Network Information Center (NNIC)', 'military'],
    ['The Salvation Army, a Georgia Corporation', null],
    ['Navyug Networks Info Private Limited', null],
  ],
  hospital: [
    ['Denver Health and Hospital Authority', 'healthcare'],
    ['Klinikum Fulda gAG', 'healthcare'],
    ['Universitaetsklinikum Bonn', 'healthcare'],
    ['UNIVERSAL HEALTH SERVICES', 'healthcare'],
    ['Sky Lakes Medical Center, Inc.', 'healthcare'],
    ['HOSPITALITY NETWORK, LLC', null],
  ],
  'university or school': [
    ['Universitaet Stuttgart', 'education'],
    ['Johannes Gutenberg-Universitaet Mainz', 'education'],
    ['Universidad Nacional Autonoma de Mexico', 'education'],
    ['Université de Maroua - Université de Maroua', 'education'],
    ['Fort Bend Independent School District', 'education'],
    ['Rensselaer Polytechnic Institute', 'education'],
    ['Kenya Education Network', 'education'],
    ['Michigan Statewide Educational Network', null],
    ['Host Universal Pty Ltd', 'hosting'],
  ],
  'research network or laboratory': [
    ['Los Alamos National Laboratory', 'research'],
    ['Commonwealth Scientific and Industrial Research Organisation', 'research'],
    ['Croatian Academic and Research Network', 'research'],
    ['Leibniz-Rechenzentrum', null],
    ['Wolfram Research, Inc.', null],
    ['Adhesives Research, Inc.', null],
  ],
  government: [
    ['State of Utah', 'government'],
    ['Governo do Estado de Mato Grosso do Sul', 'government'],
    ['Department of ICT Government of Seychelles', 'government'],
    ['AS272115 - MINISTERIO DE HACIENDA Y CREDITO PUBLICO', 'government'],
    ['Herning Kommune', 'government'],
    ['U.S. Department of Education', 'government'],
    ['Icelandic Ministry of Education', 'government'],
    ['Vaxjo Kommun', 'government'],
    ['City of Philadelphia', null],
    ['COMMUNAUTE URBAINE DE STRASBOURG', null],
  ],
  'bank or insurer': [
    ['KOOKMIN BANK', 'financial'],
    ['BRB - Banco de Brasilia S/A', 'financial'],
    ['Pentagon Federal Credit Union', 'financial'],
    ['PRIMERICA LIFE INSURANCE COMPANY', 'financial'],
    ['Turkiye Garanti Bankasi A.S.', 'financial'],
    ['LATVIJAS BANKA', 'financial'],
    ['Navy Federal Credit Union', 'financial'],
    ['DataBank Holdings, Ltd.', null],
    ['SoftBank Corp.', null],
    ['BankPlus', null],
  ],
  'cable operator': [
    ['HATHWAY CABLE AND DATACOM LIMITED', 'cable'],
    ['Kintetsu Cable Network Co., Ltd.', 'cable'],
    ['DANSK KABEL TV A/S', 'cable'],
    ['Hrubieszowska Telewizja Kablowa Sp. z o.o.', 'cable'],
    ['Cable Television Satelital SRL', 'cable'],
    ['Cable & Wireless Panama', null],
    ['Cable and Wireless Jamaica', null],
  ],
  satellite: [
    ['"Albanian Satellite Communications" sh.p.k.', 'satellite'],
    ['Global Satellite Engineering, Inc', 'satellite'],
    ['Kacific Broadband Satellites Pte Ltd', 'satellite'],
    ['ViaSat, Inc.', null],
    ['Satnet', null],
  ],
  'hosting, data centre or cloud': [
    ['Servers.com, Inc.', 'hosting'],
    ['HZ Hosting Ltd', 'hosting'],
    ['RUBIX DATACENTER SAS', 'hosting'],
    ['Tencent Cloud Computing (Beijing) Co., Ltd', 'hosting'],
    ['Radore Veri Merkezi Hizmetleri A.S.', 'hosting'],
    ['IDC Frontier Inc.', 'hosting'],
    ['Hostinger International Limited', 'hosting'],
    ['PebbleHost Ltd', 'hosting'],
    ['Hong Kong Serverworks Limited', 'hosting'],
    ['GigsGigsCloud-AS-AP - GigsGigs Network Services', 'hosting'],
    ['CITY OF ST. CLOUD', null],
    ['DigitalOcean, LLC', null],
    ['Hospitality Integrated Services Inc', null],
  ],
  'mobile operator': [
    ['T-Mobile Polska S.A.', 'mobile'],
    ['Mobile Telesystems PJSC', 'mobile'],
    ['Colombia Movil', 'mobile'],
    ['Exxon Mobil Corporation', null],
    ['Telecomunicaciones MOVILNET', null],
    ['Mobilink GSM, Pakistan Mobile Communication Ltd.', 'mobile'],
  ],
  broadcaster: [
    ['Australian Broadcasting Corporation', 'media'],
    ['Hessischer Rundfunk', 'media'],
    ['Hong Kong Cable Television Limited', 'cable'],
    ['Telewest Inet Ltd.', null],
  ],
  'fixed wireless': [
    ['Gallatin Wireless Internet, LLC', 'fixed_wireless'],
    ['JAB Wireless, INC.', null],
    ['Union Wireless', null],
  ],
  'consumer access provider': [
    ['JDD NET PROVEDOR DE INTERNET E SERVICOS LTDA', 'residential'],
    ['Farmers Telephone Cooperative, Inc.', 'residential'],
    ['Mark Twain Rural Telephone Co.', 'residential'],
    ['Treehouse Broadband, LLC', 'residential'],
    ['EWII Bredbaand A/S', 'residential'],
    ['Signal Bredband AS', 'residential'],
    ['GIGA MAIS FIBRA TELECOMUNICACOES S.A.', 'residential'],
    ['Deutsche Glasfaser Wholesale GmbH', 'residential'],
    ['Malborskie Swiatlowody sp. z o. o.', 'residential'],
    ['Stadtnetz Bamberg Gesellschaft fuer Telekommunikation mbH', 'residential'],
    ['Uniti Fiber Holdings Inc.', null],
    ['Nationwide Telephone Assistance Ltd', null],
  ],
  'Brazilian access provider': [
    ['HOTLINK INTERNET LTDA', 'residential'],
    ['INFORLINK SERVICO DE COMUNICACAO MULTIMIDIA EIRELI', 'residential'],
    ['Telecomunicacoes Nordeste Ltda.', 'residential'],
    ['Durand do Brasil Ltda', null],
    ['INVERSIONES MYJ LTDA', null],
    ['Locaweb Servicos de Internet S/A', null],
    ['Ascenty Data Centers e Telecomunicacoes S/A', 'hosting'],
  ],
};

describe('connection type rules', () => {
  it('has cases for every rule', () => {
    expect(Object.keys(cases).sort()).toEqual(connectionTypeRules.map((r) => r.name).sort());
  });

  for (const [rule, names] of Object.entries(cases)) {
    it(`types the names of the ${rule} rule and leaves the look-alikes`, () => {
      for (const [name, expected] of names) expect(ruleOfOrganization(name)?.type ?? null, name).toBe(expected);
      const own = names.filter(([, expected]) => expected === connectionTypeRules.find((r) => r.name === rule)!.type);
      for (const [name] of own) expect(ruleOfOrganization(name)?.name, name).toBe(rule);
    });
  }

  it('types nothing for names that many kinds of holder use', () => {
    for (const name of [
      'Deutsche Telekom AG',
      'Verizon Business',
      'China Networks Inter-Exchange',
      'Net Global Srl',
      'Dimension Data',
      null,
    ]) {
      expect(ruleOfOrganization(name), String(name)).toBeNull();
    }
  });
});

describe('registry handles', () => {
  it('tells a handle from a name or an acronym', () => {
    for (const handle of ['TE-AS', 'NAL-AS', 'GIXA-AS', 'CSMNAP-ASN', 'DACOM-PUBNETPLUS', 'AS64011'])
      expect(isRegistryHandle(handle), handle).toBe(true);
    for (const name of ['USDA', 'RENATER', 'UPMC', 'Telecom Egypt', 'CO.PA.CO.', 'W.W.GRAINGER', 'T-Mobile USA, Inc.', 'Kar-Tel LLC']) {
      expect(isRegistryHandle(name), name).toBe(false);
    }
  });
});
