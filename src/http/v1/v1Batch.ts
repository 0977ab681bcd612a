/**
 * The v1 batches (SPEC 4.3): `POST /v1/ip/batch`, `POST /v1/blacklist/batch` and their `GET ?ips=`
 * forms. One result per distinct entry, admitted whole; IP records as the engine writes them
 * unless `fields` or `pretty` need objects.
 */
import type { Context } from 'koa';
import { ApiError } from '../../errors.js';
import { parseIp, type ParsedIp } from '../../address/ipAddress.js';
import { applyFields } from '../../records/fieldsFilter.js';
import { ipRecord } from '../../records/ipRecord.js';
import { ipRecordFeeds, queryTimeFacts, queryTimeWants, type QueryTimeFacts } from './ipRecordFeeds.js';
import { IpRecordRenderer } from '../../records/ipRecordJson.js';
import { metaJson, metaRecord } from '../../records/metaRecord.js';
import type { Api } from '../../plans/plans.js';
import { identifyCaller } from '../request/caller.js';
import { whenReady, type Eventually } from '../request/eventually.js';
import { admit, servedOrRefunded, setQuotaHeaders } from '../request/metering.js';
import { sendJson, Utf8Body, wantsPretty } from '../request/respond.js';
import { asApiError } from '../request/errorResponse.js';
import { earlierAnswersTaken } from '../request/pipelinedAnswers.js';
import type { ServiceDeps } from '../serviceDeps.js';
import { batchEntriesReader, queryEntries } from './batchBody.js';
import { blacklistRecordOf, threatFactsOf } from './blacklistRoutes.js';
import { fieldsOf, invalidIpMessage, missingTable } from './v1Inputs.js';

/** The renderer keeps nothing per table set (the engine holds its writer): one serves every engine. */
const ipRenderer = new IpRecordRenderer();

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

export function batchHandler(api: Extract<Api, 'ip' | 'blacklist'>, deps: ServiceDeps) {
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
      // IP records as the engine writes them, its UTF-8 bytes where it can (docs/performance.md, HTTP, "Batches"), else
      // their text, unless fields or pretty need objects.
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
