/**
 * The v1 endpoints (SPEC 4). Each handler: identify the caller, find plan and input refusals,
 * admit (rate → plan → input → quota), look up, shape the record, add meta and quota headers.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Exchange } from '../request/exchange.js';
import type { ThreatFacts, UnknownThreatFacts } from '../../blacklist/threatFacts.js';
import { ApiError } from '../../errors.js';
import { parseIp, type ParsedIp } from '../../address/ipAddress.js';
import { reservedIPv4, reservedIPv6 } from '../../address/reservedRange.js';
import { applyFields, parseFields, type FieldsFilter } from '../../records/fieldsFilter.js';
import { ipRecord, type IpRecordFeeds } from '../../records/ipRecord.js';
import { ipRecordFeeds, queryTimeFacts, queryTimeWants, type QueryTimeFacts } from './ipRecordFeeds.js';
import { IpRecordRenderer } from '../../records/ipRecordJson.js';
import { macRecordJson } from '../../records/macRecordJson.js';
import { withEnding } from '../../engine/recordText.js';
import { macRecord } from '../../records/macRecord.js';
import { metaJson, metaRecord } from '../../records/metaRecord.js';
import { usageRecord } from '../../records/usageRecord.js';
import type { Api } from '../../plans/plans.js';
import { identifyCaller, type Caller } from '../request/caller.js';
import { whenReady, whenReadyOn, type Eventually } from '../request/eventually.js';
import { clientAddress } from '../../address/clientAddress.js';
import { admit, servedOrRefunded, setQuotaHeaders, type Admission, type MeteredRequest } from '../request/metering.js';
import { asApiError, earlierAnswersTaken, sendJson, sendJsonText, Utf8Body, wantsPretty } from '../request/respond.js';
import { firstQueryValue } from '../request/queryParameters.js';
import type { ServiceDeps } from '../serviceDeps.js';
import { searchPageOf, searchVendors, type SearchPage } from './vendorSearch.js';
import { batchEntriesReader, queryEntries } from './batchBody.js';
import { blacklistRecordOf, registerBlacklistRoutes, threatFactsOf } from './blacklistRoutes.js';
import { endpointList } from './endpointList.js';
import { lookupAsn } from './asnLookup.js';

/** What a metered answer renders: its record, and for the single lookups the same as JSON text. */
interface MeteredAnswer {
  record(): Record<string, unknown>;
  /** the record's JSON with `ending` (ASCII) in place of its closing brace */
  recordJson?(ending: string): string;
}

/**
 * A metered record with its meta. `recordJson`, when the answer has it, serves whenever neither
 * `fields` nor `pretty` asks for the object (the hot path: no object to build and stringify, and
 * the meta written in place).
 */
function respondMetered(ctx: Exchange, caller: Caller, quota: Admission, answer: MeteredAnswer): void {
  setQuotaHeaders(ctx, caller, quota);
  const { code, field_level: level } = caller.plan;
  const filter = fieldsOf(ctx);
  if (answer.recordJson !== undefined && filter === null && (ctx.querystring === '' || !wantsPretty(ctx.query))) {
    sendJsonText(ctx, 200, answer.recordJson(`,"meta":${metaJson(code, level, quota)}}`));
    return;
  }
  sendJson(ctx, 200, { ...applyFields(answer.record(), filter), meta: metaRecord(code, level, quota) });
}

function fieldsOf(ctx: Exchange): FieldsFilter | null {
  if (ctx.querystring === '') return null;
  const value = ctx.query.fields;
  return parseFields(Array.isArray(value) ? value.join(',') : value);
}

/** The renderer keeps nothing per table set (the engine holds its writer): one serves every engine. */
const ipRenderer = new IpRecordRenderer();

function lookupIp(ctx: Exchange, deps: ServiceDeps, text: string): Eventually<void> {
  return new IpLookup(ctx, deps, text).answer();
}

/**
 * One `GET /v1/ip/{ip}`, the busiest request: its steps are methods of one object rather than
 * nested closures, so that a request the embedded store answers at once allocates nothing per step.
 */
class IpLookup implements MeteredAnswer {
  private ip: ParsedIp | null = null;
  private caller: Caller | null = null;
  private metered: MeteredRequest | null = null;
  private quota: Admission | null = null;
  /** what outside services said at query time (reverse DNS, RDAP), when the record shows it */
  private found: QueryTimeFacts | null = null;
  /** the record's facts beyond the tables, gathered once when the lookup is served */
  private facts: IpRecordFeeds | undefined = undefined;

