/**
 * The v1 endpoints (SPEC 4): the router, and the single lookups (the batches are v1Batch.ts, the
 * MAC search macSearch.ts, the AS lookup asnLookup.ts). Each handler: identify the caller, find
 * plan and input refusals, admit (rate → plan → input → quota), look up, shape the record, add
 * meta and quota headers.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Exchange } from '../request/exchange.js';
import type { ThreatFacts, UnknownThreatFacts } from '../../blacklist/threatFacts.js';
import { ApiError } from '../../errors.js';
import { parseIp, type ParsedIp } from '../../address/ipAddress.js';
import { applyFields } from '../../records/fieldsFilter.js';
import { ipRecord, type IpRecordFeeds } from '../../records/ipRecord.js';
import { ipRecordFeeds, queryTimeFacts, queryTimeWants, type QueryTimeFacts } from './ipRecordFeeds.js';
import { IpRecordRenderer } from '../../records/ipRecordJson.js';
import { macRecordJson } from '../../records/macRecordJson.js';
import { withEnding } from '../../engine/recordText.js';
import { macRecord } from '../../records/macRecord.js';
import { metaJson, metaRecord } from '../../records/metaRecord.js';
import { usageRecord } from '../../records/usageRecord.js';
import { identifyCaller, type Caller } from '../request/caller.js';
import { whenReady, whenReadyOn, type Eventually } from '../request/eventually.js';
import { clientAddress } from '../../address/clientAddress.js';
import { admit, servedOrRefunded, setQuotaHeaders, type Admission, type MeteredRequest } from '../request/metering.js';
import { sendJson, sendJsonText, wantsPretty } from '../request/respond.js';
import type { ServiceDeps } from '../serviceDeps.js';
import { searchMac } from './macSearch.js';
import { batchHandler } from './v1Batch.js';
import { fieldsOf, invalidIp, missingTable } from './v1Inputs.js';
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

  router.get('/mac/search', (ctx) => searchMac(ctx, deps));

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
