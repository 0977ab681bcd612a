/**
 * A property test that throws random and malformed paths, methods,
 * bodies and headers at a real server. Whatever arrives: never a 500 (nor any 5xx), and every
 * non-2xx answer is the SPEC 2.9 envelope {success: false, error: {code, message}} with a code of
 * src/errors.ts, sent as application/json (/metrics, a text exposition, and HEAD/preflight answers
 * without a body excepted).
 *
 * Requests go through node:http (not fetch) so that paths reach the server as written: `..`,
 * stray `%`, overlong segments. Runs are bounded (300 per property by default,
 * NETLOOKUP_FUZZ_RUNS to change) to keep the suite quick on 2 cores. Each run draws a new seed;
 * a failure names it, and NETLOOKUP_FUZZ_SEED=<seed> replays it (fuzzSeed.ts).
 */
import fc from 'fast-check';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorTable } from '../../src/errors.js';
import { assertSeeded } from './fuzzSeed.js';
import { ADMIN_TOKEN, Harness } from './harness.js';

let h: Harness;
let pro: string;
let free: string;
let restricted: string;
let accountId: string;
let keyId: string;

beforeAll(async () => {
  h = await Harness.start({ tickMs: 400 });
  const created = await h.createAccount('business');
  pro = created.key.secret;
  accountId = created.account.id;
  keyId = created.key.id;
  free = await h.newKey('free');
  restricted = (await h.createKey(accountId, 'web', ['example.com', '*.example.org'])).secret;
});

afterAll(async () => {
  await h?.stop();
});

interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * One request on a connection of its own: a request that wedges its connection (see the
 * keep-alive test in errors.test.ts) must not be blamed on the next one, and counterexamples
 * name the request at fault.
 */
function send(req: RawRequest): Promise<RawReply> {
  return sendOn(false, req);
}

function sendOn(via: http.Agent | false, req: RawRequest): Promise<RawReply> {
  const url = new URL(h.url);
  return new Promise((resolve, reject) => {
    const r = http.request(
      { agent: via, host: url.hostname, port: url.port, method: req.method, path: req.path, headers: req.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    // a request the server never answers is a failure too
    r.setTimeout(5_000, () =>
      r.destroy(Object.assign(new Error(`no answer within 5 s: ${req.method} ${req.path.slice(0, 100)}`), { code: 'NO_ANSWER' })),
    );
    r.end(req.body);
  });
}

const codes = new Set(Object.keys(errorTable));

/** The invariant of every answer. Returns a description of the violation, or null. */
function violation(req: RawRequest, reply: RawReply): string | null {
  const where = `${req.method} ${req.path.slice(0, 200)} -> ${reply.status} ${reply.text.slice(0, 300)}`;
  if (reply.status >= 500) return `server error: ${where}`;
  if (reply.status < 200) return `odd status: ${where}`;
  const isMetrics = /^\/metrics(\?|$)/.test(req.path) && reply.status === 200;
  const bodiless = req.method === 'HEAD' || reply.status === 204 || (req.method === 'OPTIONS' && reply.text.length === 0);
  if (bodiless || isMetrics) return null;
  const type = String(reply.headers['content-type'] ?? '');
  if (!/^application\/json/.test(type)) return `content type ${type}: ${where}`;
  let body: any;
  try {
    body = JSON.parse(reply.text);
  } catch {
    return `not JSON: ${where}`;
  }
  if (reply.headers['access-control-allow-origin'] !== '*') return `no Access-Control-Allow-Origin: *: ${where}`;
  if (reply.status >= 200 && reply.status < 300) return null;
  const envelope =
    body !== null &&
    typeof body === 'object' &&
    Object.keys(body).sort().join() === 'error,success' &&
    body.success === false &&
    typeof body.error === 'object' &&
    body.error !== null &&
    Object.keys(body.error).sort().join() === 'code,message' &&
    typeof body.error.code === 'string' &&
    typeof body.error.message === 'string' &&
    codes.has(body.error.code);
  if (!envelope) return `not the error envelope: ${where}`;
  const expectedStatus = (errorTable as Record<string, { status: number }>)[body.error.code].status;
  if (expectedStatus !== reply.status) return `status ${reply.status} does not belong to ${body.error.code}: ${where}`;
  return null;
}

async function check(req: RawRequest): Promise<void> {
  const reply = await send(req);
  const problem = violation(req, reply);
  expect(problem).toBeNull();
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
// Node refuses request heads over 16 KB itself (431, before the application): stay below that
const headerValue = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: printable, maxLength: 80 }) },
  { weight: 1, arbitrary: fc.string({ unit: printable, minLength: 200, maxLength: 1000 }) },
);

