/**
 * Summary of a V8 CPU profile (`node --cpu-prof`) of our service under load, for bench/http.ts:
 * where the time per request goes. Two views, over the samples of the timed window only:
 *
 * - self time by category: each sample goes to the category of its innermost frame that has a
 *   source location; native frames without one (API callbacks such as `writev` or `digest`) count
 *   for their JS caller, except the few with a meaning of their own (JSON.stringify, GC, idle);
 * - inclusive time of named functions (a sample counts once for each named function on its stack).
 *
 * Both are given in microseconds per request (the window's sampled time over the requests the load
 * generator counted in it) and as a share of the busy (non-idle) time.
 */
import fs from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  name: string;
  us_per_request: number;
  share_of_busy: number;
}

export interface ProfileSummary {
  file: string;
  sampling_interval_us: number;
  /** the timed window found in the profile (µs since the profile started) */
  window_us: [number, number];
  window_matched: boolean;
  samples_in_window: number;
  requests: number;
  busy_us_per_request: number;
  idle_share: number;
  categories: (ProfileRow & { top: string[] })[];
  inclusive: ProfileRow[];
  top_self_functions: (ProfileRow & { where: string; category: string })[];
}

/** Packages of node_modules, by the category they belong to. */
const PACKAGE_CATEGORY: Record<string, string> = {
  koa: 'Koa (application, context, response, compose)',
  'koa-compose': 'Koa (application, context, response, compose)',
  delegates: 'Koa (application, context, response, compose)',
  'on-finished': 'Koa (application, context, response, compose)',
  statuses: 'Koa (application, context, response, compose)',
  'mime-types': 'headers (set, type, vary, render)',
  'mime-db': 'headers (set, type, vary, render)',
  'cache-content-type': 'headers (set, type, vary, render)',
  vary: 'headers (set, type, vary, render)',
  'content-type': 'headers (set, type, vary, render)',
  encodeurl: 'Koa (application, context, response, compose)',
  only: 'Koa (application, context, response, compose)',
  'http-errors': 'Koa (application, context, response, compose)',
  'ee-first': 'Koa (application, context, response, compose)',
  debug: 'Koa (application, context, response, compose)',
  parseurl: 'Koa (application, context, response, compose)',
  'type-is': 'Koa (application, context, response, compose)',
  '@koa/router': 'router (@koa/router, path-to-regexp)',
  'path-to-regexp': 'router (@koa/router, path-to-regexp)',
  '@koa/cors': 'CORS (@koa/cors)',
  'koa-bodyparser': 'body parsing (koa-bodyparser, co-body, JSON.parse)',
  'co-body': 'body parsing (koa-bodyparser, co-body, JSON.parse)',
  'raw-body': 'body parsing (koa-bodyparser, co-body, JSON.parse)',
  inflation: 'body parsing (koa-bodyparser, co-body, JSON.parse)',
  'iconv-lite': 'body parsing (koa-bodyparser, co-body, JSON.parse)',
  qs: 'body parsing (koa-bodyparser, co-body, JSON.parse)',
  bytes: 'body parsing (koa-bodyparser, co-body, JSON.parse)',
  'prom-client': 'metrics (prom-client counter + histogram, measure())',
  tdigest: 'metrics (prom-client counter + histogram, measure())',
  bintrees: 'metrics (prom-client counter + histogram, measure())',
  pino: 'logging (pino, redaction)',
  'sonic-boom': 'logging (pino, redaction)',
  'better-sqlite3': 'store (SQLite)',
};

const AUTH = 'auth (key presented, SHA-256, cache, account, plan)';
const ADMIT = 'store admit (rate window, quota counters, flush)';
const ENGINE = 'engine lookup (parse, WASM search, answer objects)';
const SHAPING = 'record shaping (ipRecord/macRecord)';
const META = 'meta record + quota headers values';
const FIELDS = 'fields/pretty handling';
const HANDLER = 'handlers (v1Routes, canonicalIp, respondMetered)';
const STRINGIFY = 'JSON.stringify';
const HEADERS = 'headers (set, type, vary, render)';
const METRICS = 'metrics (prom-client counter + histogram, measure())';
const LOGGING = 'logging (pino, redaction)';
const NODE_HTTP = 'node http + net (parser, socket writes, response)';
const DIRECT = 'direct connections (request heads read, answer heads written)';
const NODE_ASYNC = 'node events, nextTick, promises, timers';
const NODE_OTHER = 'node internals (other)';
const GC = 'GC';
const PROGRAM = '(program): native, unattributed';
const OTHER = 'other';