  constructor(
    private readonly ctx: Exchange,
    private readonly deps: ServiceDeps,
    private readonly text: string,
  ) {}

  answer(): Eventually<void> {
    return whenReadyOn(identifyCaller(this.ctx, this.deps), this, this.identified);
  }

  private identified(caller: Caller): Eventually<void> {
    const ip = parseIp(this.text);
    const refusal = ip === null ? invalidIp(this.text) : missingTable(this.deps, ip);
    this.caller = caller;
    this.ip = ip;
    this.metered = { api: 'ip', cost: 1, refusal };
    return whenReadyOn(admit(this.deps, caller, this.metered), this, this.admitted);
  }

  private admitted(quota: Admission): Eventually<void> {
    this.quota = quota;
    return servedOrRefunded(this.deps, this.caller!, this.metered!, this.serve, this);
  }

  private serve(): Eventually<void> {
    const { plan, now } = this.caller!;
    const threat = threatFactsOf(this.deps, this.ip!, plan.field_level, now);
    const wants = queryTimeWants(this.deps, fieldsOf(this.ctx), plan.field_level);
    const found = wants === null ? null : queryTimeFacts(this.deps, [this.ip!], wants, now, this.caller!.account.id);
    if (!(found instanceof Promise)) {
      this.found = found?.[0] ?? null;
      return whenReadyOn(threat, this, this.respond);
    }
    // the PTR and RDAP queries run beside the blacklist read, and end by their deadlines whatever the servers do
    return Promise.all([threat, found]).then(([threatFacts, [queried]]) => {
      this.found = queried;
      this.respond(threatFacts);
    });
  }

  private respond(threat: ThreatFacts | UnknownThreatFacts | undefined): void {
    const { plan, now } = this.caller!;
    this.facts = ipRecordFeeds(this.deps, this.ip!, plan.field_level, now, threat, this.found);
    respondMetered(this.ctx, this.caller!, this.quota!, this);
  }

  record(): Record<string, unknown> {
    const { plan, now } = this.caller!;
    return ipRecord(this.deps.engine.engine.answerOf(this.ip!), plan.field_level, now, this.facts) as unknown as Record<string, unknown>;
  }

  recordJson(ending: string): string {
    const { plan, now } = this.caller!;
    return ipRenderer.render(this.deps.engine.engine, this.ip!, plan.field_level, now, this.facts, ending);
  }
}

function lookupMac(ctx: Exchange, deps: ServiceDeps, text: string): Eventually<void> {
  return whenReady(identifyCaller(ctx, deps), (caller) => {
    const engine = deps.engine.engine;
    const level = caller.plan.field_level;
    let json: string | null = null;
    let refusal: ApiError | undefined;
    try {
      json = macRecordJson(engine, text, level);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      refusal = error;
    }
    return whenReady(admit(deps, caller, { api: 'mac', cost: 1, refusal }), (quota) => {
      respondMetered(ctx, caller, quota, {
        record: () => macRecord(engine.lookupMac(text), level) as unknown as Record<string, unknown>,
        recordJson: (ending) => withEnding(json!, ending),
      });
    });
  });
}

/**
 * The refusal of a text that is not an address. A range (CIDR, `192.0.2.0/24`) is told apart: it
 * reads as an address to whoever sends it, and only single addresses are looked up.
 */
function invalidIp(text: string): ApiError {
  return new ApiError('invalid_ip', invalidIpMessage(text));
}

function invalidIpMessage(text: string): string {
  return text.includes('/') ? RANGE_MESSAGE : INVALID_IP_MESSAGE;
}

const INVALID_IP_MESSAGE = new ApiError('invalid_ip').message;
const RANGE_MESSAGE = 'Not a single IPv4 or IPv6 address: ranges (CIDR, such as 192.0.2.0/24) are not looked up; give one address.';

/** Routes named so only refuse (a range where an address goes): they are not operations of their own. */
export const RANGE_ROUTE = 'range';

/**
 * `/v1/ip/1.2.3.4/24` and `/v1/ip/2001:db8::/32`: a range in the path, answered as its address
 * lookup answers an invalid address (after the key and rate checks); anything else there is an
 * unknown endpoint.
 */
function rangeLookup(lookup: (ctx: Exchange, deps: ServiceDeps, text: string) => Eventually<void>, deps: ServiceDeps) {
  return (ctx: Context & { params: Record<string, string> }, next: () => Promise<unknown>) => {
    const { ip, prefix } = ctx.params;
    return /[.:]/.test(ip) && /^\d{1,3}$/.test(prefix) ? lookup(ctx, deps, `${ip}/${prefix}`) : next();
  };
}

