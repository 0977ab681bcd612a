/**
 * The blacklist's own v1 routes (docs/blacklist.md), registered into the v1 router before
 * `/blacklist/{ip}`: report intake (POST /v1/blacklist/report) and firewall exports
 * (GET /v1/blacklist/export). Also what the check, the batch and the IP record ask of the
 * blacklist, and the export responder the legacy export shares.
 */
import type Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { BlacklistAddress } from '../../blacklist/address.js';
import { contentTypeOf, exportFormats, renderExport, type ExportFormat } from '../../blacklist/exportFormats.js';
import type { ExportFilter } from '../../blacklist/listing.js';
import { draftReport, reportInputOf, type ReportFields } from '../../blacklist/reportDraft.js';
import { DAY_MS, DEFAULT_EXPORT_MIN_CONFIDENCE } from '../../blacklist/scoring.js';
import { UNKNOWN_THREAT_FACTS, type ThreatFacts, type UnknownThreatFacts } from '../../blacklist/threatFacts.js';
import { ApiError } from '../../errors.js';
import { blacklistRecord, RECORD_REPORTS, type BlacklistRecord } from '../../records/blacklistRecord.js';
import type { FieldLevel } from '../../records/ipRecord.js';
import { StoreUnavailableError } from '../../store/store.js';
import { presentedKey } from '../request/apiKey.js';
import { identifyCaller } from '../request/caller.js';
import { blacklistSettings } from '../../config/config.js';
import { admit, servedOrRefunded, setQuotaHeaders } from '../request/metering.js';
import { sendJson, wantsPretty } from '../request/respond.js';
import { asApiError } from '../request/errorResponse.js';
import { clientCopyIsCurrent } from '../request/conditionalRequest.js';
import { whenReady, type Eventually } from '../request/eventually.js';
import { firstQueryValue } from '../request/queryParameters.js';
import type { ServiceDeps } from '../serviceDeps.js';

/** Reports are small; a bigger body is not a report. */
const REPORT_BODY_LIMIT = 64 * 1024;
const REPORT_WINDOW_MS = 60_000;
/**
 * Exports are evaluated at the start of their quarter hour: the content (hence the ETag) changes
 * only with a change to the blacklist or at the next quarter hour, when decay and expiry may have
 * moved addresses across the filter.
 */
const EXPORT_PERIOD_MS = 15 * 60_000;

/** SPEC 2.4 record of an address: not listed from the in-memory facts, listed from the store. */
export function blacklistRecordOf(deps: ServiceDeps, address: BlacklistAddress, level: FieldLevel, now: Date): Eventually<BlacklistRecord> {
  // A listed address reads its listing; the many that are not need only the (in-memory) facts.
  return whenReady(deps.store.blacklist.threatFacts(address, now), (facts) =>
    facts.is_threat
      ? deps.store.blacklist
          .listing(address, now, level === 'full' ? RECORD_REPORTS : 0)
          .then((listing) => blacklistRecord(address.text, listing, level))
      : blacklistRecord(address.text, null, level),
  );
}

/**
 * The IP record's threat facts (paid level only; the basic record has no security block). While
 * the store cannot be read (a shared store's outage) they are unknown, and the lookup is still
 * answered, with the threat fields null.
 */
export function threatFactsOf(
  deps: ServiceDeps,
  address: BlacklistAddress,
  level: FieldLevel,
  now: Date,
): Eventually<ThreatFacts | UnknownThreatFacts> | undefined {
  if (level !== 'full') return undefined;
  let facts: Eventually<ThreatFacts>;
  try {
    facts = deps.store.blacklist.threatFacts(address, now);
  } catch (error) {
    return unknownWhenUnavailable(error);
  }
  return facts instanceof Promise ? facts.catch(unknownWhenUnavailable) : facts;
}

function unknownWhenUnavailable(error: unknown): UnknownThreatFacts {
  if (error instanceof StoreUnavailableError) return UNKNOWN_THREAT_FACTS;
  throw error;
}

function reportBodyReader() {
  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: `${REPORT_BODY_LIMIT}b`,
    formLimit: `${REPORT_BODY_LIMIT}b`,
    strict: true,
    onerror: (error) => {
      throw error;
    },
  });
  return async (ctx: Context): Promise<ReportFields & { key?: unknown }> => {
    const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
    if (hasBody && !ctx.is('json', 'urlencoded')) throw new ApiError('unsupported_media_type');
    if (Number(ctx.get('content-length') || 0) > REPORT_BODY_LIMIT) throw new ApiError('body_too_large');
    try {
      await parse(ctx, async () => undefined);
    } catch (error) {
      throw asApiError(error) ?? new ApiError('invalid_body');
    }
    const body = (ctx.request as { body?: unknown }).body;
    if (body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body))) return (body ?? {}) as ReportFields;
    throw new ApiError('invalid_body', 'The report must be a JSON object or form fields.');
  };
}

