/** Which paths the single lookups' hot path takes, which it leaves to the router, and that both answer alike. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { singleLookupOf } from '../../src/http/v1/singleLookups.js';
import { Harness, type CallOptions, type PlanCode, type Reply } from './harness.js';

describe('singleLookupOf', () => {
  it('takes addresses and MACs in every accepted form, decoded as the router decodes them', () => {
    expect(singleLookupOf('/v1/ip/8.8.8.8')).toEqual({ route: '/v1/ip/:ip', param: '8.8.8.8' });
    expect(singleLookupOf('/v1/ip/2001:db8::1')).toEqual({ route: '/v1/ip/:ip', param: '2001:db8::1' });
    expect(singleLookupOf('/v1/ip/%3A%3A1')).toEqual({ route: '/v1/ip/:ip', param: '::1' });
    expect(singleLookupOf('/v1/ip/%E0.1')).toEqual({ route: '/v1/ip/:ip', param: '%E0.1' });
    expect(singleLookupOf('/v1/blacklist/1.2.3.4')).toEqual({ route: '/v1/blacklist/:ip', param: '1.2.3.4' });
    for (const mac of ['00:50:56:12:34:56', '00-50-56-12-34-56', '0050.5612.3456', '005056123456', '005056', '10:06:48:7', '70b3.d500.1'])
      expect(singleLookupOf(`/v1/mac/${mac}`)).toEqual({ route: '/v1/mac/:mac', param: mac });
  });

  it('leaves the named routes beside them, trailing slashes and other input to the router', () => {
    for (const path of [
      '/v1/ip/batch',
      '/v1/blacklist/batch',
      '/v1/blacklist/report',
      '/v1/blacklist/export',
      '/v1/mac/search',
      '/v1/ip/',
      '/v1/ip',
      '/v1/ip/8.8.8.8/',
      '/v1/ip/not-an-ip',
      '/v1/mac/zz',
      '/v1/usage',
      '/v1/ip/8.8.8.8/x',
    ])
      expect(singleLookupOf(path), path).toBeNull();
  });
});

/**
 * The hot path answers on node:http without Koa; the router answers the same handlers through
 * Koa. The same request both ways (the router's by a trailing slash, which the hot path leaves
 * to it), each by its own account of the same plan at the same instant, must get the same
 * status, headers and body.
 */
