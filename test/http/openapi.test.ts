/**
 * The OpenAPI document (src/http/openapi/openApi.ts) against the running service.
 *
 * 1. The document itself: OpenAPI 3.1 structure, every $ref resolves, every schema is valid JSON
 *    Schema 2020-12, error codes come from errorTable, and the operations are exactly the routes
 *    registered in the Koa routers (read from their `stack`).
 * 2. Real traffic: the service is started (startService, port 0, temp data dir, admin token), a
 *    free and a business account are created through the admin API, and a broad set of requests
 *    (every endpoint, successes and each reachable refusal, both plan levels) is sent. Every
 *    response is validated against the document for its path + method + status: status listed,
 *    media type, documented headers (required ones present, values valid, no undocumented quota
 *    header), body against the schema (ajv, draft 2020-12, formats on). With `fields` the body
 *    is checked against a relaxed copy (no `required`, oneOf → anyOf; extra keys still fail).
 * 3. Records are exact: for captured bodies of every record kind, adding a key anywhere or
 *    removing any key makes validation fail.
 *
 * The service's clock is injected and moves 1.1 s before each request, so the per-second window
 * only bites where a test holds the clock still.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { errorTable } from '../../src/errors.js';
import { SPECIAL_PURPOSE_REGISTRY } from '../../src/address/reservedRange.js';
import { configFromEnv } from '../../src/config/config.js';
import { openApiDocument } from '../../src/http/openapi/openApi.js';
import { startService, type RunningService } from '../../src/http/server.js';
import { RANGE_ROUTE, v1Router } from '../../src/http/v1/v1Routes.js';
import { adminRouter } from '../../src/http/admin/adminRoutes.js';
import { operationsRouter } from '../../src/http/operations/operationsRoutes.js';
import { legacyRouter } from '../../src/http/legacy/legacyRoutes.js';
import { METHOD_NOT_ALLOWED_ROUTE } from '../../src/http/v1/blacklistRoutes.js';
import { quotaRule } from '../../src/http/request/metering.js';
import type { Caller } from '../../src/http/request/caller.js';

type Json = any;
type Validator = ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string; params?: unknown }[] | null };

const Ajv2020 = ((Ajv2020Module as Json).default ?? Ajv2020Module) as new (options: object) => Json;
const addFormats = ((addFormatsModule as Json).default ?? addFormatsModule) as (ajv: Json) => void;

const ADMIN_TOKEN = 'openapi-test-admin-token-0123456789abcdef';
const DOC_ID = 'openapi.json';
const doc: Json = openApiDocument();
const QUOTA_HEADERS = [
  'x-plan',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-quota-limit',
  'x-quota-remaining',
  'x-quota-reset',
];
const REFUSAL_HEADERS = ['retry-after', 'allow'];
/** The legacy endpoints that take an optional key, with a keyless daily allowance. */
const LEGACY_KEYED = /^\/(lookup|api\/check|api\/export)(\.php)?$/;

// ---------------------------------------------------------------------------------------------
// JSON pointers, $refs, validators
// ---------------------------------------------------------------------------------------------

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const uriPointer = (...segments: string[]) => '#' + segments.map((s) => '/' + encodeURIComponent(escape(s))).join('');

function resolvePointer(root: Json, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`not a local $ref: ${ref}`);
  let node = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

const deref = (node: Json): Json =>
  node && typeof node === 'object' && typeof node.$ref === 'string' ? deref(resolvePointer(doc, node.$ref)) : node;

/** Every $ref in a value, with where it sits. */
function refsOf(node: Json, at = '#', out: { at: string; ref: string }[] = []): { at: string; ref: string }[] {
  if (Array.isArray(node)) node.forEach((item, i) => refsOf(item, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push({ at, ref: value });
      else refsOf(value, `${at}/${escape(key)}`, out);
    }
  }
  return out;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(doc, DOC_ID);

const validators = new Map<string, Validator>();
function validatorAt(...segments: string[]): Validator {
  const ref = DOC_ID + uriPointer(...segments);
  let v = validators.get(ref);
  if (!v) {
    v = ajv.compile({ $ref: ref }) as Validator;
    validators.set(ref, v);
  }
  return v;
}

/** The schema with every $ref inlined, `required` dropped and oneOf made anyOf: for `fields`. */
function relaxed(node: Json): Json {
  if (Array.isArray(node)) return node.map(relaxed);
  if (!node || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') {
    const { $ref, ...rest } = node;
    const target = relaxed(resolvePointer(doc, $ref));
    return Object.keys(rest).length === 0 ? target : { allOf: [target, relaxed(rest)] };
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'required' && Array.isArray(value)) continue;
    // an `if` keeps its `required`: it only selects when its condition is really there
    out[key === 'oneOf' ? 'anyOf' : key] = key === 'if' ? value : relaxed(value);
  }
  return out;
}
const relaxedValidators = new Map<string, Validator>();
function relaxedValidatorAt(...segments: string[]): Validator {
  const key = segments.join('\u0000');
  let v = relaxedValidators.get(key);
  if (!v) {
    v = ajv.compile(relaxed(resolvePointer(doc, uriPointer(...segments)))) as Validator;
    relaxedValidators.set(key, v);
  }
  return v;
}

const headerValidators = new Map<string, Validator>();
function headerValid(schema: Json, value: string): string | null {
  const key = JSON.stringify(schema);
  let v = headerValidators.get(key);
  if (!v) {
    v = ajv.compile(schema) as Validator;
    headerValidators.set(key, v);
  }
  let data: unknown = value;
  if (schema.type === 'integer' || schema.type === 'number') {
    if (!/^-?\d+(\.\d+)?$/.test(value)) return `${JSON.stringify(value)} is not a number`;
    data = Number(value);
  }
  return v(data) ? null : ajv.errorsText(v.errors);
}

function errorsOf(v: Validator): string {
  return (v.errors ?? [])
    .slice(0, 12)
    .map((e) => `${e.instancePath || '/'} ${e.message} ${e.params ? JSON.stringify(e.params) : ''}`)
    .join('; ');
}

// ---------------------------------------------------------------------------------------------
// The service and the exchange checker
// ---------------------------------------------------------------------------------------------

let service: RunningService;
let dataDir: string;
let clockMs = Date.parse('2026-03-10T08:00:00.000Z');
const now = () => new Date(clockMs);

interface Exchange {
  method: string;
  template: string;
  url: string;
  status: number;
  headers: Headers;
  text: string;
  body: Json;
}

let validated = 0;
const seenStatuses = new Set<string>();

interface CallOptions {
  key?: string;
  headers?: Record<string, string>;
  /** an object or array is sent as JSON; a string as it is (give the content type in headers) */
  body?: unknown;
  /** false: hold the clock still (rate tests) */
  tick?: boolean;
  /** check against components/responses/<name> instead of an operation (unknown paths) */
  component?: string;
}

/** Problems of one exchange against the document; empty when it fits. */
function problemsOf(ex: Exchange, component?: string): string[] {
  const problems: string[] = [];
  let response: Json;
  let bodyPointer: string[];
  if (component) {
    response = doc.components.responses[component];
    bodyPointer = ['components', 'responses', component];
    if (!response) return [`no components/responses/${component}`];
  } else {
    const operation = doc.paths[ex.template]?.[ex.method.toLowerCase()];
    if (!operation) return [`${ex.method} ${ex.template} is not in the document`];
    response = operation.responses[String(ex.status)];
    bodyPointer = ['paths', ex.template, ex.method.toLowerCase(), 'responses', String(ex.status)];
    if (!response) return [`status ${ex.status} is not documented for ${ex.method} ${ex.template} (body ${ex.text.slice(0, 200)})`];
  }
  response = deref(response);

  const documented = new Map<string, Json>();
  for (const [name, h] of Object.entries(response.headers ?? {})) documented.set(name.toLowerCase(), deref(h));
  for (const [name, h] of documented) {
    const value = ex.headers.get(name);
    if (value === null) {
      if (h.required) problems.push(`required header ${name} missing`);
      continue;
    }
    const problem = headerValid(h.schema, value);
    if (problem) problems.push(`header ${name}: ${problem}`);
  }
  for (const name of [...QUOTA_HEADERS, ...REFUSAL_HEADERS]) {
    if (ex.headers.get(name) !== null && !documented.has(name))
      problems.push(`header ${name} is sent but not documented for status ${ex.status}`);
  }

  if (ex.status === 304) return problems; // no body
  const mediaType = (ex.headers.get('content-type') ?? '').split(';')[0].trim();
  const content = response.content ?? {};
  if (!(mediaType in content)) {
    problems.push(`media type ${mediaType} is not documented (${Object.keys(content).join(', ')})`);
    return problems;
  }
  const fields = new URL(ex.url).searchParams.has('fields');
  const segments = [...bodyPointer, 'content', mediaType, 'schema'];
  const validate = fields ? relaxedValidatorAt(...segments) : validatorAt(...segments);
  const data = mediaType === 'application/json' ? ex.body : ex.text;
  if (!validate(data)) problems.push(`body: ${errorsOf(validate)} in ${ex.text.slice(0, 300)}`);
  return problems;
}

