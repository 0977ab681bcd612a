/**
 * The RDAP answer reader on the registries' answers (test/fixtures/publishers/rdap.*, provenance in
 * feeds-rdap-README.md: ARIN nests the abuse contact in the registrant, the others list it at the
 * top) and on a corpus of bad answers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseIp, type ParsedIp } from '../../src/address/ipAddress.js';
import { RDAP_ANSWER_MAX_BYTES, RdapAnswerError, readRdapNetwork } from '../../src/enrichment/rdapNetwork.js';

const PUBLISHERS = path.join(import.meta.dirname, '..', 'fixtures', 'publishers');
const answer = (url: string) => fs.readFileSync(path.join(PUBLISHERS, new URL(url).host, new URL(url).pathname));
const ip = (text: string): ParsedIp => parseIp(text)!;
const bytes = (value: unknown) => (Buffer.isBuffer(value) ? value : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)));
const v4 = (text: string) => BigInt(ip(text).v4);

const network = (entities: unknown[], extra: Record<string, unknown> = {}) => ({
  objectClassName: 'ip network',
  startAddress: '192.0.2.0',
  endAddress: '192.0.2.255',
  ipVersion: 'v4',
  entities,
  ...extra,
});
const vcard = (...properties: unknown[][]) => ['vcard', [['version', {}, 'text', '4.0'], ...properties]];
const abuse = (email: unknown, more: Record<string, unknown> = {}) => ({
  roles: ['abuse'],
  vcardArray: vcard(['email', {}, 'text', email]),
  ...more,
});

describe('readRdapNetwork', () => {
  it("finds ARIN's abuse contact inside the registrant, not the technical contact beside it", () => {
    expect(readRdapNetwork(answer('https://rdap.arin.net/registry/ip/8.8.8.8'), ip('8.8.8.8'))).toEqual({
      family: 4,
      start: v4('8.8.8.0'),
      end: v4('8.8.8.255'),
      abuseEmail: 'network-abuse@google.com',
    });
  });

  it("reads APNIC's irt, RIPE NCC's and LACNIC's abuse entities", () => {
    expect(readRdapNetwork(answer('https://rdap.apnic.net/ip/1.1.1.1'), ip('1.1.1.1')).abuseEmail).toBe('helpdesk@apnic.net');
    const ripe = readRdapNetwork(answer('https://rdap.db.ripe.net/ip/193.0.6.139'), ip('193.0.6.139'));
    expect(ripe).toEqual({ family: 4, start: v4('193.0.0.0'), end: v4('193.0.7.255'), abuseEmail: 'abuse@ripe.net' });
    const lacnic = readRdapNetwork(answer('https://rdap.lacnic.net/rdap/ip/200.7.84.1'), ip('200.7.84.1'));
    expect(lacnic).toEqual({ family: 4, start: v4('200.7.84.0'), end: v4('200.7.85.255'), abuseEmail: 'abuse@lacnic.net' });
  });

  it('takes the shallowest abuse entity, the first among equals, and its first plain address', () => {
    const nested = { roles: ['registrant'], entities: [abuse('deep@example.net')] };
    expect(readRdapNetwork(bytes(network([nested, abuse('top@example.net')])), ip('192.0.2.1')).abuseEmail).toBe('top@example.net');
    expect(readRdapNetwork(bytes(network([abuse('first@example.net'), abuse('second@example.net')])), ip('192.0.2.1')).abuseEmail).toBe(
      'first@example.net',
    );
    const two = { roles: ['abuse'], vcardArray: vcard(['email', {}, 'text', 'not a mailbox'], ['email', {}, 'text', 'ok@example.net']) };
    expect(readRdapNetwork(bytes(network([two])), ip('192.0.2.1')).abuseEmail).toBe('ok@example.net');
  });

  it('answers null when no abuse entity has a plain address', () => {
    const cases = [
      [],
      [{ roles: ['registrant'], vcardArray: vcard(['email', {}, 'text', 'noc@example.net']) }],
      [abuse('***@example.net')],
      [abuse(42)],
      [abuse('a@b@example.net')],
      [{ roles: ['abuse'], vcardArray: ['vcard', 'broken'] }],
      [{ roles: 'abuse', vcardArray: vcard(['email', {}, 'text', 'x@example.net']) }],
      ['not an entity', null],
    ];
    for (const entities of cases)
      expect(readRdapNetwork(bytes(network(entities)), ip('192.0.2.1')).abuseEmail, JSON.stringify(entities)).toBeNull();
  });

  it('walks entities only to a bounded depth', () => {
    let entity: Record<string, unknown> = abuse('deep@example.net');
    for (let i = 0; i < 4; i++) entity = { roles: ['registrant'], entities: [entity] };
    expect(readRdapNetwork(bytes(network([entity])), ip('192.0.2.1')).abuseEmail).toBeNull();
  });

  it('reads an IPv6 network', () => {
    const v6 = network([abuse('abuse@example.net')], {
      startAddress: '2001:db8::',
      endAddress: '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff',
      ipVersion: 'v6',
    });
    const read = readRdapNetwork(bytes(v6), ip('2001:db8::1'));
    expect(read.family).toBe(6);
    expect(read.end - read.start).toBe((1n << 96n) - 1n);
  });

  const bad: [string, Buffer | string, string, RegExp][] = [
    ['not JSON', '{"objectClassName":', '192.0.2.1', /not JSON/],
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), '192.0.2.1', /not UTF-8/],
    ['a list', '[]', '192.0.2.1', /not a JSON object/],
    ['an error answer', JSON.stringify({ errorCode: 404, title: 'Not Found' }), '192.0.2.1', /not an "ip network"/],
    ['an entity answer', JSON.stringify({ objectClassName: 'entity', handle: 'X' }), '192.0.2.1', /not an "ip network"/],
    ['a start that is no address', JSON.stringify(network([], { startAddress: 'start' })), '192.0.2.1', /"startAddress" is not an IPv4/],
    ['no end', JSON.stringify(network([], { endAddress: undefined })), '192.0.2.1', /"endAddress" is not a string/],
    ['start after end', JSON.stringify(network([], { startAddress: '192.0.3.0' })), '192.0.2.1', /after/],
    ['another network', JSON.stringify(network([])), '192.0.3.1', /does not hold the asked address/],
    ['the other family', JSON.stringify(network([], { ipVersion: 'v6' })), '192.0.2.1', /"ipVersion"/],
    ['IPv4 addresses for an IPv6 question', JSON.stringify(network([], { ipVersion: undefined })), '2001:db8::1', /not an IPv6/],
    ['JSON nested past the bound', `{"a":${'['.repeat(64)}${']'.repeat(64)}}`, '192.0.2.1', /nested deeper/],
  ];
  it.each(bad)('refuses %s', (_what, body, asked, message) => {
    expect(() => readRdapNetwork(bytes(body), ip(asked))).toThrow(message);
    expect(() => readRdapNetwork(bytes(body), ip(asked))).toThrow(RdapAnswerError);
  });

  it('refuses an answer past its size bound', () => {
    expect(() => readRdapNetwork(Buffer.alloc(RDAP_ANSWER_MAX_BYTES + 1, 32), ip('192.0.2.1'))).toThrow(/more than/);
  });
});
