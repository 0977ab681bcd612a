/**
 * GET /v1/mac/search (SPEC 4.7): a page of the MAC blocks whose company name holds the query, on
 * the paid plans, metered as one MAC lookup; `offset` and `limit` page, `fields` filters.
 */
import { ApiError } from '../../errors.js';
import { applyFields } from '../../records/fieldsFilter.js';
import { metaRecord } from '../../records/metaRecord.js';
import type { Context } from 'koa';
import { identifyCaller } from '../request/caller.js';
import { admit, setQuotaHeaders } from '../request/metering.js';
import { sendJson } from '../request/respond.js';
import { firstQueryValue } from '../request/queryParameters.js';
import type { ServiceDeps } from '../serviceDeps.js';
import { searchPageOf, searchVendors, type SearchPage } from './vendorSearch.js';
import { fieldsOf } from './v1Inputs.js';

export async function searchMac(ctx: Context, deps: ServiceDeps): Promise<void> {
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
}