async function call(method: string, template: string, pathAndQuery: string, options: CallOptions = {}): Promise<Exchange> {
  if (options.tick !== false) clockMs += 1100;
  const headers: Record<string, string> = { ...(options.key ? { 'x-api-key': options.key } : {}), ...(options.headers ?? {}) };
  let body: string | undefined;
  if (typeof options.body === 'string') body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const url = service.url + pathAndQuery;
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
  const ex: Exchange = {
    method,
    template,
    url,
    status: response.status,
    headers: response.headers,
    text,
    body: isJson ? JSON.parse(text) : undefined,
  };
  const problems = problemsOf(ex, options.component);
  expect(problems, `${method} ${pathAndQuery} → ${ex.status}`).toEqual([]);
  validated++;
  seenStatuses.add(`${method} ${options.component ? `(${options.component})` : template} ${ex.status}`);
  return ex;
}

/** SPEC 8.3: a metered 200 carries the quota headers with the same numbers as meta.quota. */
function expectQuotaHeadersMatchMeta(ex: Exchange, plan: string) {
  const meta = ex.body.meta;
  expect(meta.plan).toBe(plan);
  expect(ex.headers.get('x-plan')).toBe(plan);
  expect(Number(ex.headers.get('x-quota-limit'))).toBe(meta.quota.limit);
  expect(Number(ex.headers.get('x-quota-remaining'))).toBe(meta.quota.remaining);
  expect(Number(ex.headers.get('x-quota-reset'))).toBe(Date.parse(meta.quota.resets_at) / 1000);
  expect(Number(ex.headers.get('x-ratelimit-limit'))).toBe(service.deps.plans[plan as 'free'].rate_limit_per_second);
  expect(meta.fields).toBe(service.deps.plans[plan as 'free'].field_level);
}

function expectError(ex: Exchange, status: number, code: string) {
  expect(ex.status, ex.text).toBe(status);
  expect(ex.body.error.code).toBe(code);
  expect(errorTable[code as keyof typeof errorTable].status).toBe(status);
}

/** Valid against one named component schema (plan-level checks beyond the operation's oneOf). */
function expectSchema(name: string, value: unknown) {
  const v = validatorAt('components', 'schemas', name);
  expect(v(value), `${name}: ${errorsOf(v)}`).toBe(true);
}

// ---------------------------------------------------------------------------------------------
// Accounts
// ---------------------------------------------------------------------------------------------

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface Created {
  accountId: string;
  keyId: string;
  secret: string;
}

async function createAccount(input: Record<string, unknown>): Promise<Created> {
  const ex = await call('POST', '/admin/accounts', '/admin/accounts', { headers: admin, body: input });
  expect(ex.status, ex.text).toBe(201);
  return { accountId: ex.body.account.id, keyId: ex.body.key.id, secret: ex.body.key.secret };
}

/** Uses up a quota through the store, as that many earlier lookups would. */
async function useUp(account: Created, plan: 'free' | 'business', api: 'ip' | 'blacklist' | 'mac') {
  const rule = quotaRule({ plan: service.deps.plans[plan] } as Caller, api);
  const decision = await service.deps.store.meter.admit({
    account_id: account.accountId,
    api,
    cost: rule.limit,
    rate_limit_per_second: 1_000_000,
    quota: rule,
    consume: true,
    now: now(),
  });
  expect(decision.outcome).toBe('admitted');
}

let free: Created;
let business: Created;
/** bodies kept for the exactness checks (section 3), by record kind */
const captured = new Map<string, { schemaPointer: string[]; body: Json }>();
function capture(kind: string, ex: Exchange) {
  if (!captured.has(kind))
    captured.set(kind, {
      schemaPointer: [
        'paths',
        ex.template,
        ex.method.toLowerCase(),
        'responses',
        String(ex.status),
        'content',
        'application/json',
        'schema',
      ],
      body: ex.body,
    });
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-openapi-'));
  const config = { ...configFromEnv({}), port: 0, host: '127.0.0.1', dataDir, adminToken: ADMIN_TOKEN, logLevel: 'silent' };
  service = await startService(config, { now });
  free = await createAccount({ plan: 'free', email: 'free@example.com' });
  business = await createAccount({ plan: 'business' });
});

afterAll(async () => {
  await service?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  console.log(`openapi.test: ${validated} responses validated against the document; ${seenStatuses.size} distinct operation/status pairs`);
});