/** The report's fields: the body's, with query parameters filling what the body lacks. */
function reportFields(ctx: Context, body: ReportFields): ReportFields {
  const fields: Record<string, unknown> = {};
  for (const name of ['ip', 'threat_type', 'categories', 'category', 'comment', 'message', 'source', 'timestamp'] as const) {
    fields[name] = body[name] ?? firstQueryValue(ctx, name);
  }
  return fields;
}

async function receiveReport(ctx: Context, deps: ServiceDeps, readBody: ReturnType<typeof reportBodyReader>): Promise<void> {
  // Tools that cannot set X-API-Key send `Key: …` or a `key` field (SPEC 5's three ways come first).
  // A key outside the body is checked before the body is read: without a valid one, nothing is read.
  const outside = presentedKey(ctx.headers, ctx.query) ?? (ctx.get('key').trim() || null);
  const known = outside === null ? null : await identifyCaller(ctx, deps, outside);
  const body = await readBody(ctx);
  const caller = known ?? (await identifyCaller(ctx, deps, typeof body.key === 'string' ? body.key.trim() || null : null));
  const now = deps.now();
  const settings = blacklistSettings(deps.config);
  let draft;
  let outcome;
  // Every refusal once the reporter is known counts as rejected: a refused input, the report rate,
  // a store that cannot take the report.
  try {
    if (!(await deps.store.blacklist.admitReport(caller.account.id, settings.reportsPerMinute, REPORT_WINDOW_MS, now))) {
      deps.metrics.rejections.inc({ reason: 'report_rate_limited' });
      throw new ApiError('rate_limited', `At most ${settings.reportsPerMinute} reports per minute.`, {
        'Retry-After': String(REPORT_WINDOW_MS / 1000),
      });
    }
    draft = draftReport(reportFields(ctx, body), now, deps.store.blacklist.policy.retentionMs, 'manual', 'arrival');
    outcome = await deps.store.blacklist.report(reportInputOf(draft, caller.account.id, deps.engine.engine), now);
  } catch (error) {
    try {
      await deps.store.meter.countRejected(caller.account.id, now);
    } catch {
      // A store that cannot count it: the refusal itself is the answer to report.
    }
    throw error;
  }
  sendJson(ctx, outcome.merged ? 200 : 201, {
    success: true,
    ip: draft.address.text,
    merged: outcome.merged,
    listed: outcome.facts.is_threat,
    threat_type: outcome.facts.threat_type,
    confidence: outcome.facts.threat_confidence,
    total_reports: outcome.facts.threat_reports,
    last_seen: outcome.facts.threat_last_seen,
  });
}

export interface ExportRequest {
  format: ExportFormat;
  filter: ExportFilter;
  name: string;
  /** format=json with `pretty`: indented (set only then, so that the other exports' ETags stay as they are) */
  pretty?: true;
}

/** `7d`, `12h`, `30m`, `3600s`, or a bare number of days. */
function durationMs(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(text.trim());
  if (!match) return null;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS, '': DAY_MS }[match[2] as 's' | 'm' | 'h' | 'd' | ''];
  const ms = Number(match[1]) * unit;
  return ms > 0 ? ms : null;
}

/** Export parameters: format, min_confidence (0–100, default above one reporter's ceiling), version (4, 6), max_age, name; invalid_input otherwise. */
export function exportRequestOf(ctx: Context): ExportRequest {
  const invalid = (message: string): never => {
    throw new ApiError('invalid_input', message);
  };
  const format = (firstQueryValue(ctx, 'format') ?? 'plain').toLowerCase();
  if (!(exportFormats as readonly string[]).includes(format)) invalid(`format must be one of ${exportFormats.join(', ')}.`);
  const confidenceText = firstQueryValue(ctx, 'min_confidence') ?? String(DEFAULT_EXPORT_MIN_CONFIDENCE);
  const min_confidence = Number(confidenceText);
  if (!/^\d{1,3}$/.test(confidenceText) || min_confidence > 100) invalid('min_confidence must be an integer from 0 to 100.');
  const versionText = firstQueryValue(ctx, 'version');
  if (versionText !== undefined && versionText !== '4' && versionText !== '6') invalid('version must be 4 or 6.');
  const ageText = firstQueryValue(ctx, 'max_age');
  const max_age_ms =
    ageText === undefined ? null : (durationMs(ageText) ?? invalid('max_age must be a duration such as 7d, 12h, 30m or 3600s.'));
  const name = firstQueryValue(ctx, 'name') ?? 'netlookup';
  if (!/^[A-Za-z][A-Za-z0-9_-]{0,23}$/.test(name)) invalid('name must be a letter then up to 23 letters, digits, _ or -.');
  return {
    format: format as ExportFormat,
    filter: { min_confidence, version: versionText === undefined ? null : (Number(versionText) as 4 | 6), max_age_ms },
    name,
    ...(format === 'json' && ctx.querystring !== '' && wantsPretty(ctx.query) ? { pretty: true as const } : {}),
  };
}

