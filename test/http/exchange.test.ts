/** The hot path's exchange: its query equals Koa's (node:querystring), its headers replace as Koa's do. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NodeExchange, queryOf } from '../../src/http/request/exchange.js';

/** What a test sees of a parsed query: its prototype and entries, arrays as they are. */
const shapeOf = (query: object) => ({ prototype: Object.getPrototypeOf(query) as unknown, entries: Object.entries(query) });

describe('queryOf', () => {
  it('equals node:querystring on the usual queries and the odd ones', () => {
    for (const text of [
      '',
      'key=nlk_0123456789abcdef0123456789abcdef01234567',
      'key=k&fields=location.country,network.asn&pretty=1',
      'a&&b',
      '&',
      'a',
      '=',
      '=x',
      'a=1&a=2',
      'a=1&a=2&a=3',
      'a=b=c',
      '&a=1&',
      '__proto__=1&constructor=2&hasOwnProperty=3',
      'fields=ip%2Cversion',
      'q=a+b',
      `${'a=1&'.repeat(1100)}b=2`,
    ])
      expect(shapeOf(queryOf(text)), text).toEqual(shapeOf(parseQuery(text)));
  });

  it('equals node:querystring on any text of its separators, escapes and names', () => {
    const character = fc.constantFrom('a', 'b', 'k', '=', '&', '%', '2', 'C', '+', '_', ' ', 'é');
    fc.assert(
      fc.property(fc.array(character, { maxLength: 40 }), (characters) => {
        const text = characters.join('');
        expect(shapeOf(queryOf(text))).toEqual(shapeOf(parseQuery(text)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('NodeExchange headers', () => {
  const exchange = () => new NodeExchange({} as IncomingMessage, {} as ServerResponse, '/v1/ip/8.8.8.8', '');
  const listOf = (x: NodeExchange) => (x as unknown as { headerList: string[] }).headerList;

  it('replaces a header set again under any case, and keeps names that only look alike', () => {
    const x = exchange();
    x.set('X-Quota-Limit', '1');
    x.set('X-Quota-Reset', '2');
    x.set('x-quota-limit', '3');
    x.set('X-QUOTA-RESET', '4');
    x.set('X-@', 'at');
    x.set('X-`', 'backtick');
    x.set('X-[', 'bracket');
    x.set('X-{', 'brace');
    expect(listOf(x)).toEqual([
      'X-Quota-Limit',
      '3',
      'X-Quota-Reset',
      '4',
      'X-@',
      'at',
      'X-`',
      'backtick',
      'X-[',
      'bracket',
      'X-{',
      'brace',
    ]);
  });

  it('replaces under any case past the bound of remembered names too', () => {
    const x = exchange();
    for (let i = 0; i < 600; i++) x.set(`X-Name-${i}`, 'first');
    for (let i = 0; i < 600; i += 7) x.set(`x-NAME-${i}`, 'again');
    const list = listOf(x);
    expect(list).toHaveLength(1200);
    for (let i = 0; i < 600; i++) expect([list[2 * i], list[2 * i + 1]]).toEqual([`X-Name-${i}`, i % 7 === 0 ? 'again' : 'first']);
  });
});
