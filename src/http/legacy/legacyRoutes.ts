/**
 * The legacy endpoints (SPEC 4.9), in their own formats (docs/api.md "Legacy endpoints"):
 *
 * - GET /lookup.php, /lookup: MAC lookup by `mac`, or reverse search by `vendor`.
 * - GET /api/mac/v1/health: whether the MAC table is loaded, and its dates.
 * - GET /api/check.php, /api/check: compact blacklist check of `ip`.
 * - GET /api/export.php, /api/export: the v1 firewall exports, same parameters.
 *
 * A key (`key` parameter, X-Api-Key header, or Bearer) gives unlimited access and is checked like
 * v1's (invalid → 401). Without one, each client address (the v1 trusted-proxy rule,
 * src/address/clientAddress.ts) has a daily allowance per family: MAC lookups (SPEC 8.2.8: 100) and
 * blacklist checks and exports together. Refusals use the v1 error envelope; over the allowance
 * is 429 quota_exceeded with X-Quota-Reset.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { parseBlacklistAddress } from '../../blacklist/address.js';
import { ApiError } from '../../errors.js';
import { presentedKey } from '../request/apiKey.js';
import { exportRequestOf, sendExport } from '../v1/blacklistRoutes.js';
import { countedClientOf, identifyCaller } from '../request/caller.js';
import { secondsUntil } from '../request/metering.js';
import { blacklistSettings } from '../../config/config.js';
import { sendJson } from '../request/respond.js';
import { firstQueryValue } from '../request/queryParameters.js';
import type { ServiceDeps } from '../serviceDeps.js';
import { searchVendors } from '../v1/vendorSearch.js';
import type { MacSearchResult } from '../../records/macRecord.js';

type Family = 'mac' | 'blacklist';

/** SPEC 4.9: the legacy MAC lookup answer, and what a special address is (the v1 record's `special`, in this format's case). */
export interface LegacyMacAnswer {
  success: true;
  found: boolean;
  macAddress: {
    oui: string;
    isRandomized: boolean;
    transmission: 'unicast' | 'multicast';
    administration: 'UAA' | 'LAA';
    special: { name: string; protocol: string | null; assignedBy: string; reference: string } | null;
  };
  /** company null: a private registration (the registry does not name the assignee) */
  vendor: { company: string | null; website: string | null; country: string | null; countryName: string | null } | null;
}

/** The legacy reverse search (`vendor=`): company name → its OUI prefixes. */
export interface LegacyVendorAnswer {
  success: true;
  found: boolean;
  vendor: string;
  count: number;
  prefixes: { oui: string; company: string; country: string | null; blockType: MacSearchResult['block_type'] }[];
}

export interface LegacyMacHealth {
  success: boolean;
  status: 'ok' | 'unavailable';
  /** source_date: the date of the registry data, null when its sources state none */
  mac_table: { loaded: true; built_at: string; source_date: string | null; blocks: number | null } | { loaded: false };
}

/** The compact legacy blacklist check (docs/api.md "Legacy endpoints"). */
export interface LegacyCheckAnswer {
  success: true;
  ip: string;
  listed: boolean;
  threat_type: string | null;
  confidence: number;
  reports: number;
  last_seen: string | null;
}

/**
 * Serves a request that holds a valid key or fits the client's daily allowance (per IPv4 address
 * or IPv6 /64). A keyless request whose answer fails (bad input, the blacklist unreadable) gives
 * its count back: only served answers use the allowance.
 */
async function allowed(ctx: Context, deps: ServiceDeps, family: Family, serve: () => Promise<void> | void): Promise<void> {
  if (presentedKey(ctx.headers, ctx.query) !== null) {
    await identifyCaller(ctx, deps);
    await serve();
    return;
  }
  const settings = blacklistSettings(deps.config);
  const limit = family === 'mac' ? settings.legacyMacDaily : settings.legacyCheckDaily;
  const client = countedClientOf(ctx, deps);
  const bucket = `legacy-${family}`;
  const now = deps.now();
  const allowance = await deps.store.blacklist.countDaily(bucket, client, limit, now);
  // A HEAD request is answered as GET is but uses none of the allowance: its count is given back at once.
  const probe = ctx.method === 'HEAD' && allowance.allowed;
  if (probe) await deps.store.blacklist.uncountDaily(bucket, client, now);
  const reset = String(Math.floor(allowance.resets_at.getTime() / 1000));
  const remaining = Math.max(0, limit - allowance.used + (probe ? 1 : 0));
  ctx.set('X-Quota-Limit', String(limit));
  ctx.set('X-Quota-Remaining', String(remaining));
  ctx.set('X-Quota-Reset', reset);
  if (!allowance.allowed) {
    deps.metrics.rejections.inc({ reason: `legacy_${family}_daily` });
    throw new ApiError('quota_exceeded', `Without a key, ${limit} requests per day per client address; add a key for unlimited access.`, {
      'X-Quota-Reset': reset,
      'Retry-After': secondsUntil(allowance.resets_at, now),
    });
  }
  if (probe) {
    await serve();
    return;
  }
  try {
    await serve();
  } catch (error) {
    try {
      await deps.store.blacklist.uncountDaily(bucket, client, now);
      ctx.set('X-Quota-Remaining', String(Math.min(limit, remaining + 1)));
    } catch {
      // The store that failed the answer may fail the give-back too: the answer's error is the one to report.
    }
    throw error;
  }
}