/** Path segments as written by a confused or hostile client; `%` sequences left raw. */
const segment = fc.oneof(
  fc.constantFrom(
    '',
    '.',
    '..',
    '%',
    '%%',
    '%zz',
    '%E0%A4%A',
    '%C0%AE%C0%AE',
    '%2e%2e',
    '%2F',
    '%00',
    '%FF',
    '%ff%fe',
    '%u2028',
    '~',
    '*',
    '@',
    ':',
    '::',
    ';',
    ',',
    "'",
    '"',
    '{}',
    '$',
    '!',
    '+',
    '(',
    ')',
  ),
  fc.constantFrom(
    '8.8.8.8',
    '::ffff:8.8.8.8',
    '2001:db8::1',
    '00:00:0c:12:34:56',
    '0000.0c12.3456',
    '00000c',
    'batch',
    'search',
    'ip',
    'mac',
    'blacklist',
    'usage',
    'v1',
    'admin',
    'keys',
    'accounts',
    'roll',
    'health',
    'metrics',
  ),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4Extended(),
  fc.integer({ min: 1, max: 6_000 }).map((n) => 'a'.repeat(n)),
  fc.integer({ min: 1, max: 1_000 }).map((n) => '%41'.repeat(n)),
);

/** Escapes what node:http refuses in a request target (outside 0x21–0x7e), keeping `%` as written. */
function rawPath(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    out += code >= 0x21 && code <= 0x7e ? ch : encodeURIComponent(ch);
  }
  return out;
}