function checkBlacklist(ctx: Exchange, deps: ServiceDeps, text: string): Eventually<void> {
  return whenReady(identifyCaller(ctx, deps), (caller) => {
    const ip = parseIp(text);
    const metered = { api: 'blacklist', cost: 1, refusal: ip === null ? invalidIp(text) : undefined } as const;
    return whenReady(admit(deps, caller, metered), (quota) =>
      servedOrRefunded(deps, caller, metered, () =>
        whenReady(blacklistRecordOf(deps, ip!, caller.plan.field_level, caller.now), (record) =>
          respondMetered(ctx, caller, quota, { record: () => record as unknown as Record<string, unknown> }),
        ),
      ),
    );
  });
}

interface BatchItem {
  /** the first spelling submitted of what the item answers (docs/api.md "Batches"): what the client matches its result by */
  input: string;
  /** the entry without surrounding whitespace: what is parsed, and echoed as `ip` when it is not an address */
  text: string;
  ip: ParsedIp | null;
}

/** How a non-string entry is echoed: never serialised whole (it may be deep or huge). */
function describeEntry(entry: unknown): string {
  if (entry === null || typeof entry === 'number' || typeof entry === 'boolean') return String(entry);
  return Array.isArray(entry) ? '[array]' : `[${typeof entry}]`;
}

/**
 * One item per distinct address (SPEC 2.8, 4.3), and per distinct invalid entry, in order of first
 * appearance, named by the first spelling sent: however many spellings of an address a body holds
 * (whitespace, `::ffff:` forms, IPv6 case and zeros), it is one result, one lookup and one place
 * of the batch size, so that the results never outnumber what the size limit allows. Stops at
 * `limit` + 1 items: the batch is refused then, and the rest need not be read.
 */
function distinctItems(entries: unknown[], limit: number): BatchItem[] {
  // An address is known by its canonical text, an invalid entry by its trimmed text: the two never
  // meet, a canonical text being an address.
  const seen = new Set<string>();
  const items: BatchItem[] = [];
  for (const entry of entries) {
    const input = typeof entry === 'string' ? entry : describeEntry(entry);
    const text = input.trim();
    const ip = typeof entry === 'string' ? parseIp(text) : null;
    const key = ip === null ? text : ip.text;
    if (seen.has(key)) continue;
    seen.add(key);
    if (items.push({ input, text, ip }) > limit) break;
  }
  return items;
}

/** Every record starts so (success first): a batch result puts its `input` right after it. */
const RECORD_START = '{"success":true,';

/** A record's start with the entry it answers: the record's own members follow. */
function inputStart(input: string): string {
  return `${RECORD_START}"input":${JSON.stringify(input)},`;
}

function withInputJson(input: string, recordJson: string): string {
  return inputStart(input) + recordJson.slice(RECORD_START.length);
}

/**
 * A batch result in the engine's UTF-8 bytes: its start with the input as text, then the rest of
 * the record as the engine wrote it (one byte per character of a Latin-1 string, as
 * IpRecordRenderer.renderUtf8 gives it), appended apart so that neither is copied into a joined string.
 */
class ResultBytes {
  readonly head: string;
  readonly rest: string;

  constructor(input: string, recordBytes: string) {
    this.head = inputStart(input);
    this.rest = recordBytes.slice(RECORD_START.length);
  }
}

/** Room for a batch answer with these results: each with its comma (text at its UTF-8 worst case), and 1 KB for the envelope and meta. */
function batchBytes(results: readonly (string | ResultBytes)[]): number {
  let bytes = 1024;
  for (const result of results)
    bytes += typeof result === 'string' ? 3 * result.length + 1 : 3 * result.head.length + result.rest.length + 1;
  return bytes;
}

function withInput(input: string, record: Record<string, unknown>): Record<string, unknown> {
  const { success, ...rest } = record;
  return { success, input, ...rest };
}

/** An IP table the address needs but the engine lacks (special-purpose space needs none). */
function missingTable(deps: ServiceDeps, ip: ParsedIp | null): ApiError | undefined {
  if (ip === null) return undefined;
  const engine = deps.engine.engine;
  if (ip.v4 >= 0) return engine.ip4 || reservedIPv4(ip.v4) ? undefined : new ApiError('unavailable', 'The IPv4 table is not loaded.');
  return engine.ip6 || reservedIPv6(ip.words) ? undefined : new ApiError('unavailable', 'The IPv6 table is not loaded.');
}