// ---------------------------------------------------------------------------------------------
// 1. The document
// ---------------------------------------------------------------------------------------------

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1.0 with info, paths, components and the four security schemes', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(typeof doc.info.title).toBe('string');
    expect(typeof doc.info.version).toBe('string');
    expect(doc.components.securitySchemes).toEqual({
      ApiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
      ApiKeyBearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      ApiKeyQuery: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'key' }),
      AdminToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    // it is plain JSON (what GET /openapi.json sends)
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it('every $ref resolves, and every component is used', () => {
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(50);
    const broken = refs.filter(({ ref }) => resolvePointer(doc, ref) === undefined);
    expect(broken).toEqual([]);
    const used = new Set(refs.map(({ ref }) => ref));
    const unused: string[] = [];
    for (const kind of ['schemas', 'parameters', 'headers', 'responses'] as const) {
      for (const name of Object.keys(doc.components[kind] ?? {})) {
        if (kind === 'responses') continue; // NotFound is referenced by no operation (it answers unknown paths)
        // a record whose metered variant (<name>Response: the record plus meta) is what operations use
        if (kind === 'schemas' && `${name}Response` in doc.components.schemas) continue;
        if (!used.has(`#/components/${kind}/${name}`)) unused.push(`${kind}/${name}`);
      }
    }
    expect(unused).toEqual([]);
  });

  it('every schema is valid JSON Schema 2020-12 and compiles', () => {
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect(ajv.validateSchema(schema), `${name}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
      expect(() => validatorAt('components', 'schemas', name), name).not.toThrow();
    }
    for (const [name, h] of Object.entries(doc.components.headers) as [string, Json][])
      expect(ajv.validateSchema(h.schema), name).toBe(true);
    for (const [name, p] of Object.entries(doc.components.parameters) as [string, Json][])
      expect(ajv.validateSchema(p.schema), name).toBe(true);
  });

  it('operations are well formed: unique ids, declared path parameters, known security, responses with descriptions', () => {
    const ids = new Set<string>();
    for (const [template, item] of Object.entries(doc.paths) as [string, Json][]) {
      const pathParams = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      for (const [method, op] of Object.entries(item) as [string, Json][]) {
        const label = `${method} ${template}`;
        expect(['get', 'post', 'patch', 'delete', 'put'], label).toContain(method);
        expect(typeof op.operationId, label).toBe('string');
        expect(ids.has(op.operationId), `duplicate operationId ${op.operationId}`).toBe(false);
        ids.add(op.operationId);
        const params = (op.parameters ?? []).map(deref);
        expect(
          params
            .filter((p: Json) => p.in === 'path')
            .map((p: Json) => p.name)
            .sort(),
          label,
        ).toEqual(pathParams);
        for (const p of params) if (p.in === 'path') expect(p.required, label).toBe(true);
        const names = params.map((p: Json) => `${p.in}:${p.name}`);
        expect(new Set(names).size, `${label} repeats a parameter`).toBe(names.length);
        for (const requirement of op.security ?? [])
          for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes, label).toHaveProperty(scheme);
        expect(Object.keys(op.responses).length, label).toBeGreaterThan(0);
        for (const [status, response] of Object.entries(op.responses) as [string, Json][]) {
          expect(status, label).toMatch(/^[1-5]\d\d$/);
          expect(typeof deref(response).description, `${label} ${status}`).toBe('string');
        }
      }
    }
  });

  it('v1 operations accept the three key schemes and fields/pretty/key; admin takes the admin token; operations none', () => {
    for (const [template, item] of Object.entries(doc.paths) as [string, Json][]) {
      for (const [method, op] of Object.entries(item) as [string, Json][]) {
        const params = (op.parameters ?? []).map(deref).map((p: Json) => p.name);
        if (template.startsWith('/v1')) {
          expect(op.security, `${method} ${template}`).toEqual([{ ApiKeyHeader: [] }, { ApiKeyBearer: [] }, { ApiKeyQuery: [] }]);
          expect(params).toEqual(expect.arrayContaining(['key', 'pretty']));
          for (const code of ['missing_key', 'invalid_key', 'origin_not_allowed', 'account_suspended'])
            expect(codesOf(op), `${method} ${template}`).toContain(code);
        } else if (LEGACY_KEYED.test(template)) {
          expect(op.security, `${method} ${template}`).toEqual([{}, { ApiKeyHeader: [] }, { ApiKeyBearer: [] }, { ApiKeyQuery: [] }]);
          expect(params).toEqual(expect.arrayContaining(['key', 'pretty']));
          expect(codesOf(op)).toEqual(expect.arrayContaining(['invalid_key', 'origin_not_allowed', 'account_suspended', 'quota_exceeded']));
          expect(codesOf(op)).not.toContain('missing_key');
        } else if (template.startsWith('/admin')) {
          expect(op.security).toEqual([{ AdminToken: [] }]);
          expect(codesOf(op)).toContain('admin_unauthorized');
        } else {
          expect(op.security).toEqual([]);
        }
      }
    }
    for (const t of ['/v1/ip/{ip}', '/v1/ip', '/v1/blacklist/{ip}', '/v1/mac/{mac}', '/v1/usage', '/v1/ip/batch', '/v1/blacklist/batch']) {
      expect(
        (doc.paths[t].get.parameters as Json[]).map(deref).map((p) => p.name),
        t,
      ).toContain('fields');
    }
    const search = (doc.paths['/v1/mac/search'].get.parameters as Json[]).map(deref).map((p) => p.name);
    expect(search).toEqual(expect.arrayContaining(['q', 'vendor']));
  });

  it('the error code enum is errorTable, and every error response lists only codes of its status', () => {
    expect(doc.components.schemas.ErrorCode.enum).toEqual(Object.keys(errorTable));
    for (const [template, item] of Object.entries(doc.paths) as [string, Json][]) {
      for (const [method, op] of Object.entries(item) as [string, Json][]) {
        for (const [status, response] of Object.entries(op.responses) as [string, Json][]) {
          if (Number(status) < 400) continue;
          const schema = deref(response).content['application/json'].schema;
          if (schema.$ref !== '#/components/schemas/ErrorEnvelope') {
            expect(['get /health 503', 'get /api/mac/v1/health 503'], 'the health refusals have their own body').toContain(
              `${method} ${template} ${status}`,
            );
            continue;
          }
          const codes = schema.properties.error.properties.code.enum as string[];
          for (const code of codes)
            expect(errorTable[code as keyof typeof errorTable]?.status, `${method} ${template} ${status} ${code}`).toBe(Number(status));
        }
      }
    }
  });

  it('metered 200 responses document the quota headers; 429 Retry-After and X-Quota-Reset; 405 Allow', () => {
    for (const [template, item] of Object.entries(doc.paths) as [string, Json][]) {
      for (const [method, op] of Object.entries(item) as [string, Json][]) {
        const metered = template.startsWith('/v1/') && template !== '/v1/usage' && template !== '/v1/blacklist/report';
        const ok = deref(op.responses['200'] ?? op.responses['201']);
        const names = Object.keys(ok.headers ?? {}).map((h) => h.toLowerCase());
        if (metered) expect(names, `${method} ${template}`).toEqual(expect.arrayContaining(QUOTA_HEADERS));
        else if (LEGACY_KEYED.test(template)) {
          // without a key, the client address's daily allowance: on every answer, refusals too, never required
          for (const response of Object.values(op.responses) as Json[]) {
            const legacyHeaders = Object.entries(deref(response).headers) as [string, Json][];
            expect(
              legacyHeaders.filter(([name]) => QUOTA_HEADERS.includes(name.toLowerCase())).map(([name]) => name),
              `${method} ${template}`,
            ).toEqual(['X-Quota-Limit', 'X-Quota-Remaining', 'X-Quota-Reset']);
            for (const [name, h] of legacyHeaders)
              if (QUOTA_HEADERS.includes(name.toLowerCase())) expect(deref(h).required, name).not.toBe(true);
          }
        } else
          expect(
            names.filter((h) => QUOTA_HEADERS.includes(h)),
            `${method} ${template}`,
          ).toEqual([]);
        expect(names).toContain('access-control-allow-origin');
        if (op.responses['429'])
          expect(Object.keys(deref(op.responses['429']).headers)).toEqual(expect.arrayContaining(['Retry-After', 'X-Quota-Reset']));
        if (op.responses['405']) expect(Object.keys(deref(op.responses['405']).headers)).toContain('Allow');
      }
    }
  });

  it('records are closed: every object schema under a response has additionalProperties false', () => {
    const open: string[] = [];
    const walk = (node: Json, at: string, seen: Set<Json>) => {
      if (!node || typeof node !== 'object' || seen.has(node)) return;
      seen.add(node);
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`, seen));
      // siblings of a $ref only narrow the referenced schema (error.code enums); if/then only constrain
      if (typeof node.$ref === 'string') return walk(resolvePointer(doc, node.$ref), node.$ref, seen);
      if (node.properties && node.additionalProperties !== false) open.push(at);
      for (const [k, v] of Object.entries(node)) if (k !== 'if' && k !== 'then') walk(v, `${at}/${k}`, seen);
    };
    for (const [template, item] of Object.entries(doc.paths) as [string, Json][]) {
      if (template === '/openapi.json') continue; // the document itself is open
      for (const [method, op] of Object.entries(item) as [string, Json][]) {
        for (const [status, response] of Object.entries(op.responses) as [string, Json][])
          walk(deref(response).content, `${method} ${template} ${status}`, new Set());
      }
    }
    expect(open).toEqual([]);
  });

  it('documents exactly the routes registered in the Koa routers', () => {
    const routes = new Set<string>();
    const routers = [
      v1Router(service.deps),
      adminRouter(service.deps, ADMIN_TOKEN),
      operationsRouter(service.deps),
      legacyRouter(service.deps),
    ];
    for (const router of routers) {
      for (const layer of router.stack as { path: string; methods: string[]; name?: string }[]) {
        if (layer.name === METHOD_NOT_ALLOWED_ROUTE || layer.name === RANGE_ROUTE) continue;
        const template = layer.path.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1');
        for (const method of layer.methods) if (method !== 'HEAD') routes.add(`${method} ${template}`);
      }
    }
    const documented = new Set<string>();
    for (const [template, item] of Object.entries(doc.paths) as [string, Json][])
      for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${template}`);
    expect(routes.size).toBeGreaterThanOrEqual(20);
    expect(
      [...routes].filter((r) => !documented.has(r)),
      'routes missing from the document',
    ).toEqual([]);
    expect(
      [...documented].filter((r) => !routes.has(r)),
      'documented operations without a route',
    ).toEqual([]);
  });

  it('enumerations come from the code', () => {
    const s = doc.components.schemas;
    const reservedTypes = [...new Set(SPECIAL_PURPOSE_REGISTRY.map((r) => r.type))].filter((t) => t !== 'global');
    expect([...s.IpReservedResponse.properties.reserved_type.enum].sort()).toEqual([...reservedTypes].sort());
    expect(s.Meta.properties.plan.enum).toEqual(Object.keys(service.deps.plans));
    expect(s.IpNetworkBasic.properties.connection_type.enum).toContain('ixp');
    expect(s.MacBlock.properties.type.enum).toEqual(['MA-L', 'MA-M', 'MA-S']);
  });
});

function codesOf(op: Json): string[] {
  return Object.entries(op.responses)
    .filter(([status]) => Number(status) >= 400)
    .flatMap(([, r]) => deref(r).content['application/json'].schema.properties.error.properties.code.enum as string[]);
}

// ---------------------------------------------------------------------------------------------
// 2. Real traffic
// ---------------------------------------------------------------------------------------------

describe('responses of the running service match the document', () => {
  it('operations: /health, /metrics (text/plain), /openapi.json (this very document)', async () => {
    const health = await call('GET', '/health', '/health');
    expect(health.status).toBe(200);
    capture('health', health);
    await call('GET', '/health', '/health?pretty');
    const metrics = await call('GET', '/metrics', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('netlookup_requests_total');
    const served = await call('GET', '/openapi.json', '/openapi.json');
    expect(served.body).toEqual(doc);
  });

  it('the demo page (dist/demo): page, script, WASM module, compact tables gzip-encoded, revalidation, unknown files', async () => {
    const page = await call('GET', '/demo', '/demo/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('nothing you type leaves your browser');
    expect((await call('GET', '/demo', '/demo')).status).toBe(200);
    expect((await call('GET', '/demo/{file}', '/demo/demo.js')).status).toBe(200);
    const wasm = await call('GET', '/demo/{file}', '/demo/netlookup.wasm');
    expect(wasm.headers.get('content-type')).toBe('application/wasm');
    const table = await call('GET', '/demo/tables/{file}', '/demo/tables/macc.nlt', { headers: { 'accept-encoding': 'gzip' } });
    expect([table.status, table.headers.get('content-encoding')]).toEqual([200, 'gzip']);
    expect((await call('GET', '/demo/tables/{file}', '/demo/tables/manifest.json')).body.tables.macc.file).toBe('macc.nlt');
    const etag = (await call('GET', '/demo/{file}', '/demo/demo.js')).headers.get('etag')!;
    expect((await call('GET', '/demo/{file}', '/demo/demo.js', { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await call('GET', '/demo/{file}', '/demo/demo.js', { headers: { 'if-none-match': `"x", W/${etag}` } })).status).toBe(304);
    expect((await call('GET', '/demo/{file}', '/demo/demo.js', { headers: { 'if-none-match': '"x"' } })).status).toBe(200);
    expectError(await call('GET', '/demo/{file}', '/demo/nothing.js'), 404, 'not_found');
    expectError(await call('GET', '/demo/{file}', '/demo/.hidden.js'), 404, 'not_found');
    expectError(await call('GET', '/demo/tables/{file}', '/demo/tables/..%2Fdemo.js'), 404, 'not_found');
  });

  it('GET /v1: the endpoint list, with the three ways to present a key, and the key refusals', async () => {
    const list = await call('GET', '/v1', '/v1', { key: free.secret });
    expect(list.status).toBe(200);
    capture('endpointList', list);
    expect((await call('GET', '/v1', '/v1', { headers: { authorization: `Bearer ${business.secret}` } })).status).toBe(200);
    expect((await call('GET', '/v1', `/v1?key=${business.secret}`)).status).toBe(200);
    const pretty = await call('GET', '/v1', `/v1/?pretty&key=${free.secret}`);
    expect(pretty.text).toContain('\n  "success": true');
    expectError(await call('GET', '/v1', '/v1'), 401, 'missing_key');
    expectError(await call('GET', '/v1', '/v1', { key: 'not-a-key' }), 401, 'invalid_key');
    expectError(await call('GET', '/v1', '/v1', { key: `nlk_${'0'.repeat(40)}` }), 401, 'invalid_key');
  });

  it('IP lookup, free plan: basic records, reserved, not found, IPv4 and IPv6, invalid input', async () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888']) {
      const ex = await call('GET', '/v1/ip/{ip}', `/v1/ip/${encodeURIComponent(ip)}`, { key: free.secret });
      expect(ex.status).toBe(200);
      expectSchema('IpRecordBasicResponse', ex.body);
      expectQuotaHeadersMatchMeta(ex, 'free');
      capture('ipBasic', ex);
    }
    const reserved = await call('GET', '/v1/ip/{ip}', '/v1/ip/192.168.1.1', { key: free.secret });
    expectSchema('IpReservedResponse', reserved.body);
    const unknown = await call('GET', '/v1/ip/{ip}', '/v1/ip/3ffe%3A%3A1', { key: free.secret });
    expectSchema('IpNotFoundResponse', unknown.body);
    const fields = await call('GET', '/v1/ip/{ip}', '/v1/ip/8.8.8.8?fields=location.city,network.asn,nope', { key: free.secret });
    expect(Object.keys(fields.body).sort()).toEqual(['ip', 'location', 'meta', 'network', 'success', 'version']);
    for (const bad of ['not-an-ip', '999.1.1.1', '1.2.3', '2001:::1'])
      expectError(await call('GET', '/v1/ip/{ip}', `/v1/ip/${encodeURIComponent(bad)}`, { key: free.secret }), 400, 'invalid_ip');
  });

  it("IP lookup, business plan: full records, every reserved type, not found, mapped IPv6, the caller's own address", async () => {
    for (const ip of ['8.8.8.8', '1.2.3.4', '2a00:1450:4001:80b::200e', '2c0f:ffff::1', '::ffff:8.8.8.8']) {
      const ex = await call('GET', '/v1/ip/{ip}', `/v1/ip/${encodeURIComponent(ip)}`, { key: business.secret });
      expect(ex.status).toBe(200);
      expectSchema('IpRecordFullResponse', ex.body);
      expectQuotaHeadersMatchMeta(ex, 'business');
      capture('ipFull', ex);
    }
    const reservedTypes = [...new Set(SPECIAL_PURPOSE_REGISTRY.map((r) => r.type))].filter((t) => t !== 'global');
    for (const type of reservedTypes) {
      const row = SPECIAL_PURPOSE_REGISTRY.find((r) => r.type === type && !r.cidr.startsWith('0.0.0.0/32'))!;
      const address = row.cidr.split('/')[0];
      const ex = await call('GET', '/v1/ip/{ip}', `/v1/ip/${encodeURIComponent(address)}`, { key: business.secret });
      expectSchema('IpReservedResponse', ex.body);
      expect(ex.body.reserved_type, address).toBe(type);
      capture('ipReserved', ex);
    }
    for (const ip of ['192.0.0.9', '3ffe::1']) {
      const ex = await call('GET', '/v1/ip/{ip}', `/v1/ip/${encodeURIComponent(ip)}`, { key: business.secret });
      expectSchema('IpNotFoundResponse', ex.body);
      capture('ipNotFound', ex);
    }
    const mine = await call('GET', '/v1/ip', '/v1/ip', { key: business.secret });
    expect(mine.body.reserved_type).toBe('loopback');
    expectError(await call('GET', '/v1/ip', '/v1/ip'), 401, 'missing_key');
    await call('GET', '/v1/ip', '/v1/ip?fields=ip', { key: free.secret });
    await call('GET', '/v1/ip/{ip}', '/v1/ip/8.8.8.8?fields=timezone,security.is_hosting,country_info.tld', { key: business.secret });
    await call('GET', '/v1/ip/{ip}', '/v1/ip/10.1.2.3?fields=reserved_type', { key: business.secret });
    expectError(await call('GET', '/v1/ip/{ip}', '/v1/ip/example.com', { key: business.secret }), 400, 'invalid_ip');
  });

  it('blacklist check: both plans, IPv4 and IPv6, fields, invalid input', async () => {
    for (const [key, plan] of [
      [free.secret, 'free'],
      [business.secret, 'business'],
    ] as const) {
      for (const ip of ['8.8.8.8', '2001:db8::1', '10.0.0.1']) {
        const ex = await call('GET', '/v1/blacklist/{ip}', `/v1/blacklist/${encodeURIComponent(ip)}`, { key });
        expect(ex.status).toBe(200);
        expectQuotaHeadersMatchMeta(ex, plan);
        capture('blacklist', ex);
      }
      await call('GET', '/v1/blacklist/{ip}', '/v1/blacklist/8.8.4.4?fields=listed', { key });
      expectError(await call('GET', '/v1/blacklist/{ip}', '/v1/blacklist/nope', { key }), 400, 'invalid_ip');
    }
  });

  it('MAC lookup: found, not found, prefixes, every input format, both plans, invalid input', async () => {
    const inputs = [
      '3C:22:FB:12:34:56',
      '3c-22-fb-12-34-56',
      '3c22.fb12.3456',
      '3c22fb123456',
      '00:1A:2B',
      '001A2B',
      '70B3D5123',
      '10:06:48:7',
      '70:B3:D5:00:1',
      '70b3.d500.1',
      '02:42:ac:11:00:02',
      '01:00:5E:00:00:01',
      '00:50:56:12:34:56',
      '00:50:C2:7D:51:23',
      '10:00:00:12:34:56',
      '40:D8:55:12:F0:01',
    ];
    for (const [key, plan, kind] of [
      [free.secret, 'free', 'macBasic'],
      [business.secret, 'business', 'macFull'],
    ] as const) {
      for (const mac of inputs) {
        const ex = await call('GET', '/v1/mac/{mac}', `/v1/mac/${encodeURIComponent(mac)}`, { key });
        expect(ex.status, mac).toBe(200);
        expectSchema(plan === 'free' ? 'MacRecordBasicResponse' : 'MacRecordFullResponse', ex.body);
        expectQuotaHeadersMatchMeta(ex, plan);
        capture(ex.body.found ? kind : `${kind}NotFound`, ex);
        if (mac.length <= 9) expect(ex.body.normalized).toBeNull();
      }
      await call('GET', '/v1/mac/{mac}', '/v1/mac/3C:22:FB:12:34:56?fields=vendor.company,block', { key });
      for (const bad of ['zz', '00:11', '00:11:22:33:44:55:66', 'gg:hh:ii'])
        expectError(await call('GET', '/v1/mac/{mac}', `/v1/mac/${encodeURIComponent(bad)}`, { key }), 400, 'invalid_mac');
    }
  });

  it('MAC search: results, the vendor alias, no results, short query, free plan', async () => {
    const apple = await call('GET', '/v1/mac/search', '/v1/mac/search?q=apple', { key: business.secret });
    expect(apple.status).toBe(200);
    expect(apple.body.count).toBe(apple.body.results.length);
    for (const r of apple.body.results) expect(r.company.toLowerCase()).toContain('apple');
    const companies = (apple.body.results as Json[]).map((r) => r.company as string);
    expect(companies).toEqual([...companies].sort((a, b) => a.localeCompare(b, 'en'))); // SPEC 4.7: ordered by company name
    expectQuotaHeadersMatchMeta(apple, 'business');
    capture('macSearch', apple);
    const cisco = await call('GET', '/v1/mac/search', '/v1/mac/search?vendor=cisco&pretty', { key: business.secret });
    expect(cisco.body.query).toBe('cisco');
    expect((await call('GET', '/v1/mac/search', '/v1/mac/search?q=zzqqxxyy', { key: business.secret })).body.count).toBe(0);
    expectError(await call('GET', '/v1/mac/search', '/v1/mac/search?q=a', { key: business.secret }), 400, 'invalid_query');
    expectError(await call('GET', '/v1/mac/search', '/v1/mac/search', { key: business.secret }), 400, 'invalid_query');
    expectError(await call('GET', '/v1/mac/search', '/v1/mac/search?q=apple', { key: free.secret }), 402, 'plan_required');
    const page = await call('GET', '/v1/mac/search', '/v1/mac/search?q=apple&offset=100&limit=10', { key: business.secret });
    expect(page.body).toMatchObject({ total: apple.body.total, offset: 100, limit: 10, count: 10 });
    const past = await call('GET', '/v1/mac/search', `/v1/mac/search?q=apple&offset=${apple.body.total}`, { key: business.secret });
    expect(past.body).toMatchObject({ total: apple.body.total, count: 0, results: [] });
    for (const paging of ['limit=0', 'limit=101', 'offset=-1', 'offset=x'])
      expectError(await call('GET', '/v1/mac/search', `/v1/mac/search?q=apple&${paging}`, { key: business.secret }), 400, 'invalid_input');
  });

  it('AS lookup: both plans, the three input forms, paging, not found, fields, invalid input', async () => {
    for (const [key, plan] of [
      [free.secret, 'free'],
      [business.secret, 'business'],
    ] as const) {
      for (const asn of ['AS15169', 'as13335', '3320']) {
        const ex = await call('GET', '/v1/asn/{asn}', `/v1/asn/${asn}`, { key });
        expect(ex.status, asn).toBe(200);
        expectSchema(plan === 'free' ? 'AsnRecordBasicResponse' : 'AsnRecordFullResponse', ex.body);
        expectQuotaHeadersMatchMeta(ex, plan);
        capture(plan === 'free' ? 'asnBasic' : 'asnFull', ex);
      }
      const unknown = await call('GET', '/v1/asn/{asn}', '/v1/asn/AS4294967295', { key });
      expectSchema('AsnNotFoundResponse', unknown.body);
      capture('asnNotFound', unknown);
      await call('GET', '/v1/asn/{asn}', '/v1/asn/AS15169?offset=70&limit=5&fields=name,prefixes.results', { key });
      expectError(await call('GET', '/v1/asn/{asn}', '/v1/asn/AS0', { key }), 400, 'invalid_asn');
      expectError(await call('GET', '/v1/asn/{asn}', '/v1/asn/AS15169?limit=1001', { key }), 400, 'invalid_input');
    }
  });

  it('IP batch: the three body forms, GET ?ips=, duplicates, invalid entries, fields, and every refusal', async () => {
    const ips = [
      '8.8.8.8',
      '8.8.8.8',
      ' 8.8.8.8 ',
      '::ffff:8.8.8.8',
      '2a00:1450:4001:80b::200e',
      '10.0.0.1',
      '3ffe::1',
      'bogus',
      '1.1.1.1',
    ];
    const object = await call('POST', '/v1/ip/batch', '/v1/ip/batch', { key: business.secret, body: { ips } });
    expect(object.status).toBe(200);
    expect(object.body.count).toBe(object.body.results.length);
    expect(object.body.results.map((r: Json) => r.ip)).toEqual([
      '8.8.8.8',
      '2a00:1450:4001:80b::200e',
      '10.0.0.1',
      '3ffe::1',
      'bogus',
      '1.1.1.1',
    ]);
    expect(object.body.results[4]).toEqual({
      success: false,
      input: 'bogus',
      ip: 'bogus',
      error: { code: 'invalid_ip', message: errorTable.invalid_ip.message },
    });
    expect(object.body.meta.quota.used).toBeGreaterThan(0);
    expectQuotaHeadersMatchMeta(object, 'business');
    capture('ipBatch', object);
    const array = await call('POST', '/v1/ip/batch', '/v1/ip/batch', {
      key: business.secret,
      body: ['1.2.3.4', 42, null, { ip: '1.1.1.1' }, '2001:db8::5'],
    });
    expect(array.body.results.filter((r: Json) => r.success === false).length).toBe(3);
    const form = await call('POST', '/v1/ip/batch', '/v1/ip/batch', {
      key: business.secret,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'ips=8.8.8.8,,1.1.1.1,x',
    });
    expect(form.body.count).toBe(3);
    const commaString = await call('POST', '/v1/ip/batch', '/v1/ip/batch', { key: business.secret, body: { ips: '8.8.8.8, 9.9.9.9' } });
    expect(commaString.body.count).toBe(2);
    const viaGet = await call('GET', '/v1/ip/batch', '/v1/ip/batch?ips=8.8.8.8,bad,192.168.0.1', { key: business.secret });
    expect(viaGet.body.count).toBe(3);
    await call('POST', '/v1/ip/batch', '/v1/ip/batch?fields=location.country_code,network', { key: business.secret, body: ips });
    await call('GET', '/v1/ip/batch', '/v1/ip/batch?ips=8.8.8.8,10.0.0.1&fields=version', { key: business.secret });
    await call('GET', '/v1/ip/batch', '/v1/ip/batch?ips=8.8.8.8,3ffe::1&ips=1.1.1.1', { key: business.secret });
    for (const type of ['application/x-www-form-urlencoded', 'text/plain']) {
      const sent = await call('POST', '/v1/ip/batch', '/v1/ip/batch', {
        key: business.secret,
        headers: { 'content-type': type },
        body: JSON.stringify(['10.0.0.1', '64:ff9b::1', '::ffff:8.8.8.8']),
      });
      expect(sent.body.results.map((r: Json) => r.input)).toEqual(['10.0.0.1', '64:ff9b::1', '::ffff:8.8.8.8']);
    }

    const withoutIps = await call('GET', '/v1/ip/batch', '/v1/ip/batch', { key: business.secret });
    expectError(withoutIps, 405, 'method_not_allowed');
    expect(withoutIps.headers.get('allow')).toBe('POST');
    expectError(await call('POST', '/v1/ip/batch', '/v1/ip/batch', { key: free.secret, body: { ips: ['8.8.8.8'] } }), 402, 'plan_required');
    expectError(await call('GET', '/v1/ip/batch', '/v1/ip/batch?ips=8.8.8.8', { key: free.secret }), 402, 'plan_required');
    expectError(await call('POST', '/v1/ip/batch', '/v1/ip/batch', { key: business.secret, body: {} }), 400, 'empty_batch');
    expectError(await call('POST', '/v1/ip/batch', '/v1/ip/batch', { key: business.secret, body: [] }), 400, 'empty_batch');
    expectError(await call('POST', '/v1/ip/batch', '/v1/ip/batch', { key: business.secret }), 400, 'empty_batch');
    const tooMany = Array.from(
      { length: service.deps.plans.business.max_batch + 1 },
      (_, i) => `11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    );
    expectError(await call('POST', '/v1/ip/batch', '/v1/ip/batch', { key: business.secret, body: tooMany }), 400, 'batch_too_large');
    expectError(await call('POST', '/v1/ip/batch', '/v1/ip/batch', { key: business.secret, body: { ips: 5 } }), 400, 'invalid_body');
    // a body that is neither JSON nor an ips form field: malformed when declared as form, unsupported as text/plain
    for (const [type, status, code] of [
      ['application/x-www-form-urlencoded', 400, 'invalid_body'],
      ['text/plain', 415, 'unsupported_media_type'],
    ] as const) {
      const body = '8.8.8.8';
      expectError(
        await call('POST', '/v1/ip/batch', '/v1/ip/batch', { key: business.secret, headers: { 'content-type': type }, body }),
        status,
        code,
      );
    }
    const huge = JSON.stringify({ ips: Array(service.deps.config.bodyLimitBytes / 8).fill('1.1.1.1') });
    expectError(
      await call('POST', '/v1/ip/batch', '/v1/ip/batch', {
        key: business.secret,
        headers: { 'content-type': 'application/json' },
        body: huge,
      }),
      413,
      'body_too_large',
    );
    expectError(await call('POST', '/v1/ip/batch', '/v1/ip/batch', { body: ['8.8.8.8'] }), 401, 'missing_key');
  });

  it('blacklist batch: body forms, GET ?ips=, invalid entries, refusals', async () => {
    const object = await call('POST', '/v1/blacklist/batch', '/v1/blacklist/batch', {
      key: business.secret,
      body: { ips: ['8.8.8.8', '2001:db8::1', 'nope', '8.8.8.8'] },
    });
    expect(object.body.count).toBe(3);
    expectQuotaHeadersMatchMeta(object, 'business');
    capture('blacklistBatch', object);
    await call('POST', '/v1/blacklist/batch', '/v1/blacklist/batch', { key: business.secret, body: ['1.1.1.1', 7] });
    await call('POST', '/v1/blacklist/batch', '/v1/blacklist/batch', {
      key: business.secret,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'ips=1.1.1.1,9.9.9.9',
    });
    await call('GET', '/v1/blacklist/batch', '/v1/blacklist/batch?ips=1.1.1.1,x', { key: business.secret });
    await call('POST', '/v1/blacklist/batch', '/v1/blacklist/batch?fields=listed', { key: business.secret, body: ['1.1.1.1', 'x'] });
    expectError(await call('GET', '/v1/blacklist/batch', '/v1/blacklist/batch', { key: business.secret }), 405, 'method_not_allowed');
    expectError(
      await call('POST', '/v1/blacklist/batch', '/v1/blacklist/batch', { key: free.secret, body: ['1.1.1.1'] }),
      402,
      'plan_required',
    );
    expectError(
      await call('POST', '/v1/blacklist/batch', '/v1/blacklist/batch', { key: business.secret, body: { ips: [] } }),
      400,
      'empty_batch',
    );
    const tooMany = Array.from({ length: service.deps.plans.business.max_batch + 1 }, (_, i) => `12.0.${(i >> 8) & 255}.${i & 255}`);
    expectError(
      await call('POST', '/v1/blacklist/batch', '/v1/blacklist/batch', { key: business.secret, body: tooMany }),
      400,
      'batch_too_large',
    );
    expectError(
      await call('POST', '/v1/blacklist/batch', '/v1/blacklist/batch', {
        key: business.secret,
        headers: { 'content-type': 'application/xml' },
        body: '<ips/>',
      }),
      415,
      'unsupported_media_type',
    );
  });

  it('blacklist report, listed records, exports with conditional GET, admin deletion', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const saved = await call('POST', '/v1/blacklist/report', '/v1/blacklist/report', {
      key: business.secret,
      body: { ip: '45.95.1.1', threat_type: 'brute-force', comment: 'sshd' },
    });
    expect(saved.status).toBe(201);
    capture('blacklistReport', saved);
    const merged = await call('POST', '/v1/blacklist/report', '/v1/blacklist/report?pretty', {
      key: business.secret,
      headers: form,
      body: 'ip=45.95.1.1&categories=18,22',
    });
    expect(merged.status).toBe(200);
    await call('POST', '/v1/blacklist/report', '/v1/blacklist/report', {
      key: free.secret,
      body: { ip: '2a01:4f8::95', category: 14, timestamp: Math.floor(now().getTime() / 1000) - 60 },
    });
    expectError(
      await call('POST', '/v1/blacklist/report', '/v1/blacklist/report', { key: business.secret, body: { ip: 'x', threat_type: 'spam' } }),
      400,
      'invalid_ip',
    );
    expectError(
      await call('POST', '/v1/blacklist/report', '/v1/blacklist/report', {
        key: business.secret,
        body: { ip: '10.0.0.1', threat_type: 'spam' },
      }),
      400,
      'reserved_ip',
    );
    expectError(
      await call('POST', '/v1/blacklist/report', '/v1/blacklist/report', {
        key: business.secret,
        body: { ip: '45.95.1.2', threat_type: 'rude' },
      }),
      400,
      'invalid_report',
    );
    expectError(
      await call('POST', '/v1/blacklist/report', '/v1/blacklist/report', { body: { ip: '45.95.1.2', threat_type: 'spam' } }),
      401,
      'missing_key',
    );
    expectError(
      await call('POST', '/v1/blacklist/report', '/v1/blacklist/report', {
        key: business.secret,
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      }),
      415,
      'unsupported_media_type',
    );

    const full = await call('GET', '/v1/blacklist/{ip}', '/v1/blacklist/45.95.1.1', { key: business.secret });
    expectSchema('BlacklistListedFullResponse', full.body);
    capture('blacklistListedFull', full);
    const basic = await call('GET', '/v1/blacklist/{ip}', '/v1/blacklist/45.95.1.1', { key: free.secret });
    expectSchema('BlacklistListedBasicResponse', basic.body);
    capture('blacklistListedBasic', basic);
    await call('POST', '/v1/blacklist/batch', '/v1/blacklist/batch', {
      key: business.secret,
      body: ['45.95.1.1', '2a01:4f8::95', '45.95.1.3'],
    });
    const ip = await call('GET', '/v1/ip/{ip}', '/v1/ip/45.95.1.1', { key: business.secret });
    expect(ip.body.security.is_threat).toBe(true);

    for (const format of ['plain', 'cidr', 'ipset', 'nftables', 'iptables', 'csv', 'json']) {
      const ex = await call('GET', '/v1/blacklist/export', `/v1/blacklist/export?format=${format}&min_confidence=0`, {
        key: business.secret,
      });
      expect(ex.status, ex.text).toBe(200);
      expect(ex.text).toContain(format === 'cidr' ? '45.95.1.1/32' : '45.95.1.1');
    }
    const json = await call('GET', '/v1/blacklist/export', '/v1/blacklist/export?format=json&min_confidence=10&version=4&max_age=7d', {
      key: free.secret,
    });
    capture('blacklistExport', json);
    expect(json.body.count).toBe(json.body.addresses.length);
    const etag = json.headers.get('etag')!;
    const again = await call('GET', '/v1/blacklist/export', '/v1/blacklist/export?format=json&min_confidence=10&version=4&max_age=7d', {
      key: free.secret,
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expectError(
      await call('GET', '/v1/blacklist/export', '/v1/blacklist/export?format=pdf', { key: business.secret }),
      400,
      'invalid_input',
    );
    expectError(await call('GET', '/v1/blacklist/export', '/v1/blacklist/export'), 401, 'missing_key');

    const deleted = await call('DELETE', '/admin/blacklist/{ip}', '/admin/blacklist/2a01:4f8::95', { headers: admin });
    expect(deleted.body).toEqual({ success: true, ip: '2a01:4f8::95', deleted_reports: 1 });
    capture('adminBlacklistDeleted', deleted);
    expectError(await call('DELETE', '/admin/blacklist/{ip}', '/admin/blacklist/2a01:4f8::95', { headers: admin }), 404, 'not_found');
    expectError(await call('DELETE', '/admin/blacklist/{ip}', '/admin/blacklist/nope', { headers: admin }), 400, 'invalid_ip');
  });

  it('legacy endpoints: MAC lookup and reverse search, MAC health, compact check, export; with and without a key', async () => {
    for (const path of ['/lookup', '/lookup.php']) {
      for (const mac of ['3C:22:FB:12:34:56', '02:42:ac:11:00:02', '001A2B', '00:50:C2:7D:51:23', '10:00:00:12:34:56']) {
        const ex = await call('GET', path, `${path}?mac=${encodeURIComponent(mac)}`);
        expect(ex.status, mac).toBe(200);
        expectSchema('LegacyMacAnswer', ex.body);
        capture(`legacyMac${ex.body.found ? '' : 'NotFound'}`, ex);
      }
      const vendor = await call('GET', path, `${path}?vendor=apple`, { key: free.secret });
      expectSchema('LegacyVendorAnswer', vendor.body);
      expect(vendor.body.count).toBeGreaterThan(0);
      capture('legacyVendor', vendor);
      expectError(await call('GET', path, `${path}?mac=zz`), 400, 'invalid_mac');
      expectError(await call('GET', path, `${path}?vendor=a`), 400, 'invalid_query');
      expectError(await call('GET', path, path), 400, 'invalid_input');
      expectError(await call('GET', path, `${path}?mac=001A2B`, { key: 'not-a-key' }), 401, 'invalid_key');
    }
    const health = await call('GET', '/api/mac/v1/health', '/api/mac/v1/health');
    expect(health.status).toBe(200);
    capture('legacyMacHealth', health);
    for (const path of ['/api/check', '/api/check.php']) {
      const listed = await call('GET', path, `${path}?ip=45.95.1.1`);
      expectSchema('LegacyCheckAnswer', listed.body);
      capture('legacyCheck', listed);
      await call('GET', path, `${path}?ip=2001:db8::1`, { key: business.secret });
      expectError(await call('GET', path, `${path}?ip=nope`), 400, 'invalid_ip');
    }
    for (const path of ['/api/export', '/api/export.php']) {
      const json = await call('GET', path, `${path}?format=json`);
      expect(json.status).toBe(200);
      await call('GET', path, `${path}?format=nftables&version=4`, { key: business.secret });
      expect((await call('GET', path, `${path}?format=json`, { headers: { 'if-none-match': json.headers.get('etag')! } })).status).toBe(
        304,
      );
      expectError(await call('GET', path, `${path}?format=pdf`), 400, 'invalid_input');
    }
  });

  it('usage: free (daily_quota) and paid (monthly_quota), fields, an expired paid plan acts as free', async () => {
    const f = await call('GET', '/v1/usage', '/v1/usage', { key: free.secret });
    expectSchema('UsageFree', f.body);
    capture('usageFree', f);
    const b = await call('GET', '/v1/usage', '/v1/usage/', { key: business.secret });
    expectSchema('UsagePaid', b.body);
    capture('usagePaid', b);
    await call('GET', '/v1/usage', '/v1/usage?fields=today.ip,plan', { key: business.secret });
    const expired = await createAccount({ plan: 'starter', expires_at: '2026-01-01T00:00:00Z' });
    const usage = await call('GET', '/v1/usage', '/v1/usage', { key: expired.secret });
    expect(usage.body.plan.code).toBe('free');
    expectSchema('UsageFree', usage.body);
    const lookup = await call('GET', '/v1/ip/{ip}', '/v1/ip/8.8.8.8', { key: expired.secret });
    expectSchema('IpRecordBasicResponse', lookup.body);
    expectQuotaHeadersMatchMeta(lookup, 'free');
    expectError(await call('GET', '/v1/usage', '/v1/usage', { key: 'x' }), 401, 'invalid_key');
  });

  it('429 rate_limited with Retry-After, counted as rejected in /v1/usage', async () => {
    const account = await createAccount({ plan: 'free' });
    const statuses: number[] = [];
    let limited: Exchange | undefined;
    for (let i = 0; i < service.deps.plans.free.rate_limit_per_second + 2; i++) {
      const ex = await call('GET', '/v1/ip/{ip}', '/v1/ip/8.8.8.8', { key: account.secret, tick: false });
      statuses.push(ex.status);
      if (ex.status === 429) limited = ex;
    }
    expect(statuses).toContain(429);
    expectError(limited!, 429, 'rate_limited');
    expect(limited!.headers.get('retry-after')).toBe('1');
    await call('GET', '/v1/mac/search', '/v1/mac/search?q=apple', { key: account.secret, tick: false }).then((ex) =>
      expect([402, 429]).toContain(ex.status),
    );
    const usage = await call('GET', '/v1/usage', '/v1/usage', { key: account.secret });
    expect(usage.body.today.rejected).toBeGreaterThanOrEqual(1);
  });

  it('429 quota_exceeded with X-Quota-Reset, free (per API) and paid (pooled)', async () => {
    const f = await createAccount({ plan: 'free' });
    await useUp(f, 'free', 'mac');
    const refused = await call('GET', '/v1/mac/{mac}', '/v1/mac/3C:22:FB:12:34:56', { key: f.secret });
    expectError(refused, 429, 'quota_exceeded');
    expect(Number(refused.headers.get('x-quota-reset'))).toBeGreaterThan(clockMs / 1000);
    expect((await call('GET', '/v1/ip/{ip}', '/v1/ip/8.8.8.8', { key: f.secret })).status).toBe(200); // each API its own allowance
    expect((await call('GET', '/v1/usage', '/v1/usage', { key: f.secret })).status).toBe(200); // usage is not quota limited
    const b = await createAccount({ plan: 'business' });
    await useUp(b, 'business', 'ip');
    expectError(await call('GET', '/v1/blacklist/{ip}', '/v1/blacklist/8.8.8.8', { key: b.secret }), 429, 'quota_exceeded');
    expectError(await call('POST', '/v1/ip/batch', '/v1/ip/batch', { key: b.secret, body: ['8.8.8.8'] }), 429, 'quota_exceeded');
  });

  it('403 account_suspended and origin_not_allowed; key roll and delete (401 for the old secrets)', async () => {
    const s = await createAccount({ plan: 'free' });
    const suspended = await call('PATCH', '/admin/accounts/{id}', `/admin/accounts/${s.accountId}`, {
      headers: admin,
      body: { suspended: true },
    });
    expect(suspended.body.account.suspended).toBe(true);
    capture('adminAccount', suspended);
    expectError(await call('GET', '/v1/ip/{ip}', '/v1/ip/8.8.8.8', { key: s.secret }), 403, 'account_suspended');
    expectError(await call('GET', '/v1/usage', '/v1/usage', { key: s.secret }), 403, 'account_suspended');

    const web = await call('POST', '/admin/accounts/{id}/keys', `/admin/accounts/${business.accountId}/keys`, {
      headers: admin,
      body: { name: 'web', websites: ['example.com', '*.example.org'] },
    });
    expect(web.status).toBe(201);
    capture('adminKeySecret', web);
    const secret = web.body.key.secret as string;
    expectError(
      await call('GET', '/v1/ip/{ip}', '/v1/ip/8.8.8.8', { key: secret, headers: { origin: 'https://evil.test' } }),
      403,
      'origin_not_allowed',
    );
    expectError(await call('GET', '/v1/ip/{ip}', '/v1/ip/8.8.8.8', { key: secret }), 403, 'origin_not_allowed');
    expect(
      (await call('GET', '/v1/ip/{ip}', '/v1/ip/8.8.8.8', { key: secret, headers: { origin: 'https://app.example.org' } })).status,
    ).toBe(200);
    expect(
      (await call('GET', '/v1/mac/{mac}', '/v1/mac/001A2B', { key: secret, headers: { referer: 'https://example.com/page' } })).status,
    ).toBe(200);

    const rolled = await call('POST', '/admin/keys/{id}/roll', `/admin/keys/${web.body.key.id}/roll`, { headers: admin });
    expect(rolled.body.key.secret).not.toBe(secret);
    expect(rolled.body.key.websites).toEqual(['example.com', '*.example.org']);
    expectError(
      await call('GET', '/v1/ip/{ip}', '/v1/ip/8.8.8.8', { key: secret, headers: { origin: 'https://example.com' } }),
      401,
      'invalid_key',
    );
    expect(
      (await call('GET', '/v1/ip/{ip}', '/v1/ip/8.8.8.8', { key: rolled.body.key.secret, headers: { origin: 'https://example.com' } }))
        .status,
    ).toBe(200);

    const deleted = await call('DELETE', '/admin/keys/{id}', `/admin/keys/${web.body.key.id}`, { headers: admin });
    expect(deleted.body).toEqual({ success: true, deleted: web.body.key.id });
    capture('adminKeyDeleted', deleted);
    expectError(await call('GET', '/v1/usage', '/v1/usage', { key: rolled.body.key.secret }), 401, 'invalid_key');
    expectError(await call('DELETE', '/admin/keys/{id}', `/admin/keys/${web.body.key.id}`, { headers: admin }), 404, 'not_found');
  });

  it('admin API: every route, with its refusals', async () => {
    const got = await call('GET', '/admin/accounts/{id}', `/admin/accounts/${business.accountId}`, { headers: admin });
    expect(got.body.keys.length).toBeGreaterThanOrEqual(1);
    capture('adminAccountWithKeys', got);
    await call('GET', '/admin/accounts/{id}', `/admin/accounts/${free.accountId}?pretty`, { headers: admin });
    expectError(await call('GET', '/admin/accounts/{id}', '/admin/accounts/acc_0000000000000000', { headers: admin }), 404, 'not_found');
    expectError(await call('GET', '/admin/accounts/{id}', `/admin/accounts/${free.accountId}`), 401, 'admin_unauthorized');
    expectError(
      await call('GET', '/admin/accounts/{id}', `/admin/accounts/${free.accountId}`, { headers: { authorization: 'Bearer wrong' } }),
      401,
      'admin_unauthorized',
    );

    const created = await call('POST', '/admin/accounts', '/admin/accounts', {
      headers: admin,
      body: { plan: 'pro', expires_at: '2027-01-01T00:00:00Z', email: 'pro@example.com' },
    });
    capture('adminAccountCreated', created);
    expect((await call('POST', '/admin/accounts', '/admin/accounts', { headers: admin })).status).toBe(201);
    expectError(await call('POST', '/admin/accounts', '/admin/accounts', { headers: admin, body: { plan: 'gold' } }), 400, 'invalid_input');
    expectError(
      await call('POST', '/admin/accounts', '/admin/accounts', { headers: admin, body: { expires_at: 'someday' } }),
      400,
      'invalid_input',
    );
    expectError(await call('POST', '/admin/accounts', '/admin/accounts', { headers: admin, body: ['free'] }), 400, 'invalid_input');
    expectError(
      await call('POST', '/admin/accounts', '/admin/accounts', { headers: { authorization: 'Basic x' }, body: {} }),
      401,
      'admin_unauthorized',
    );

    const patched = await call('PATCH', '/admin/accounts/{id}', `/admin/accounts/${created.body.account.id}`, {
      headers: admin,
      body: { plan: 'starter', email: null, expires_at: null },
    });
    expect(patched.body.account.plan).toBe('starter');
    expectError(
      await call('PATCH', '/admin/accounts/{id}', `/admin/accounts/${created.body.account.id}`, {
        headers: admin,
        body: { suspended: 'yes' },
      }),
      400,
      'invalid_input',
    );
    expectError(
      await call('PATCH', '/admin/accounts/{id}', '/admin/accounts/acc_0000000000000000', {
        headers: admin,
        body: { email: 'x@example.com' },
      }),
      404,
      'not_found',
    );

    expectError(
      await call('POST', '/admin/accounts/{id}/keys', `/admin/accounts/${free.accountId}/keys`, {
        headers: admin,
        body: { name: 'second' },
      }),
      409,
      'key_limit',
    );
    expectError(
      await call('POST', '/admin/accounts/{id}/keys', '/admin/accounts/acc_0000000000000000/keys', { headers: admin, body: {} }),
      404,
      'not_found',
    );
    expectError(
      await call('POST', '/admin/accounts/{id}/keys', `/admin/accounts/${business.accountId}/keys`, { headers: admin, body: { name: '' } }),
      400,
      'invalid_input',
    );
    expectError(
      await call('POST', '/admin/accounts/{id}/keys', `/admin/accounts/${business.accountId}/keys`, {
        headers: admin,
        body: { websites: ['https://bad/path'] },
      }),
      400,
      'invalid_input',
    );
    const key = await call('POST', '/admin/accounts/{id}/keys', `/admin/accounts/${business.accountId}/keys`, { headers: admin, body: {} });
    expect(key.status).toBe(201);

    const renamed = await call('PATCH', '/admin/keys/{id}', `/admin/keys/${key.body.key.id}`, {
      headers: admin,
      body: { name: 'renamed', websites: ['*.example.net'] },
    });
    expect(renamed.body.key).toMatchObject({ name: 'renamed', websites: ['*.example.net'] });
    capture('adminKey', renamed);
    expectError(
      await call('PATCH', '/admin/keys/{id}', `/admin/keys/${key.body.key.id}`, { headers: admin, body: { websites: 'example.com' } }),
      400,
      'invalid_input',
    );
    expectError(
      await call('PATCH', '/admin/keys/{id}', '/admin/keys/key_0000000000000000', { headers: admin, body: { name: 'x' } }),
      404,
      'not_found',
    );
    expectError(await call('POST', '/admin/keys/{id}/roll', '/admin/keys/key_0000000000000000/roll', { headers: admin }), 404, 'not_found');
    expectError(await call('DELETE', '/admin/keys/{id}', `/admin/keys/${key.body.key.id}`), 401, 'admin_unauthorized');
    expectError(
      await call('POST', '/admin/accounts', '/admin/accounts', {
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'x'.repeat(70_000) }),
      }),
      413,
      'body_too_large',
    );
  });

  it('unknown endpoints: 404 not_found (components/responses/NotFound)', async () => {
    for (const [method, p] of [
      ['GET', '/v1/nope'],
      ['GET', '/v1/ip/8.8.8.8/extra'],
      ['GET', '/'],
    ] as const) {
      const ex = await call(method, '', p, { key: business.secret, component: 'NotFound' });
      expectError(ex, 404, 'not_found');
    }
  });

  it('a known path with another method: 405 method_not_allowed with Allow', async () => {
    for (const [method, p, allow] of [
      ['POST', '/v1/ip/8.8.8.8', 'GET'],
      ['PUT', '/admin/accounts', 'POST'],
      ['DELETE', '/v1/usage', 'GET'],
      ['GET', '/v1/blacklist/report', 'POST'],
      ['POST', '/v1/blacklist/export', 'GET'],
    ] as const) {
      const response = await fetch(`${service.url}${p}`, { method, headers: { 'X-API-Key': business.secret } });
      expect(response.status, `${method} ${p}`).toBe(405);
      expect(response.headers.get('allow') ?? '').toContain(allow);
      expect(await response.json()).toMatchObject({ success: false, error: { code: 'method_not_allowed' } });
    }
  });

  it('every documented operation was exercised with a 2xx and at least one refusal', () => {
    for (const [template, item] of Object.entries(doc.paths) as [string, Json][]) {
      for (const method of Object.keys(item)) {
        const statuses = [...seenStatuses]
          .filter((s) => s.startsWith(`${method.toUpperCase()} ${template} `))
          .map((s) => Number(s.split(' ').pop()));
        expect(
          statuses.some((s) => s < 300),
          `${method} ${template}: no success seen`,
        ).toBe(true);
        // The demo page refuses (404) only where the demo is not built.
        if (!['/health', '/api/mac/v1/health', '/metrics', '/openapi.json', '/demo'].includes(template))
          expect(
            statuses.some((s) => s >= 400),
            `${method} ${template}: no refusal seen`,
          ).toBe(true);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 3. Exactness: a record that gains or loses a key fails
// ---------------------------------------------------------------------------------------------

/** Paths of every object in a value (first element of arrays only). */
function objectPaths(value: Json, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.length ? objectPaths(value[0], [...at, 0]) : [];
  if (!value || typeof value !== 'object') return [];
  return [at, ...Object.entries(value).flatMap(([k, v]) => objectPaths(v, [...at, k]))];
}
const nodeAt = (value: Json, at: (string | number)[]) => at.reduce((node, key) => node[key], value);

describe('record schemas are exact', () => {
  it('captured every record kind', () => {
    expect([...captured.keys()].sort()).toEqual(
      [
        'adminAccount',
        'adminAccountCreated',
        'adminAccountWithKeys',
        'adminKey',
        'adminKeyDeleted',
        'adminKeySecret',
        'blacklist',
        'blacklistBatch',
        'blacklistListedBasic',
        'blacklistListedFull',
        'blacklistReport',
        'blacklistExport',
        'adminBlacklistDeleted',
        'asnBasic',
        'asnFull',
        'asnNotFound',
        'endpointList',
        'health',
        'ipBasic',
        'ipBatch',
        'ipFull',
        'ipNotFound',
        'ipReserved',
        'macBasic',
        'macBasicNotFound',
        'macFull',
        'macFullNotFound',
        'macSearch',
        'usageFree',
        'usagePaid',
        'legacyMac',
        'legacyMacNotFound',
        'legacyVendor',
        'legacyMacHealth',
        'legacyCheck',
      ].sort(),
    );
  });

  it('adding a key to any object, or removing any key, fails validation', () => {
    let mutations = 0;
    for (const [kind, { schemaPointer, body }] of captured) {
      const validate = validatorAt(...schemaPointer);
      expect(validate(body), `${kind} as captured: ${errorsOf(validate)}`).toBe(true);
      for (const at of objectPaths(body)) {
        const added = structuredClone(body);
        nodeAt(added, at).unexpected_key = null;
        expect(validate(added), `${kind}: extra key at /${at.join('/')}`).toBe(false);
        mutations++;
        for (const key of Object.keys(nodeAt(body, at))) {
          const removed = structuredClone(body);
          delete nodeAt(removed, at)[key];
          expect(validate(removed), `${kind}: without /${[...at, key].join('/')}`).toBe(false);
          mutations++;
        }
      }
    }
    expect(mutations).toBeGreaterThan(300);
  });
});

// ---------------------------------------------------------------------------------------------
// 4. Malformed bodies and MAC search parameters, held to SPEC
// ---------------------------------------------------------------------------------------------

describe('malformed bodies and MAC search parameters, as SPEC says', () => {
  it('malformed JSON in a batch body is 400 invalid_body, not 500 internal_error', async () => {
    const ex = await call('POST', '/v1/ip/batch', '/v1/ip/batch', {
      key: business.secret,
      headers: { 'content-type': 'application/json' },
      body: '{"ips": [',
    });
    expectError(ex, 400, 'invalid_body');
  });

  it('malformed JSON in an admin body is 400 invalid_body, not 500 internal_error', async () => {
    const ex = await call('POST', '/admin/accounts', '/admin/accounts', {
      headers: { ...admin, 'content-type': 'application/json' },
      body: '{plan:',
    });
    expectError(ex, 400, 'invalid_body');
  });

  it('GET /v1/mac/search applies fields (SPEC 4: "Unless said otherwise, fields and pretty are accepted")', async () => {
    const ex = await call('GET', '/v1/mac/search', '/v1/mac/search?q=apple&fields=count', { key: business.secret });
    expect(Object.keys(ex.body).sort()).toEqual(['count', 'meta', 'success']);
  });
});