const HEADER_FUNCTIONS =
  /^(set|get|has|remove|append|vary|setHeader|getHeader|hasHeader|removeHeader|validateHeaderName|validateHeaderValue|_storeHeader|processHeader|writeHead|_implicitHeader|set type|get type|set length|get length|checkInvalidHeaderChar|checkIsHttpToken|matchHeader|storeHeader)$/;

function packageOf(url: string): string | null {
  const at = url.lastIndexOf('/node_modules/');
  if (at < 0) return null;
  const rest = url.slice(at + '/node_modules/'.length).split('/');
  return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}

/** The category of one frame, or null when the frame says nothing by itself (a native without a location). */
function categoryOf(frame: CallFrame): string | null {
  const { functionName: fn, url } = frame;
  if (fn === '(garbage collector)') return GC;
  if (fn === '(idle)') return 'idle';
  if (fn === '(program)') return PROGRAM;
  if (url === '') {
    if (fn === 'stringify') return STRINGIFY;
    if (fn === 'parse') return 'body parsing (koa-bodyparser, co-body, JSON.parse)';
    if (fn === 'digest' || fn === 'update' || fn === 'Hash' || fn === 'timingSafeEqual') return AUTH;
    return null;
  }
  if (url.startsWith('wasm://')) return ENGINE;
  const pkg = packageOf(url);
  if (pkg !== null) {
    if (pkg === 'koa' && url.endsWith('/response.js') && HEADER_FUNCTIONS.test(fn)) return HEADERS;
    return PACKAGE_CATEGORY[pkg] ?? `${OTHER} (${pkg})`;
  }
  if (url.startsWith('node:')) {
    if (url.startsWith('node:internal/crypto')) return AUTH;
    if (url === 'node:_http_outgoing' && HEADER_FUNCTIONS.test(fn)) return HEADERS;
    if (/^node:(_http_|http$|net$|internal\/http|internal\/streams|stream$|internal\/stream_base_commons|internal\/net)/.test(url))
      return NODE_HTTP;
    if (
      /^node:(events$|internal\/process\/task_queues|internal\/process\/promises|internal\/timers|timers$|async_hooks$|internal\/async_hooks)/.test(
        url,
      )
    )
      return NODE_ASYNC;
    return NODE_OTHER;
  }
  const rel = sourceOf(url);
  if (rel === null) return OTHER;
  if (
    rel.startsWith('src/engine/') ||
    rel.startsWith('src/tables/') ||
    /^src\/address\/(ipAddress|macAddress|reservedRange)\.ts$/.test(rel)
  )
    return ENGINE;
  if (/^src\/records\/(ipRecord|macRecord|ipRecordJson|macRecordJson|jsonTemplate)\.ts$/.test(rel)) return SHAPING;
  if (rel === 'src/records/metaRecord.ts') return META;
  if (rel === 'src/records/fieldsFilter.ts') return FIELDS;
  if (rel === 'src/http/request/respond.ts') return fn === 'wantsPretty' ? FIELDS : STRINGIFY;
  if (
    rel === 'src/http/request/caller.ts' ||
    rel === 'src/http/request/apiKey.ts' ||
    rel === 'src/store/apiKeySecret.ts' ||
    rel === 'src/plans/plans.ts'
  )
    return AUTH;
  if (rel === 'src/http/request/metering.ts' || rel === 'src/store/rateWindow.ts' || rel === 'src/store/quotaPeriod.ts') return ADMIT;
  if (rel === 'src/store/sqlite/sqliteAccounts.ts') return AUTH;
  if (/^src\/store\/sqlite\/sqlite(Meter|Store|Guard)\.ts$/.test(rel)) return ADMIT;
  if (rel === 'src/http/app.ts') return fn === 'everyResponseAllowsAnyOrigin' ? HEADERS : METRICS;
  if (rel === 'src/http/request/crossOrigin.ts') return HEADERS;
  if (rel === 'src/http/request/requestObserver.ts') return METRICS;
  if (rel === 'src/http/request/exchange.ts') return HEADERS;
  if (rel === 'src/http/transport/directConnections.ts' || rel === 'src/http/transport/plainGet.ts') return DIRECT;
  if (rel === 'src/http/operations/metrics.ts') return METRICS;
  if (rel === 'src/http/operations/logger.ts') return LOGGING;
  if (
    /^src\/http\/(v1\/(v1Routes|v1Batch|v1Inputs|macSearch|singleLookups|blacklistRoutes)|request\/(eventually|errorResponse))\.ts$/.test(
      rel,
    )
  )
    return HANDLER;
  return `${OTHER} (${rel})`;
}