function batchHandler(api: Extract<Api, 'ip' | 'blacklist'>, deps: ServiceDeps) {
  const readEntries = batchEntriesReader(deps.config.bodyLimitBytes);
  return async (ctx: Context) => {
    // GET (and HEAD) serve batches given in ?ips=; without addresses there they are the wrong method.
    const queried = ctx.method === 'POST' ? null : queryEntries(ctx);
    const caller = await identifyCaller(ctx, deps);
    let refusal: ApiError | undefined;
    if (caller.plan.max_batch === 0) refusal = new ApiError('plan_required', 'Batch lookups need a paid plan.');
    let items: BatchItem[] = [];
    if (!refusal) {
      try {
        items = distinctItems(queried ?? (await readEntries(ctx)), caller.plan.max_batch);
      } catch (error) {
        const api = asApiError(error);
        if (!api) throw error;
        refusal = api;
      }
    }
    const valid = items.filter((i) => i.ip !== null);
    // The batch size counts the results: the distinct addresses and the distinct invalid entries.
    if (!refusal && items.length === 0) refusal = new ApiError('empty_batch');
    else if (!refusal && items.length > caller.plan.max_batch) {
      refusal = new ApiError(
        'batch_too_large',
        `The ${caller.plan.code} plan allows ${caller.plan.max_batch} addresses per batch; this one has more.`,
      );
    }
    if (!refusal && api === 'ip') refusal = valid.map((i) => missingTable(deps, i.ip)).find((e) => e !== undefined);
    const metered = { api, cost: valid.length, refusal };
    if (!refusal && !(await earlierAnswersTaken(ctx))) {
      // The client left before its earlier answers were taken: nothing to look up or count.
      ctx.respond = false;
      return;
    }
    const quota = await admit(deps, caller, metered);
    await servedOrRefunded(deps, caller, metered, async () => {
      const filter = fieldsOf(ctx);
      const { code, field_level: level } = caller.plan;
      // the batch's PTR and RDAP queries run in parallel within one deadline each
      const found = new Map<string, QueryTimeFacts>();
      const wants = api === 'ip' ? queryTimeWants(deps, filter, level) : null;
      if (wants !== null) {
        const ips = valid.map((item) => item.ip!);
        const facts = await queryTimeFacts(deps, ips, wants, caller.now, caller.account.id);
        ips.forEach((ip, i) => found.set(ip.text, facts[i]));
      }
      // IP records as the engine writes them (as single lookups: its UTF-8 bytes, else text) unless fields or pretty need objects.
      if (api === 'ip' && filter === null && (ctx.querystring === '' || !wantsPretty(ctx.query))) {
        const { engine } = deps.engine;
        const results = await batchResults<string | ResultBytes>(
          items,
          ({ input, ip }) =>
            whenReady(threatFactsOf(deps, ip, level, caller.now), (threat) => {
              const feeds = ipRecordFeeds(deps, ip, level, caller.now, threat, found.get(ip.text) ?? null);
              const bytes = ipRenderer.renderUtf8(engine, ip, level, caller.now, feeds);
              return bytes === null
                ? withInputJson(input, ipRenderer.render(engine, ip, level, caller.now, feeds))
                : new ResultBytes(input, bytes);
            }),
          JSON.stringify,
        );
        setQuotaHeaders(ctx, caller, quota);
        const body = new Utf8Body(batchBytes(results)).append(`{"success":true,"count":${results.length},"results":[`);
        for (let i = 0; i < results.length; i++) {
          if (i > 0) body.append(',');
          const result = results[i];
          if (typeof result === 'string') body.append(result);
          else body.append(result.head).appendBytes(result.rest);
        }
        body.append(`],"meta":${metaJson(code, level, quota)}}`).sendOn(ctx, 200);
        return;
      }
      const record = (ip: ParsedIp): Eventually<Record<string, unknown>> =>
        api === 'ip'
          ? whenReady(
              threatFactsOf(deps, ip, level, caller.now),
              (threat) =>
                ipRecord(
                  deps.engine.engine.answerOf(ip),
                  level,
                  caller.now,
                  ipRecordFeeds(deps, ip, level, caller.now, threat, found.get(ip.text) ?? null),
                ) as unknown as Record<string, unknown>,
            )
          : whenReady(blacklistRecordOf(deps, ip, level, caller.now), (r) => r as unknown as Record<string, unknown>);
      const results = await batchResults(
        items,
        ({ input, ip }) => whenReady(record(ip), (r) => applyFields(withInput(input, r), filter)),
        (failed) => failed,
      );
      setQuotaHeaders(ctx, caller, quota);
      sendJson(ctx, 200, { success: true, count: results.length, results, meta: metaRecord(code, level, quota) });
    });
  };
}