describe('the hot path answers exactly as the router does', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(async () => {
    await h?.stop();
  });

  /** Two fresh keys of one plan: the first for the hot path, the second for the router. */
  async function twoKeys(plan: PlanCode, extra: Record<string, unknown> = {}): Promise<[string, string]> {
    return [await h.newKey(plan, extra), await h.newKey(plan, extra)];
  }

  function comparable(reply: Reply) {
    const headers = [...reply.headers].filter(([name]) => name !== 'date');
    return { status: reply.status, headers, text: reply.text };
  }

  async function expectSameAnswers(path: string, keys: [string | undefined, string | undefined], options: CallOptions = {}) {
    const question = path.indexOf('?');
    const routerPath = question === -1 ? `${path}/` : `${path.slice(0, question)}/${path.slice(question)}`;
    const hot = await h.call(path, { ...options, key: keys[0] });
    const routed = await h.call(routerPath, { ...options, key: keys[1], tick: 0 });
    expect(comparable(hot), path).toEqual(comparable(routed));
    return hot;
  }

  const lookups = [
    '/v1/ip/8.8.8.8',
    '/v1/ip/77.88.8.8',
    '/v1/ip/2a00:1450:4001:81b::200e',
    '/v1/ip/::ffff:1.1.1.1',
    '/v1/ip/10.1.2.3',
    '/v1/blacklist/8.8.8.8',
    '/v1/mac/00:50:56:12:34:56',
    '/v1/mac/005056',
    '/v1/mac/10:06:48:7',
    '/v1/mac/70-B3-D5-00-1',
  ];

  for (const plan of ['free', 'business'] as const) {
    it(`successes on the ${plan} plan, plain, with fields, pretty and the key in the query`, async () => {
      for (const path of lookups) {
        const variants: [string, CallOptions][] = [
          [path, {}],
          [`${path}?fields=location.country,network`, {}],
          [`${path}?pretty`, {}],
          [path, { via: 'query' }],
          [path, { headers: { origin: 'https://example.com' } }],
        ];
        for (const [pathAndQuery, options] of variants) {
          expect((await expectSameAnswers(pathAndQuery, await twoKeys(plan), options)).status, pathAndQuery).toBe(200);
        }
      }
    });
  }

  it('refusals: invalid input, missing and invalid keys, website restriction, suspension, rate and quota', async () => {
    const keys = await twoKeys('free');
    expect((await expectSameAnswers('/v1/ip/999.1.1.1', keys)).body.error.code).toBe('invalid_ip');
    expect((await expectSameAnswers('/v1/mac/00:50', keys)).body.error.code).toBe('invalid_mac');
    expect((await expectSameAnswers('/v1/mac/10:06:4', keys)).body.error.code).toBe('invalid_mac');
    expect((await expectSameAnswers('/v1/ip/8.8.8.8', [undefined, undefined])).body.error.code).toBe('missing_key');
    expect((await expectSameAnswers('/v1/ip/8.8.8.8', ['nlk_x', 'nlk_x'])).body.error.code).toBe('invalid_key');
    const a = await h.createAccount('pro');
    const b = await h.createAccount('pro');
    for (const { key } of [a, b]) expect((await h.patchKey(key.id, { websites: ['example.com'] })).status).toBe(200);
    const pair: [string, string] = [a.key.secret, b.key.secret];
    expect((await expectSameAnswers('/v1/ip/8.8.8.8', pair, { headers: { origin: 'https://other.example' } })).body.error.code).toBe(
      'origin_not_allowed',
    );
    expect((await expectSameAnswers('/v1/ip/8.8.8.8', pair, { headers: { origin: 'https://example.com' } })).status).toBe(200);
    for (const { account } of [a, b]) await h.patchAccount(account.id, { suspended: true });
    expect((await expectSameAnswers('/v1/ip/8.8.8.8', pair, { headers: { origin: 'https://example.com' } })).body.error.code).toBe(
      'account_suspended',
    );

    // free: 2 per second, 3 per day
    const limited = await twoKeys('free');
    await expectSameAnswers('/v1/ip/8.8.8.8', limited);
    await expectSameAnswers('/v1/ip/8.8.8.8', limited, { tick: 0 });
    expect((await expectSameAnswers('/v1/ip/8.8.8.8', limited, { tick: 0 })).body.error.code).toBe('rate_limited');
    await expectSameAnswers('/v1/ip/8.8.8.8', limited);
    expect((await expectSameAnswers('/v1/ip/8.8.8.8', limited)).body.error.code).toBe('quota_exceeded');
  });

  it('a range (CIDR) where an address goes: 400 invalid_ip saying ranges are not looked up, the same on every path', async () => {
    const ranges = [
      ['/v1/ip/1.2.3.4/24', '/v1/ip/1.2.3.4%2F24'],
      ['/v1/blacklist/1.2.3.4/24', '/v1/blacklist/1.2.3.4%2F24'],
      ['/v1/ip/2001:db8::/32', '/v1/ip/2001:db8::%2F32'],
      ['/v1/blacklist/2001:DB8::/128', '/v1/blacklist/2001:DB8::%2F128'],
    ];
    for (const [routed, hotPath] of ranges) {
      expect(singleLookupOf(routed), routed).toBeNull();
      expect(singleLookupOf(hotPath)?.param, hotPath).toContain('/');
      const [first, second] = await twoKeys('pro');
      const router = await h.call(routed, { key: first });
      const hot = await h.call(hotPath, { key: second, tick: 0 });
      expect(router.status, routed).toBe(400);
      expect(router.body.error).toEqual({ code: 'invalid_ip', message: expect.stringContaining('ranges (CIDR') });
      expect(comparable(router), routed).toEqual(comparable(hot));
      // after the key: refused as an invalid address is, and counted as rejected
      expect((await h.call(routed)).body.error.code, routed).toBe('missing_key');
      expect((await h.call(routed, { key: 'nlk_x' })).body.error.code, routed).toBe('invalid_key');
      expect((await h.usage(first)).today.rejected).toBe(1);
    }
    // what is not a range stays an unknown endpoint
    for (const path of ['/v1/ip/8.8.8.8/x', '/v1/ip/batch/24', '/v1/ip/8.8.8.8/24/1', '/v1/mac/00:50:56/24'])
      expect((await h.call(path, { key: (await twoKeys('pro'))[0] })).body.error.code, path).toBe('not_found');
  });
});