/**
 * The source file of a frame's URL, as `src/…/x.ts`: the service runs from src/ (tsx) or from
 * its compiled dist/ (`npm start`, the default here); null for code outside the project.
 */
function sourceOf(url: string): string | null {
  const file = url.replace(/^file:\/\//, '');
  const src = file.lastIndexOf('/src/');
  if (src >= 0) return file.slice(src + 1);
  const dist = file.lastIndexOf('/dist/');
  return dist >= 0 ? `src/${file.slice(dist + 6).replace(/\.js$/, '.ts')}` : null;
}
const fromFile = (f: CallFrame, name: string) => sourceOf(f.url)?.endsWith(name) === true;

/** Functions whose inclusive time is reported: label → test on a frame. */
const INCLUSIVE: [string, (f: CallFrame) => boolean][] = [
  [
    'node http: parserOnIncoming (whole request in node + Koa)',
    (f) => f.functionName === 'parserOnIncoming' && f.url === 'node:_http_server',
  ],
  [
    'direct connections: Connection.read (whole request after the socket read, without node:http)',
    (f) => f.functionName === 'read' && fromFile(f, 'directConnections.ts'),
  ],
  ['  plainGetAt (the request head)', (f) => f.functionName === 'plainGetAt'],
  ['  send (the answer head and the socket write)', (f) => f.functionName === 'send' && fromFile(f, 'directConnections.ts')],
  [
    'hot path: the single lookup answered (after the request is read, without Koa)',
    (f) => fromFile(f, 'singleLookups.ts') && f.functionName === '',
  ],
  ['  NodeExchange.send (writeHead + end)', (f) => f.functionName === 'send' && fromFile(f, 'exchange.ts')],
  [
    'Koa handleRequest (middleware chain + respond)',
    (f) => f.functionName === 'handleRequest' && f.url.includes('/koa/lib/application.js'),
  ],
  ['Koa respond (body → res.end)', (f) => f.functionName === 'respond' && f.url.includes('/koa/lib/application.js')],
  ['Koa createContext', (f) => f.functionName === 'createContext' && f.url.includes('/koa/lib/application.js')],
  ['router dispatch (@koa/router)', (f) => f.url.includes('/@koa/router/') && /dispatch/.test(f.functionName)],
  ['CORS middleware (@koa/cors)', (f) => f.url.includes('/@koa/cors/')],
  ['identifyCaller (auth, all of it)', (f) => f.functionName === 'identifyCaller'],
  ['  store.accounts.authenticate', (f) => f.functionName === 'authenticate' && fromFile(f, 'sqliteAccounts.ts')],
  ['  hashSecret (SHA-256)', (f) => f.functionName === 'hashSecret'],
  ['  presentedKey / requestingHost / websiteAllowed', (f) => /^(presentedKey|requestingHost|websiteAllowed)$/.test(f.functionName)],
  ['admit (metering.ts: rate + quota)', (f) => f.functionName === 'admit' && fromFile(f, 'metering.ts')],
  ['  store.meter.admit', (f) => f.functionName === 'admit' && fromFile(f, 'sqliteMeter.ts')],
  ['  nextReset (quota state)', (f) => f.functionName === 'nextReset'],
  ['canonicalIp (parse + format)', (f) => f.functionName === 'canonicalIp'],
  ['engine.lookupIp', (f) => f.functionName === 'lookupIp' && fromFile(f, 'engine/lookupEngine.ts')],
  ['engine.lookupMac', (f) => f.functionName === 'lookupMac' && fromFile(f, 'engine/lookupEngine.ts')],
  ['ipRecord (shaping)', (f) => f.functionName === 'ipRecord'],
  ['  tickedClock (timezone fields)', (f) => f.functionName === 'tickedClock'],
  ['macRecord (shaping)', (f) => f.functionName === 'macRecord'],
  ['respondMetered (headers + fields + meta + sendJson)', (f) => f.functionName === 'respondMetered'],
  ['  quotaHeaders', (f) => f.functionName === 'quotaHeaders'],
  ['  metaRecord', (f) => f.functionName === 'metaRecord'],
  ['  parseFields / applyFields', (f) => f.functionName === 'parseFields' || f.functionName === 'applyFields'],
  ['sendJson (stringify + pretty check + ctx.type)', (f) => f.functionName === 'sendJson'],
  ['  JSON.stringify', (f) => f.functionName === 'stringify' && f.url === ''],
  [
    '  ctx.query (querystring parse)',
    (f) => f.functionName === 'get query' || (f.functionName === 'parse' && f.url === 'node:querystring'),
  ],
  ['ctx.set (all headers)', (f) => f.functionName === 'set' && f.url.includes('/koa/lib/response.js')],
  ['batch: uniqueItems / batchEntries', (f) => f.functionName === 'uniqueItems' || f.functionName === 'batchEntries'],
  ['batch: body parser', (f) => f.url.includes('/koa-bodyparser/') || f.url.includes('/co-body/')],
  ['metrics: prom-client inc + observe', (f) => f.url.includes('/prom-client/') && /^(inc|observe)$/.test(f.functionName)],
  ['logging: pino / isLevelEnabled / redactedUrl', (f) => f.url.includes('/pino/') || f.functionName === 'redactedUrl'],
  ['socket writes (writev / writeGeneric)', (f) => /^(writev|writeGeneric|writevGeneric|_writeGeneric|_writev)$/.test(f.functionName)],
  ['HTTP parser (execute)', (f) => f.functionName === 'execute' && f.url === ''],
  ['GC', (f) => f.functionName === '(garbage collector)'],
];

export function summariseProfile(file: string, window: { startNs: bigint; endNs: bigint } | null, requests: number): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) byId.set(node.id, node);
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // Sample i is taken at startTime + sum(timeDeltas[0..i]); it stands for the interval up to the next one.
  const n = profile.samples.length;
  const at = new Float64Array(n);
  let t = profile.startTime;
  for (let i = 0; i < n; i++) {
    t += profile.timeDeltas[i];
    at[i] = t;
  }
  const weights = new Float64Array(n);
  for (let i = 0; i < n; i++) weights[i] = i + 1 < n ? at[i + 1] - at[i] : profile.timeDeltas[i];
  const interval = n > 1 ? (at[n - 1] - at[0]) / (n - 1) : 0;

  // V8 profile timestamps are CLOCK_MONOTONIC microseconds on Linux, the clock of process.hrtime.
  let from = profile.startTime;
  let to = profile.endTime;
  let matched = false;
  if (window) {
    const ws = Number(window.startNs / 1000n);
    const we = Number(window.endNs / 1000n);
    if (ws >= profile.startTime && we <= profile.endTime + 1e6 && we > ws) {
      from = ws;
      to = Math.min(we, profile.endTime);
      matched = true;
    }
  }

  const categoryCache = new Map<number, string>();
  const categoryOfNode = (id: number): string => {
    const cached = categoryCache.get(id);
    if (cached !== undefined) return cached;
    let current: number | undefined = id;
    let category: string | null = null;
    while (current !== undefined && category === null) {
      category = categoryOf(byId.get(current)!.callFrame);
      current = parent.get(current);
    }
    const result = category ?? OTHER;
    categoryCache.set(id, result);
    return result;
  };
  const inclusiveCache = new Map<number, number[]>();
  const inclusiveOfNode = (id: number): number[] => {
    const cached = inclusiveCache.get(id);
    if (cached) return cached;
    const hits = new Set<number>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)!.callFrame;
      INCLUSIVE.forEach(([, test], index) => {
        if (test(frame)) hits.add(index);
      });
    }
    const result = [...hits];
    inclusiveCache.set(id, result);
    return result;
  };

  const categories = new Map<string, number>();
  const inclusive = new Float64Array(INCLUSIVE.length);
  const selfByFunction = new Map<string, { us: number; where: string; name: string; category: string }>();
  let total = 0;
  let idle = 0;
  let samples = 0;
  for (let i = 0; i < n; i++) {
    if (at[i] < from || at[i] > to) continue;
    samples++;
    const w = weights[i];
    const id = profile.samples[i];
    total += w;
    const category = categoryOfNode(id);
    if (category === 'idle') {
      idle += w;
      continue;
    }
    categories.set(category, (categories.get(category) ?? 0) + w);
    for (const index of inclusiveOfNode(id)) inclusive[index] += w;
    const frame = byId.get(id)!.callFrame;
    const where = frame.url ? `${frame.url.replace(/^file:\/\/.*?\/(src|node_modules)\//, '$1/')}:${frame.lineNumber + 1}` : '(native)';
    const key = `${frame.functionName}@${where}`;
    const entry = selfByFunction.get(key) ?? { us: 0, where, name: frame.functionName || '(anonymous)', category };
    entry.us += w;
    selfByFunction.set(key, entry);
  }
  const busy = total - idle;
  const perRequest = (us: number) => (requests > 0 ? us / requests : NaN);
  const row = (name: string, us: number): ProfileRow => ({
    name,
    us_per_request: round(perRequest(us), 3),
    share_of_busy: round(us / busy, 4),
  });
  return {
    file: path.basename(file),
    sampling_interval_us: round(interval, 1),
    window_us: [round(from - profile.startTime, 0), round(to - profile.startTime, 0)],
    window_matched: matched,
    samples_in_window: samples,
    requests,
    busy_us_per_request: round(perRequest(busy), 2),
    idle_share: round(idle / total, 4),
    categories: [...categories]
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({
        ...row(name, us),
        top: [...selfByFunction.values()]
          .filter((e) => e.category === name)
          .sort((a, b) => b.us - a.us)
          .slice(0, 6)
          .map((e) => `${e.name} ${e.where} ${perRequest(e.us).toFixed(2)}`),
      })),
    inclusive: INCLUSIVE.map(([name], index) => row(name, inclusive[index])).filter((r) => r.us_per_request > 0),
    top_self_functions: [...selfByFunction.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, 25)
      .map((e) => ({ ...row(e.name, e.us), where: e.where, category: e.category })),
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Lines of Markdown for the report: the profiles side by side, µs per request. */
export function profileMarkdown(
  profiles: (ProfileSummary & { case: string; req_per_s_under_profiler: number; req_per_s_without: number | null })[],
): string[] {
  if (profiles.length === 0) return [];
  const cell = (rows: ProfileRow[], name: string) => {
    const r = rows.find((x) => x.name === name);
    return r ? `${r.us_per_request.toFixed(2)} (${(r.share_of_busy * 100).toFixed(0)} %)` : '';
  };
  const head = `| | ${profiles.map((p) => `${p.case}: µs/req (share)`).join(' | ')} |`;
  const rule = `|---|${profiles.map(() => '---:').join('|')}|`;
  const union = (pick: (p: ProfileSummary) => ProfileRow[]) => {
    const names: string[] = [];
    for (const p of profiles) for (const r of pick(p)) if (!names.includes(r.name)) names.push(r.name);
    return names;
  };
  const out = [
    '**Where the time goes** (`node --cpu-prof` of a fresh server child under the same load, timed window only; ' +
      'µs per request = sampled time / requests; the profiler itself slows the server, so compare rows, not totals with the table above. ' +
      "Inclusive times end at await boundaries: what runs after an await (Koa's respond, the rest of a middleware) is counted where it resumes)",
    '',
    ...profiles.map(
      (p) =>
        `- ${p.case}: ${p.req_per_s_under_profiler.toFixed(0)} req/s under the profiler (${p.req_per_s_without === null ? 'not measured' : p.req_per_s_without.toFixed(0)} without), ` +
        `${p.busy_us_per_request} µs busy per request, idle ${(p.idle_share * 100).toFixed(1)} %, ${p.samples_in_window} samples at ${p.sampling_interval_us} µs` +
        (p.window_matched ? '' : ' (whole profile: the timed window was not found)'),
    ),
    '',
    `${head.replace('| |', '| self time by category |')}`,
    rule,
    ...union((p) => p.categories).map((name) => `| ${name} | ${profiles.map((p) => cell(p.categories, name)).join(' | ')} |`),
    `| **busy total** | ${profiles.map((p) => `**${p.busy_us_per_request.toFixed(2)}**`).join(' | ')} |`,
    '',
    `${head.replace('| |', '| inclusive time of |')}`,
    rule,
    ...union((p) => p.inclusive).map(
      (name) => `| ${name.replace(/^ {2}/, '↳ ')} | ${profiles.map((p) => cell(p.inclusive, name)).join(' | ')} |`,
    ),
    '',
  ];
  return out;
}
