/** SPEC 4.3, 4.5 (docs/api.md "Batches"): batch body forms, duplicates, per-entry failures, limits, quota. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectQuotaHeadersMatchMeta, Harness, nextUtcMonth, TEST_PLANS } from './harness.js';

let h: Harness;
let pro: string;

beforeAll(async () => {
  h = await Harness.start();
  pro = await h.newKey('pro');
});

afterAll(async () => {
  await h?.stop();
});

const ips = (body: { results: { ip: string }[] }) => body.results.map((r) => r.ip);

/** `n` distinct spellings of 8.8.8.8, shortest first: IPv4-mapped forms in every case and zero form, in Unicode white space. */
function spellingsOf8888(n: number): string[] {
  const cases = (text: string) => {
    let all = [''];
    for (const c of text) all = all.flatMap((head) => (/[a-f]/.test(c) ? [head + c, head + c.toUpperCase()] : [head + c]));
    return all;
  };
  const heads = ['::', '0::', '::0:', '0:0::', '0::0:', '::0:0:', '0:0:0::', '0:0:0:0:0:'];
  const tails = ['8.8.8.8', '808:808', '0808:808', '808:0808', '0808:0808'];
  const forms = ['8.8.8.8', ...heads.flatMap((head) => tails.flatMap((tail) => cases(`${head}ffff:${tail}`)))];
  forms.sort((a, b) => a.length - b.length);
  const space = ['', ' ', '\t', '\n', '\r', '\u00a0', '\u1680', ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i))];
  space.push('\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff');
  const all: string[] = [];
  for (const form of forms) for (const before of space) for (const after of space) if (all.length < n) all.push(before + form + after);
  return all;
}