/**
 * SPEC 4.9 lookup by MAC: success, found, macAddress {oui, isRandomized, transmission, administration},
 * vendor; macAddress.special added (null for an ordinary address).
 */
function legacyMac(deps: ServiceDeps, mac: string): LegacyMacAnswer {
  const answer = deps.engine.engine.lookupMac(mac);
  const vendor = answer.found ? answer.vendor : null;
  const special = answer.special;
  return {
    success: true,
    found: answer.found,
    macAddress: {
      oui: answer.oui,
      isRandomized: answer.is_randomized,
      transmission: answer.is_multicast ? 'multicast' : 'unicast',
      administration: answer.is_local ? 'LAA' : 'UAA',
      special: special && { name: special.name, protocol: special.protocol, assignedBy: special.assigned_by, reference: special.reference },
    },
    vendor: vendor && { company: vendor.company, website: vendor.website, country: vendor.country_code, countryName: vendor.country },
  };
}

/** Reverse search: the OUI prefixes registered to companies whose name contains `vendor`. */
function legacyVendor(deps: ServiceDeps, query: string): LegacyVendorAnswer {
  if (query.length < 2) throw new ApiError('invalid_query');
  if (!deps.engine.engine.macTable) throw new ApiError('unavailable', 'The MAC table is not loaded.');
  const { results } = searchVendors(deps.engine.engine, query);
  return {
    success: true,
    found: results.length > 0,
    vendor: query,
    count: results.length,
    prefixes: results.map((r) => ({ oui: r.oui, company: r.company, country: r.country_code, blockType: r.block_type })),
  };
}

export function legacyRouter(deps: ServiceDeps): Router {
  const router = new Router();

  const lookup = (ctx: Context) =>
    allowed(ctx, deps, 'mac', () => {
      const mac = firstQueryValue(ctx, 'mac')?.trim();
      const vendor = firstQueryValue(ctx, 'vendor')?.trim();
      if (mac) sendJson(ctx, 200, legacyMac(deps, mac));
      else if (vendor !== undefined) sendJson(ctx, 200, legacyVendor(deps, vendor));
      else throw new ApiError('invalid_input', 'Give mac (a MAC address or OUI prefix) or vendor (a company name).');
    });
  router.get('/lookup.php', lookup);
  router.get('/lookup', lookup);

  router.get('/api/mac/v1/health', (ctx) => {
    const table = deps.engine.engine.tables().find((t) => t.kind === 'mac');
    const health: LegacyMacHealth = {
      success: table !== undefined,
      status: table ? 'ok' : 'unavailable',
      mac_table: table
        ? {
            loaded: true,
            built_at: table.built_at,
            source_date: table.source_date,
            blocks: deps.engine.engine.macTable?.blockCount ?? null,
          }
        : { loaded: false },
    };
    sendJson(ctx, table ? 200 : 503, health);
  });

  const check = (ctx: Context) =>
    allowed(ctx, deps, 'blacklist', async () => {
      const text = firstQueryValue(ctx, 'ip') ?? '';
      const address = parseBlacklistAddress(text);
      if (address === null) throw new ApiError('invalid_ip');
      const facts = await deps.store.blacklist.threatFacts(address, deps.now());
      const answer: LegacyCheckAnswer = {
        success: true,
        ip: address.text,
        listed: facts.is_threat,
        threat_type: facts.threat_type,
        confidence: facts.threat_confidence,
        reports: facts.threat_reports,
        last_seen: facts.threat_last_seen,
      };
      sendJson(ctx, 200, answer);
    });
  router.get('/api/check.php', check);
  router.get('/api/check', check);

  const exportList = (ctx: Context) => allowed(ctx, deps, 'blacklist', () => sendExport(ctx, deps, exportRequestOf(ctx), deps.now()));
  router.get('/api/export.php', exportList);
  router.get('/api/export', exportList);

  return router;
}

/** Paths the legacy router serves (app.ts dispatches on them). */
export function isLegacyPath(path: string): boolean {
  return path === '/lookup' || path === '/lookup.php' || path.startsWith('/api/');
}