const queryPart = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    'pretty',
    'pretty=0',
    'pretty=false',
    'fields=',
    'fields=,,',
    'fields=location.city',
    'fields=a..b',
    'fields=%',
    'q=',
    'q=a',
    'q=cisco',
    'vendor=apple',
    'ips=',
    'ips=8.8.8.8,1.1.1.1',
    'key=',
    'key=%',
    'fields=__proto__',
    'fields=constructor.prototype',
    'q=%zz',
    'fields=location&fields=network',
  ),
  fc
    .tuple(fc.constantFrom('fields', 'q', 'vendor', 'ips', 'key', 'pretty', 'x'), fc.string({ maxLength: 40 }))
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`),
  fc.string({ maxLength: 40 }),
);

const pathArb = fc
  .oneof(
    // templates of the real routes with random parameters
    fc
      .tuple(
        fc.constantFrom(
          '/v1/ip/',
          '/v1/blacklist/',
          '/v1/mac/',
          '/v1/mac/search/',
          '/v1/ip/batch/',
          '/admin/accounts/',
          '/admin/keys/',
          '/v1/',
          '/',
        ),
        segment,
        fc.array(segment, { maxLength: 3 }),
      )
      .map(([prefix, s, more]) => prefix + [s, ...more].join('/')),
    // the real routes themselves
    fc.constantFrom(
      '/v1',
      '/v1/',
      '/v1/ip',
      '/v1/ip/batch',
      '/v1/blacklist/batch',
      '/v1/mac/search',
      '/v1/usage',
      '/health',
      '/metrics',
      '/openapi.json',
      '/admin/accounts',
      '/v1/ip/8.8.8.8',
      '/v1/mac/00:00:0c:12:34:56',
    ),
    // anything
    fc.array(segment, { minLength: 0, maxLength: 6 }).map((parts) => `/${parts.join('/')}`),
  )
  .chain((p) => queryPart.map((q) => (q ? `${p}?${q}` : p)));

const methodArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'POST') },
  { weight: 2, arbitrary: fc.constantFrom('PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD') },
  // methods Node's HTTP parser knows (an unknown token such as FOO never reaches the application:
  // Node itself answers a bare 400 and closes the connection)
  { weight: 1, arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'PURGE', 'SEARCH', 'LINK') },
);

/** `$pro`, `$free`, `$restricted` stand for the secrets (filled in when sent: readable counterexamples). */
const keyValue = fc.oneof(fc.constantFrom('$pro', '$free', '$restricted'), headerValue, fc.stringMatching(/^nlk_[0-9a-f]{40}$/));

const headersArb = fc.record(
  {
    'x-api-key': keyValue,
    authorization: fc.oneof(
      keyValue.map((k) => `Bearer ${k}`),
      fc.constant('Bearer $admin'),
      headerValue,
      fc.constant('Basic dXNlcjpwYXNz'),
    ),
    origin: fc.oneof(
      fc.constantFrom(
        'https://example.com',
        'https://a.example.org',
        'https://evil.com',
        'null',
        '',
        'http://[::1]:80',
        'https://exa mple.com',
        'file://',
        'https://example.com:99999',
      ),
      headerValue,
    ),
    referer: fc.oneof(fc.constantFrom('https://example.com/x', 'not a url', '//example.com'), headerValue),
    'content-type': fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'application/json; charset=utf-7',
        'application/json; charset=nope',
        'application/x-www-form-urlencoded',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/xml',
        'application/vnd.api+json',
        'application/csp-report',
        '*/*',
        '',
      ),
      headerValue,
    ),
    'x-forwarded-for': fc.oneof(fc.ipV4(), fc.ipV6(), headerValue),
    'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-nope'),
    'access-control-request-method': fc.constantFrom('GET', 'POST', 'DELETE', ''),
  },
  { requiredKeys: [] },
);

const deepJson = fc.tuple(fc.integer({ min: 1, max: 300_000 }), fc.boolean()).map(([depth, inIps]) => {
  const nested = '['.repeat(depth) + ']'.repeat(depth);
  return inIps ? `{"ips": [${nested}]}` : nested;
});

/** A request body as text (utf8) or raw bytes (latin1, one char per byte): readable in counterexamples. */
type Body = { utf8: string } | { latin1: string } | undefined;
const utf8 = (text: string): Body => ({ utf8: text });

const bodyArb: fc.Arbitrary<Body> = fc.oneof(
  fc.constant(undefined),
  fc.uint8Array({ maxLength: 2000 }).map((b) => ({ latin1: Buffer.from(b).toString('latin1') })),
  fc.jsonValue({ maxDepth: 6 }).map((v) => utf8(JSON.stringify(v))),
  fc.record({ ips: fc.jsonValue({ maxDepth: 4 }) }).map((v) => utf8(JSON.stringify(v))),
  fc
    .tuple(
      fc.boolean(),
      fc.array(
        fc.oneof(
          fc.ipV4(),
          fc.ipV6(),
          fc.string({ maxLength: 20 }),
          fc.integer(),
          fc.constant(null),
          fc.object({ maxDepth: 2 }),
          fc.boolean(),
        ),
        { maxLength: 30 },
      ),
    )
    .map(([bare, ips]) => utf8(JSON.stringify(bare ? ips : { ips }))),
  fc
    .array(fc.oneof(fc.ipV4(), fc.string({ maxLength: 20 })), { maxLength: 30 })
    .map((ips) => utf8(`ips=${encodeURIComponent(ips.join(','))}`)),
  fc.string({ maxLength: 200 }).map(utf8),
  deepJson.map(utf8),
  fc
    .constantFrom(
      '{"__proto__": {"ips": ["8.8.8.8"]}}',
      '{"constructor": {"prototype": {}}}',
      '{"ips": "8.8.8.8,,,1.1.1.1"}',
      'ips[]=8.8.8.8',
      'ips=8.8.8.8&ips=1.1.1.1',
      '\ufeff{"ips": []}',
      'null',
      '"x"',
      '1e999',
    )
    .map(utf8),
);

function materialise(method: string, path: string, headers: Record<string, string>, given: Body): RawRequest {
  const body = given === undefined ? undefined : 'utf8' in given ? Buffer.from(given.utf8, 'utf8') : Buffer.from(given.latin1, 'latin1');
  const out: Record<string, string> = {};
  const secrets: Record<string, string> = { $pro: pro, $free: free, $restricted: restricted, $admin: ADMIN_TOKEN };
  for (const [name, value] of Object.entries(headers)) out[name] = value.replace(/\$(pro|free|restricted|admin)/g, (m) => secrets[m]);
  const sent = method === 'HEAD' || method === 'TRACE' ? undefined : body;
  // an explicit length: Node's client sends neither length nor chunking for a GET body otherwise
  if (sent !== undefined) out['content-length'] = String(sent.length);
  // the request head stays under Node's 16 KB limit (path ≤ 7000, headers ≤ 8 × 1000)
  return { method, path: rawPath(path).slice(0, 7_000), headers: out, body: sent };
}

const RUNS = Number(process.env.NETLOOKUP_FUZZ_RUNS ?? 300);
/** Bounds every property, shrinking included, so that a failure does not stall the suite. */
const LIMITS = { interruptAfterTimeLimit: 15_000, markInterruptAsFailure: false } as const;

describe('fuzz: no 5xx, every refusal in the envelope', () => {
  it('random paths, methods and headers (no body)', async () => {
    await assertSeeded(
      fc.asyncProperty(methodArb, pathArb, headersArb, async (method, path, headers) => {
        const { 'content-encoding': _ce, ...rest } = headers;
        void _ce;
        await check(materialise(method, path, rest, undefined));
      }),
      { numRuns: RUNS, ...LIMITS },
    );
  });

  it('random bodies and content types on the batch routes', async () => {
    await assertSeeded(
      fc.asyncProperty(
        fc.constantFrom('/v1/ip/batch', '/v1/blacklist/batch', '/v1/ip/batch?fields=location.city', '/v1/blacklist/batch?pretty'),
        fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT'),
        headersArb,
        bodyArb,
        async (path, method, headers, body) => {
          await check(materialise(method, path, { 'x-api-key': '$pro', ...headers }, body));
        },
      ),
      { numRuns: RUNS, ...LIMITS },
    );
  });

  it('random bodies on the admin routes with the right token', async () => {
    await assertSeeded(
      fc.asyncProperty(
        fc.constantFrom(
          ['POST', '/admin/accounts'],
          ['PATCH', '/admin/accounts/ACCOUNT'],
          ['GET', '/admin/accounts/ACCOUNT'],
          ['POST', '/admin/accounts/ACCOUNT/keys'],
          ['PATCH', '/admin/keys/KEY'],
          ['POST', '/admin/keys/nope/roll'],
          ['DELETE', '/admin/keys/nope'],
        ),
        fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', ''),
        bodyArb,
        async ([method, path], contentType, body) => {
          const headers: Record<string, string> = { authorization: 'Bearer $admin' };
          if (contentType) headers['content-type'] = contentType;
          await check(materialise(method, path.replace('ACCOUNT', accountId).replace('KEY', keyId), headers, body));
        },
      ),
      { numRuns: Math.ceil(RUNS / 2), ...LIMITS },
    );
  });

  it('well-formed lookups with random parameters answer 2xx or a refusal, never 5xx', async () => {
    await assertSeeded(
      fc.asyncProperty(
        fc.oneof(fc.ipV4(), fc.ipV6(), fc.ipV4Extended(), fc.string({ maxLength: 45 })),
        fc.constantFrom('ip', 'blacklist'),
        queryPart,
        async (ip, api, query) => {
          const path = `/v1/${api}/${encodeURIComponent(ip)}${query ? `?${query}` : ''}`;
          await check({ method: 'GET', path: rawPath(path), headers: { 'x-api-key': pro } });
        },
      ),
      { numRuns: RUNS, ...LIMITS },
    );
  });

  it('MAC lookups and searches with random input', async () => {
    await assertSeeded(
      fc.asyncProperty(
        fc.oneof(fc.mixedCase(fc.stringMatching(/^[0-9a-f]{2}([:.-]?[0-9a-f]{2}){2,7}$/)), fc.string({ maxLength: 30 })),
        fc.constantFrom('lookup', 'q', 'vendor'),
        async (text, how) => {
          const path = how === 'lookup' ? `/v1/mac/${encodeURIComponent(text)}` : `/v1/mac/search?${how}=${encodeURIComponent(text)}`;
          await check({ method: 'GET', path: rawPath(path), headers: { 'x-api-key': pro } });
        },
      ),
      { numRuns: RUNS, ...LIMITS },
    );
  });
});