for (const api of ['ip', 'blacklist'] as const) {
  describe(`POST /v1/${api}/batch`, () => {
    const path = `/v1/${api}/batch`;

    it('body form 1: JSON object {ips: [...]}', async () => {
      const r = await h.call(path, { key: pro, json: { ips: ['8.8.8.8', '1.1.1.1'] } });
      expect(r.status).toBe(200);
      expect(ips(r.body)).toEqual(['8.8.8.8', '1.1.1.1']);
      expectQuotaHeadersMatchMeta(r, 'pro');
    });

    it('body form 2: plain JSON array', async () => {
      const r = await h.call(path, { key: pro, json: ['8.8.8.8', '1.1.1.1'] });
      expect(r.status).toBe(200);
      expect(ips(r.body)).toEqual(['8.8.8.8', '1.1.1.1']);
    });

    it('body form 3: form field ips, comma-separated', async () => {
      const r = await h.call(path, {
        key: pro,
        body: 'ips=8.8.8.8%2C1.1.1.1,2001:4860:4860::8888',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(r.status).toBe(200);
      expect(ips(r.body)).toEqual(['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888']);
    });

    it('form field with spaces after commas', async () => {
      const r = await h.call(path, {
        key: pro,
        body: new URLSearchParams({ ips: '8.8.8.8, 1.1.1.1' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(r.status).toBe(200);
      expect(ips(r.body)).toEqual(['8.8.8.8', '1.1.1.1']);
    });

    it('JSON with a charset parameter in the content type', async () => {
      const r = await h.call(path, {
        key: pro,
        body: JSON.stringify(['8.8.8.8']),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(r.status).toBe(200);
    });

    it('an address answers once however it is spelled: one result, counted once, named by its first spelling', async () => {
      const key = await h.newKey('pro');
      const r = await h.call(path, {
        key,
        json: [' 8.8.8.8', '8.8.8.8', '::ffff:8.8.8.8', '::FFFF:808:808', '\u00a08.8.8.8\t', '0:0:0:0:0:ffff:0808:0808'],
      });
      expect(r.status).toBe(200);
      expect(r.body.count).toBe(1);
      expect(r.body.results).toHaveLength(1);
      expect(r.body.results[0]).toMatchObject({ success: true, input: ' 8.8.8.8', ip: '8.8.8.8' });
      expect(r.body.meta.quota.used).toBe(1);
      expect((await h.usage(key)).today[api]).toBe(1);
      // the same in the query and in a form
      const get = await h.call(`${path}?ips=8.8.8.8,::ffff:8.8.8.8&ips=%208.8.8.8,::FFFF:808:808`, { key });
      expect(get.body.results.map((x: { input: string }) => x.input)).toEqual(['8.8.8.8']);
      const form = await h.call(path, {
        key,
        body: new URLSearchParams({ ips: '::ffff:8.8.8.8, 8.8.8.8,::FFFF:808:808' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(form.body.results.map((x: { input: string }) => x.input)).toEqual(['::ffff:8.8.8.8']);
      expect((await h.usage(key)).today[api]).toBe(3);
    });

    it('spellings of several addresses: one result each, in order of first appearance; invalid entries once by their trimmed text', async () => {
      const key = await h.newKey('pro');
      const r = await h.call(path, {
        key,
        json: ['2001:DB8:0:0::1', '8.8.8.8', 'bad', '2001:db8::1', ' bad ', '::ffff:1.1.1.1', '::FFFF:8.8.8.8', 'bad', '1.1.1.1', 'Bad'],
      });
      expect(r.status).toBe(200);
      expect(r.body.count).toBe(5);
      expect(r.body.results.map((x: { input: string; ip: string }) => [x.input, x.ip])).toEqual([
        ['2001:DB8:0:0::1', '2001:db8::1'],
        ['8.8.8.8', '8.8.8.8'],
        ['bad', 'bad'],
        ['::ffff:1.1.1.1', '1.1.1.1'],
        ['Bad', 'Bad'],
      ]);
      expect(r.body.meta.quota.used).toBe(3);
    });

    it('invalid entries fail alone with invalid_ip, the request succeeds; only valid ones count', async () => {
      const key = await h.newKey('pro');
      const r = await h.call(path, { key, json: { ips: ['8.8.8.8', 'not-an-ip', '999.1.1.1', 5, null, { a: 1 }, '1.1.1.1'] } });
      expect(r.status).toBe(200);
      expect(r.body.success).toBe(true);
      expect(r.body.count).toBe(7);
      const failures = r.body.results.filter((x: { success: boolean }) => !x.success);
      expect(failures).toHaveLength(5);
      for (const f of failures) {
        expect(f).toEqual({
          success: false,
          input: expect.any(String),
          ip: expect.any(String),
          error: { code: 'invalid_ip', message: expect.any(String) },
        });
      }
      expect(failures.slice(0, 2).map((f: { ip: string }) => f.ip)).toEqual(['not-an-ip', '999.1.1.1']);
      expect(r.body.results[0]).toMatchObject({ success: true, ip: '8.8.8.8' });
      expect(r.body.results[6]).toMatchObject({ success: true, ip: '1.1.1.1' });
      expect(r.body.meta.quota.used).toBe(2);
    });

    it('no addresses: 400 empty_batch, for each body form', async () => {
      expectError(await h.call(path, { key: pro, json: { ips: [] } }), 'empty_batch', 400);
      expectError(await h.call(path, { key: pro, json: [] }), 'empty_batch', 400);
      expectError(await h.call(path, { key: pro, json: {} }), 'empty_batch', 400);
      expectError(
        await h.call(path, { key: pro, body: 'ips=', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        'empty_batch',
        400,
      );
      expectError(
        await h.call(path, { key: pro, body: 'ips=,,', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        'empty_batch',
        400,
      );
      expectError(await h.call(path, { key: pro, method: 'POST' }), 'empty_batch', 400);
    });

    it("more unique addresses than the plan's batch size: 400 batch_too_large, nothing counted", async () => {
      const starter = await h.newKey('starter');
      const max = TEST_PLANS.starter.max_batch;
      const list = Array.from({ length: max + 1 }, (_, i) => `8.8.8.${i + 1}`);
      expectError(await h.call(path, { key: starter, json: list }), 'batch_too_large', 400);
      const usage = await h.usage(starter);
      expect(usage.monthly_quota.used).toBe(0);
      expect(usage.today.rejected).toBe(1);
      // exactly the maximum is fine, and another spelling of an address does not count towards it
      const ok = await h.call(path, { key: starter, json: [...list.slice(0, max), list[0], `::ffff:${list[1]}`, ` ${list[2]}`] });
      expect(ok.status).toBe(200);
      expect(ok.body.count).toBe(max);
      expect(ok.body.meta.quota.used).toBe(max);
    });

    it('the batch size counts distinct addresses and distinct invalid entries: the results never outnumber it', async () => {
      const starter = await h.newKey('starter');
      const max = TEST_PLANS.starter.max_batch;
      // the maximum of addresses, each spelled ten ways, and one invalid entry sent ten ways
      const spelled = Array.from({ length: max - 1 }, (_, i) => `9.8.7.${i + 1}`).flatMap((ip) => [
        ip,
        ` ${ip}`,
        `${ip} `,
        `::ffff:${ip}`,
        `::FFFF:${ip}`,
        `0::ffff:${ip}`,
        `\t${ip}`,
        `\u3000${ip}`,
        `::ffff:${ip}\n`,
        ` ::ffff:${ip} `,
      ]);
      const invalid = Array.from({ length: 10 }, (_, i) => `${' '.repeat(i)}nope${'\t'.repeat(i)}`);
      const fits = await h.call(path, { key: starter, json: [...invalid, ...spelled] });
      expect(fits.status).toBe(200);
      expect(fits.body.count).toBe(max);
      expect(fits.body.meta.quota.used).toBe(max - 1);
      // distinct invalid spellings are each a place of the batch
      const distinctInvalid = Array.from({ length: max + 1 }, (_, i) => `nope${i}`);
      expectError(await h.call(path, { key: starter, json: distinctInvalid }), 'batch_too_large', 400);
      expectError(await h.call(path, { key: starter, json: [...spelled, 'nope', 'nope2'] }), 'batch_too_large', 400);
    });

    it('45,000 spellings of one address in a body under the limit answer one record, counted once', async () => {
      const key = await h.newKey('pro');
      const body = JSON.stringify(spellingsOf8888(45_000));
      expect(Buffer.byteLength(body)).toBeLessThan(h.config.bodyLimitBytes);
      const started = performance.now();
      const r = await h.call(path, { key, body, headers: { 'content-type': 'application/json' } });
      const took = performance.now() - started;
      expect(r.status).toBe(200);
      expect(r.body.count).toBe(1);
      expect(r.body.results[0]).toMatchObject({ success: true, input: '8.8.8.8', ip: '8.8.8.8' });
      expect(r.text.length).toBeLessThan(5000);
      expect(r.body.meta.quota.used).toBe(1);
      // the record of one address, not 45,000: well within a second even on a busy machine
      expect(took).toBeLessThan(2000);
    });

    it('free plan: 402 plan_required, nothing counted', async () => {
      const free = await h.newKey('free');
      expectError(await h.call(path, { key: free, json: ['8.8.8.8'] }), 'plan_required', 402);
      const usage = await h.usage(free);
      expect(usage.today[api]).toBe(0);
      expect(usage.today.rejected).toBe(1);
    });

    it('expired paid plan: 402 plan_required', async () => {
      const { key } = await h.createAccount('starter', { expires_at: new Date(h.clock.ms - 1000).toISOString() });
      expectError(await h.call(path, { key: key.secret, json: ['8.8.8.8'] }), 'plan_required', 402);
    });

    it('a batch of N needs N remaining: otherwise refused whole with 429 quota_exceeded and X-Quota-Reset', async () => {
      const starter = await h.newKey('starter');
      const limit = TEST_PLANS.starter.quota.pooled; // 20, max batch 5
      // use 18 of 20 (pooled across APIs)
      for (let i = 0; i < 3; i++)
        expect((await h.call('/v1/ip/batch', { key: starter, json: [1, 2, 3, 4, 5].map((n) => `9.9.${i}.${n}`) })).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await h.call('/v1/mac/00:00:0c:12:34:56', { key: starter })).status).toBe(200);
      expect((await h.usage(starter)).monthly_quota).toEqual({ limit, used: 18, remaining: 2 });

      const refused = await h.call(path, { key: starter, json: ['8.8.8.8', '1.1.1.1', '9.9.9.9'] });
      expectError(refused, 'quota_exceeded', 429);
      expect(refused.headers.get('x-quota-reset')).toBe(String(nextUtcMonth(h.clock.ms)));
      const after = await h.usage(starter);
      expect(after.monthly_quota.used).toBe(18);
      expect(after.today.rejected).toBe(1);

      const fits = await h.call(path, { key: starter, json: ['8.8.8.8', '1.1.1.1', 'bad'] });
      expect(fits.status).toBe(200);
      expect(fits.body.meta.quota).toMatchObject({ used: 20, remaining: 0 });
      expect(fits.headers.get('x-quota-remaining')).toBe('0');
    });

    it('every result carries the full field set on a paid plan', async () => {
      const r = await h.call(path, { key: pro, json: ['8.8.8.8'] });
      if (api === 'ip') {
        expect(r.body.results[0]).toHaveProperty('security');
        expect(r.body.results[0]).toHaveProperty('network.range');
        expect(r.body.results[0].meta).toBeUndefined();
      }
      expect(r.body.meta.fields).toBe('full');
    });
  });
}

describe('input: each result names the entry it answers', () => {
  it('the entries of a JSON array exactly as sent, beside the canonical ip', async () => {
    const sent = ['10.0.0.1', '64:ff9b::1', '::ffff:8.8.8.8'];
    for (const path of ['/v1/ip/batch', '/v1/blacklist/batch']) {
      const r = await h.call(path, { key: pro, json: sent });
      expect(r.status).toBe(200);
      expect(r.body.results.map((x: { input: string; ip: string }) => [x.input, x.ip])).toEqual([
        ['10.0.0.1', '10.0.0.1'],
        ['64:ff9b::1', '64:ff9b::1'],
        ['::ffff:8.8.8.8', '8.8.8.8'],
      ]);
      for (const result of r.body.results) expect(Object.keys(result).slice(0, 3)).toEqual(['success', 'input', 'ip']);
    }
  });

  it('JSON strings keep their spaces; comma-separated items (form, GET, an ips string) lose the spaces around them', async () => {
    const inputs = (body: { results: { input: string }[] }) => body.results.map((r) => r.input);
    const json = await h.call('/v1/ip/batch', { key: pro, json: [' 8.8.8.8 ', '2001:DB8::1', ' bad'] });
    expect(inputs(json.body)).toEqual([' 8.8.8.8 ', '2001:DB8::1', ' bad']);
    expect(json.body.results[2]).toEqual({ success: false, input: ' bad', ip: 'bad', error: expect.any(Object) });
    const form = await h.call('/v1/ip/batch', {
      key: pro,
      body: new URLSearchParams({ ips: ' 8.8.8.8 , 2001:DB8::1' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(inputs(form.body)).toEqual(['8.8.8.8', '2001:DB8::1']);
    expect(inputs((await h.call('/v1/ip/batch?ips=8.8.8.8,%202001:DB8::1', { key: pro })).body)).toEqual(['8.8.8.8', '2001:DB8::1']);
    expect(inputs((await h.call('/v1/ip/batch', { key: pro, json: { ips: '1.1.1.1 ,bad' } })).body)).toEqual(['1.1.1.1', 'bad']);
  });

  it('a non-string entry is named by its JSON text; an address answers once, named by its first spelling', async () => {
    const r = await h.call('/v1/ip/batch', {
      key: pro,
      json: [5, null, true, [1], { a: 1 }, '::FFFF:8.8.8.8', '8.8.8.8', '8.8.8.8', '5', [2], 'null '],
    });
    expect(r.body.results.map((x: { input: string }) => x.input)).toEqual(['5', 'null', 'true', '[array]', '[object]', '::FFFF:8.8.8.8']);
  });

  it('the fast path and the object path (?pretty) render the same results, input included', async () => {
    const entries = [' 8.8.8.8', '10.1.2.3', '3ffe::1', 'x', '2a00:1450:4001:80b::200e'];
    for (const tick of [undefined, 0]) {
      const fast = await h.call('/v1/ip/batch', { key: pro, json: entries, tick });
      const objects = await h.call('/v1/ip/batch?pretty', { key: pro, json: entries, tick: 0 });
      expect(JSON.stringify(fast.body.results)).toBe(JSON.stringify(objects.body.results));
    }
  });
});

describe('fields keeps what kind of answer a result is', () => {
  it('reserved and not-found results keep reserved, found and message; failures stay whole', async () => {
    const r = await h.call('/v1/ip/batch?fields=location.country_code', { key: pro, json: ['10.0.0.1', '3ffe::1', '8.8.8.8', 'x'] });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([
      { success: true, input: '10.0.0.1', ip: '10.0.0.1', version: 4, reserved: true },
      { success: true, input: '3ffe::1', ip: '3ffe::1', version: 6, found: false, message: expect.any(String) },
      { success: true, input: '8.8.8.8', ip: '8.8.8.8', version: 4, location: { country_code: 'US' } },
      { success: false, input: 'x', ip: 'x', error: { code: 'invalid_ip', message: expect.any(String) } },
    ]);
  });

  it('on single lookups too', async () => {
    const reserved = await h.call('/v1/ip/192.168.1.1?fields=location', { key: pro });
    expect(Object.keys(reserved.body)).toEqual(['success', 'ip', 'version', 'reserved', 'meta']);
    const notFound = await h.call('/v1/ip/3ffe::1?fields=network.asn', { key: pro });
    expect(Object.keys(notFound.body)).toEqual(['success', 'ip', 'version', 'found', 'message', 'meta']);
  });
});

describe('batch bodies as clients send them', () => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  it("JSON under any Content-Type: curl -d's form type, fetch's text/plain, none, a charset", async () => {
    for (const headers of [form, { 'content-type': 'text/plain;charset=UTF-8' }, { 'content-type': 'application/xml' }, {}]) {
      for (const body of ['["8.8.8.8","1.1.1.1"]', '{"ips": ["8.8.8.8", "1.1.1.1"]}', '{"ips": "8.8.8.8,1.1.1.1"}']) {
        // a Buffer body goes without a Content-Type unless one is given
        const r = await h.call('/v1/blacklist/batch', { key: pro, body: Buffer.from(body), headers });
        expect({ headers, body, status: r.status, ips: r.body.results?.map((x: { ip: string }) => x.ip) }).toEqual({
          headers,
          body,
          status: 200,
          ips: ['8.8.8.8', '1.1.1.1'],
        });
      }
    }
  });

  it('repeated form fields are all read (ips=a,b&ips=c, ips[]=d), as is a repeated ?ips=', async () => {
    const r = await h.call('/v1/ip/batch', { key: pro, body: 'ips=8.8.8.8,1.1.1.1&ips=9.9.9.9&ips%5B%5D=2.2.2.2&other=x', headers: form });
    expect(r.status).toBe(200);
    expect(ips(r.body)).toEqual(['8.8.8.8', '1.1.1.1', '9.9.9.9', '2.2.2.2']);
    const get = await h.call('/v1/blacklist/batch?ips=8.8.8.8,1.1.1.1&ips=9.9.9.9', { key: pro });
    expect(ips(get.body)).toEqual(['8.8.8.8', '1.1.1.1', '9.9.9.9']);
    // form fields under another declared type are read too
    const text = await h.call('/v1/ip/batch', { key: pro, body: 'ips=8.8.8.8', headers: { 'content-type': 'text/plain' } });
    expect(ips(text.body)).toEqual(['8.8.8.8']);
  });

  it('a body that is neither: the refusal names the Content-Type and the start of the body, and how to send one', async () => {
    const r = await h.call('/v1/ip/batch', { key: pro, body: '8.8.8.8,1.1.1.1', headers: form });
    expectError(r, 'invalid_body', 400);
    expect(r.body.error.message).toContain('The form data has no ips field');
    expect(r.body.error.message).toContain('Content-Type application/x-www-form-urlencoded and a body starting `8.8.8.8,1.1.1.1`');
    expect(r.body.error.message).toContain('ips=8.8.8.8,1.1.1.1');
    expect(r.body.error.message).toContain('application/json');

    const none = await h.call('/v1/ip/batch', { key: pro, body: Buffer.from('8.8.8.8') });
    expectError(none, 'invalid_body', 400);
    expect(none.body.error.message).toContain('no Content-Type and a body starting `8.8.8.8`');

    const scalar = await h.call('/v1/ip/batch', { key: pro, body: '"8.8.8.8"', headers: form });
    expectError(scalar, 'invalid_body', 400);
    expect(scalar.body.error.message).toContain('The JSON body is a string');
  });

  it('declared as another format: 415, the body shown in printable ASCII and cut short', async () => {
    const binary = Buffer.from([0, 1, 0xff, 10, 0x41, 0xe2, 0x82, 0xac, ...Buffer.from('x'.repeat(100))]);
    const r = await h.call('/v1/ip/batch', { key: pro, body: binary, headers: { 'content-type': 'application/octet-stream' } });
    expectError(r, 'unsupported_media_type', 415);
    const shown = /starting `([^`]*)`/.exec(r.body.error.message)![1];
    expect(shown).toMatch(/^[\x20-\x7e]*$/);
    expect(shown.startsWith('\\u0000\\u0001\\ufffd\\nA\\u20acxxx')).toBe(true);
    expect(shown.endsWith('x...')).toBe(true);
    expect(r.body.error.message).toContain('Content-Type application/octet-stream');
  });

  it('garbage bodies under any Content-Type: a 4xx in the envelope, never counted', async () => {
    const key = await h.newKey('pro');
    const bodies = ['', ' ', '[', '{"ips": [', 'ips', '=&=&', '%%%', '\u0000\u0000', '["8.8.8.8"', 'ips[x]=1', '{"ips": {"a": 1}}', 'null'];
    const types = [
      undefined,
      'application/json',
      'application/x-www-form-urlencoded',
      'text/plain',
      'multipart/form-data; boundary=x',
      'x',
    ];
    for (const body of bodies) {
      for (const type of types) {
        const r = await h.call('/v1/ip/batch', {
          key,
          body: Buffer.from(body),
          headers: type === undefined ? {} : { 'content-type': type },
        });
        expect({ body, type, status: r.status >= 400 && r.status < 500, success: r.body?.success }).toEqual({
          body,
          type,
          status: true,
          success: false,
        });
      }
    }
    expect((await h.usage(key)).monthly_quota.used).toBe(0);
  });
});

describe('batch body errors', () => {
  it('ips that is neither an array nor a string: 400 invalid_body', async () => {
    expectError(await h.call('/v1/ip/batch', { key: pro, json: { ips: 5 } }), 'invalid_body', 400);
    expectError(await h.call('/v1/ip/batch', { key: pro, json: { ips: { a: '8.8.8.8' } } }), 'invalid_body', 400);
  });

  it('a JSON string body is not a batch: 400, not 500', async () => {
    const r = await h.call('/v1/ip/batch', { key: pro, body: '"8.8.8.8"', headers: { 'content-type': 'application/json' } });
    expectError(r, 'invalid_body', 400);
  });

  it('a JSON number body: 400, not 500', async () => {
    const r = await h.call('/v1/ip/batch', { key: pro, body: '42', headers: { 'content-type': 'application/json' } });
    expectError(r, 'invalid_body', 400);
  });
});

describe('IP batch rendered from templates', () => {
  it('is byte for byte the object path (?pretty), for every kind of result, threats included', async () => {
    const listed = '45.133.1.7';
    expect((await h.call('/v1/blacklist/report', { key: pro, json: { ip: listed, threat_type: 'scanner' } })).status).toBe(201);
    const entries = [
      listed,
      '8.8.8.8',
      '8.8.8.8',
      '::ffff:1.1.1.1',
      '2a00:1450:4001:80b::200e',
      '10.1.2.3',
      'fe80::1',
      '3ffe::1',
      '192.0.0.9',
      'bogus',
      42,
      null,
      '2001:4860:4860::8888',
      // the engine's UTF-8 bytes beyond Latin-1 (Moscow's rouble sign) and within it (Tokyo's yen sign)
      '77.88.8.8',
      '133.11.0.1',
      // an input beyond ASCII around an address it names
      '\u00a09.9.9.9\u2003',
    ];
    const fast = await h.call('/v1/ip/batch', { key: pro, json: entries });
    const objects = await h.call('/v1/ip/batch?pretty', { key: pro, json: entries, tick: 0 });
    expect(fast.status).toBe(200);
    expect(objects.text).toContain('\n  ');
    expect(fast.text).toBe(JSON.stringify(fast.body));
    expect(JSON.stringify(fast.body.results)).toBe(JSON.stringify(objects.body.results));
    expect(fast.body.results[0].security).toMatchObject({ is_threat: true, threat_type: 'scanner' });
    const byInput = (input: string) => fast.body.results.find((result: { input: string }) => result.input === input);
    expect(byInput('77.88.8.8').country_info.currency.symbol).toBe('\u20bd');
    expect(byInput('133.11.0.1').country_info.currency.symbol).toBe('\u00a5');
    expect(byInput('\u00a09.9.9.9\u2003').ip).toBe('9.9.9.9');
    expect(Number(fast.headers.get('content-length'))).toBe(Buffer.byteLength(fast.text));
    expect(Object.keys(fast.body)).toEqual(['success', 'count', 'results', 'meta']);
  });
});

describe('big batches in parallel', () => {
  it('each answer is its own, whole, while the body buffers serve one batch after another', async () => {
    const business = await h.newKey('business');
    // 400 public addresses per batch (about 0.5 MB of answer, a kept buffer's size), every batch other ones
    const batch = (n: number) =>
      Array.from({ length: 400 }, (_, i) => `${11 + ((n * 7 + i) % 90)}.${(n * 13 + i) % 256}.${i % 256}.${1 + n}`);
    for (let wave = 0; wave < 3; wave++) {
      const bodies = Array.from({ length: 6 }, (_, i) => batch(wave * 6 + i));
      const fast = await Promise.all(bodies.map((json) => h.call('/v1/ip/batch', { key: business, json, tick: 0 })));
      const objects = await Promise.all(bodies.map((json) => h.call('/v1/ip/batch?pretty', { key: business, json, tick: 0 })));
      fast.forEach((reply, i) => {
        expect(reply.status).toBe(200);
        expect(Number(reply.headers.get('content-length'))).toBe(Buffer.byteLength(reply.text));
        expect(reply.body.results.map((r: { input: string }) => r.input)).toEqual(bodies[i]);
        expect(JSON.stringify(reply.body.results)).toBe(JSON.stringify(objects[i].body.results));
      });
    }
  });
});