/** One result per item, in order: the answer for an address, the invalid_ip failure otherwise. */
async function batchResults<T>(
  items: readonly BatchItem[],
  answer: (item: { input: string; ip: ParsedIp }) => Eventually<T>,
  failure: (failed: object) => T,
): Promise<T[]> {
  const results: T[] = [];
  for (const { input, text, ip } of items) {
    if (ip === null) {
      results.push(failure({ success: false, input, ip: text, error: { code: 'invalid_ip', message: invalidIpMessage(text) } }));
      continue;
    }
    const result = answer({ input, ip });
    results.push(result instanceof Promise ? await result : result);
  }
  return results;
}

export function v1Router(deps: ServiceDeps): Router {
  const router = new Router({ prefix: '/v1', strict: false });

  router.get('/', async (ctx) => {
    await identifyCaller(ctx, deps);
    sendJson(ctx, 200, endpointList(deps));
  });

  router.get('/usage', async (ctx) => {
    const caller = await identifyCaller(ctx, deps);
    const counts = await deps.store.meter.usage(caller.account.id, caller.now);
    sendJson(ctx, 200, applyFields(usageRecord(caller.plan, caller.account.expires_at, counts), fieldsOf(ctx)));
  });

  router.get('/ip/batch', batchHandler('ip', deps));
  router.post('/ip/batch', batchHandler('ip', deps));
  router.get('/ip', async (ctx) => {
    const peer = ctx.req.socket.remoteAddress ?? '';
    await lookupIp(ctx, deps, clientAddress(peer, ctx.headers['x-forwarded-for'], deps.config.trustProxy));
  });
  router.get('/ip/:ip', (ctx) => lookupIp(ctx, deps, ctx.params.ip));
  router.get(RANGE_ROUTE, '/ip/:ip/:prefix', rangeLookup(lookupIp, deps));

  registerBlacklistRoutes(router, deps);
  router.get('/blacklist/batch', batchHandler('blacklist', deps));
  router.post('/blacklist/batch', batchHandler('blacklist', deps));
  router.get('/blacklist/:ip', (ctx) => checkBlacklist(ctx, deps, ctx.params.ip));
  router.get(RANGE_ROUTE, '/blacklist/:ip/:prefix', rangeLookup(checkBlacklist, deps));

  router.get('/mac/search', async (ctx) => {
    const caller = await identifyCaller(ctx, deps);
    const query = (firstQueryValue(ctx, 'q') ?? firstQueryValue(ctx, 'vendor') ?? '').trim();
    const page = searchPageOf(firstQueryValue(ctx, 'offset'), firstQueryValue(ctx, 'limit'));
    let refusal: ApiError | undefined;
    if (caller.plan.code === 'free') refusal = new ApiError('plan_required', 'MAC search needs a paid plan.');
    else if (query.length < 2) refusal = new ApiError('invalid_query');
    else if (page instanceof ApiError) refusal = page;
    else if (!deps.engine.engine.macTable) refusal = new ApiError('unavailable', 'The MAC table is not loaded.');
    const quota = await admit(deps, caller, { api: 'mac', cost: 1, refusal });
    // admit has refused a bad page
    const { offset, limit } = page as SearchPage;
    const { total, results } = searchVendors(deps.engine.engine, query, { offset, limit });
    setQuotaHeaders(ctx, caller, quota);
    const envelope = applyFields({ success: true, query, total, offset, limit, count: results.length, results }, fieldsOf(ctx));
    sendJson(ctx, 200, { ...envelope, meta: metaRecord(caller.plan.code, caller.plan.field_level, quota) });
  });

  router.get('/mac/:mac', (ctx) => lookupMac(ctx, deps, ctx.params.mac));

  router.get('/asn/:asn', (ctx) => lookupAsn(ctx, deps, ctx.params.asn, respondMetered));

  return router;
}

/** The single lookups by path parameter, as the router and the hot path (singleLookups) both serve them. */
export const singleLookupHandlers = {
  '/v1/ip/:ip': lookupIp,
  '/v1/blacklist/:ip': checkBlacklist,
  '/v1/mac/:mac': lookupMac,
} as const;

export type SingleLookupRoute = keyof typeof singleLookupHandlers;
