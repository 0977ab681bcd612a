/**
 * GET /v1/asn/{asn}: the AS record. Metered as one IP lookup (the ip API's quota and rate), at the
 * plan's field level like IP records; `offset` and `limit` page the prefixes of the full level.
 */
import type { Exchange } from '../request/exchange.js';
import { ApiError } from '../../errors.js';
import { parseAsn } from '../../address/asNumber.js';
import { asnAnswer, asnPrefixes, missingIpTable } from '../../engine/asnIndex.js';
import { asnRecord, PREFIX_PAGE } from '../../records/asnRecord.js';
import { identifyCaller, type Caller } from '../request/caller.js';
import { whenReady, type Eventually } from '../request/eventually.js';
import { admit, servedOrRefunded, type Admission } from '../request/metering.js';
import type { ServiceDeps } from '../serviceDeps.js';
import { wholeNumber } from '../request/queryParameters.js';

/** How the v1 router answers a metered record: quota headers, `fields`, `pretty` and meta. */
export type RespondMetered = (ctx: Exchange, caller: Caller, quota: Admission, answer: { record(): Record<string, unknown> }) => void;

interface PrefixPage {
  offset: number;
  limit: number;
}

export function lookupAsn(ctx: Exchange, deps: ServiceDeps, text: string, respond: RespondMetered): Eventually<void> {
  return whenReady(identifyCaller(ctx, deps), (caller) => {
    const engine = deps.engine.engine;
    const asn = parseAsn(text);
    const page = prefixPageOf(ctx);
    const refusal = asn < 0 ? new ApiError('invalid_asn') : page instanceof ApiError ? page : missingIpTable(engine);
    const metered = { api: 'ip', cost: 1, refusal } as const;
    return whenReady(admit(deps, caller, metered), (quota) =>
      servedOrRefunded(deps, caller, metered, () => {
        const { offset, limit } = page as PrefixPage;
        const prefixes = () => ({ offset, limit, results: asnPrefixes(engine, asn, offset, limit) });
        const record = asnRecord(asnAnswer(engine, asn), caller.plan.field_level, prefixes);
        respond(ctx, caller, quota, { record: () => record as unknown as Record<string, unknown> });
      }),
    );
  });
}

/** The page of prefixes the query asks for: offset ≥ 0 (default 0), limit 1 to the maximum (default 100). */
function prefixPageOf(ctx: Exchange): PrefixPage | ApiError {
  if (ctx.querystring === '') return { offset: 0, limit: PREFIX_PAGE.defaultLimit };
  const offset = wholeNumber(ctx.query.offset, 0);
  const limit = wholeNumber(ctx.query.limit, PREFIX_PAGE.defaultLimit);
  if (offset === null) return new ApiError('invalid_input', 'offset must be a whole number, 0 or more.');
  if (limit === null || limit < 1 || limit > PREFIX_PAGE.maxLimit)
    return new ApiError('invalid_input', `limit must be a whole number from 1 to ${PREFIX_PAGE.maxLimit}.`);
  return { offset, limit };
}