/**
 * When each export was made, by identity (what its ETag is made of), for the quarter hour in
 * progress and per store: the first 200 answer of an export makes it, and every later answer of the
 * same export (same ETag) carries the same text, generated_at included. Kept by this process: each
 * instance of a shared deployment, and a restarted one, remembers the exports it made itself.
 */
const exportsMade = new WeakMap<object, { evaluatedAt: number; made: Map<string, Date> }>();
/** Distinct exports remembered per quarter hour; past it the memory starts over. */
const MAX_EXPORTS_MADE = 1000;

function madeAt(deps: ServiceDeps, identity: string, evaluatedAt: Date, now: Date): Date {
  let exports = exportsMade.get(deps.store.blacklist);
  if (exports === undefined || exports.evaluatedAt !== evaluatedAt.getTime() || exports.made.size >= MAX_EXPORTS_MADE) {
    exports = { evaluatedAt: evaluatedAt.getTime(), made: new Map() };
    exportsMade.set(deps.store.blacklist, exports);
  }
  let made = exports.made.get(identity);
  if (made === undefined) exports.made.set(identity, (made = now));
  return made;
}

/**
 * Answers an export: 304 when the client's ETag or date is current, else the list streamed with
 * ETag and Last-Modified. Both are functions of the blacklist's change counter, the request and
 * the quarter hour the export is evaluated at (EXPORT_PERIOD_MS); its generated_at is when it was
 * made (madeAt).
 */
export async function sendExport(ctx: Context, deps: ServiceDeps, request: ExportRequest, now: Date): Promise<void> {
  const evaluatedAt = new Date(Math.floor(now.getTime() / EXPORT_PERIOD_MS) * EXPORT_PERIOD_MS);
  const version = await deps.store.blacklist.version();
  const identity = JSON.stringify([version.seq, request, evaluatedAt.getTime(), deps.store.blacklist.policy.retentionMs]);
  const etag = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`;
  const lastModified = new Date(Math.floor(Math.max(version.changed_at ?? 0, evaluatedAt.getTime()) / 1000) * 1000);
  ctx.set('ETag', etag);
  ctx.set('Last-Modified', lastModified.toUTCString());
  ctx.set('Cache-Control', 'no-cache');
  if (clientCopyIsCurrent(ctx, etag, lastModified)) {
    ctx.status = 304;
    return;
  }
  const text = renderExport(request.format, deps.store.blacklist.exportRows(request.filter, evaluatedAt), {
    generated_at: madeAt(deps, identity, evaluatedAt, now),
    filter: request.filter,
    name: request.name,
    pretty: request.pretty === true,
  });
  ctx.status = 200;
  ctx.type = contentTypeOf(request.format);
  ctx.body = Readable.from(nonEmpty(text), { objectMode: false });
}

async function* nonEmpty(chunks: AsyncIterable<string>): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) if (chunk.length > 0) yield Buffer.from(chunk, 'utf8');
}

async function exportForKey(ctx: Context, deps: ServiceDeps): Promise<void> {
  const caller = await identifyCaller(ctx, deps);
  let request: ExportRequest | undefined;
  let refusal: ApiError | undefined;
  try {
    request = exportRequestOf(ctx);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    refusal = error;
  }
  const metered = { api: 'blacklist', cost: 1, refusal } as const;
  const quota = await admit(deps, caller, metered);
  await servedOrRefunded(deps, caller, metered, async () => {
    setQuotaHeaders(ctx, caller, quota);
    await sendExport(ctx, deps, request!, deps.now());
  });
}

/**
 * Routes named so answer only 405 on a path that a parameter route would otherwise take
 * (`GET /v1/blacklist/report` is not an address to check); they are not operations of their own.
 */
export const METHOD_NOT_ALLOWED_ROUTE = 'method_not_allowed';

/** Adds the report and export routes to the v1 router (before `/blacklist/:ip`, which would match them). */
export function registerBlacklistRoutes(router: Router, deps: ServiceDeps): void {
  const readBody = reportBodyReader();
  router.post('/blacklist/report', (ctx) => receiveReport(ctx, deps, readBody));
  router.get(METHOD_NOT_ALLOWED_ROUTE, '/blacklist/report', () => {
    throw new ApiError('method_not_allowed', 'Reports are sent with POST.', { Allow: 'POST' });
  });
  router.get('/blacklist/export', (ctx) => exportForKey(ctx, deps));
}
