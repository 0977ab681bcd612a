/**
 * One report as a reporter sends it (the HTTP intake's JSON or form fields, an imported row),
 * checked: a public address, a threat type by name or category list, an optional message,
 * source and time (not in the future, not older than the retention window).
 *
 * Which time dates the report is the caller's choice: the HTTP intake takes the arrival time,
 * since a claimed time would let one reporter space its repeats out of the merge window and
 * raise the confidence alone; the operator's own import (the CLI) takes the time in its files.
 */
import type { LookupEngine } from '../engine/lookupEngine.js';
import { ApiError } from '../errors.js';
import type { ReportInput } from './listing.js';
import { parseBlacklistAddress, reservedRangeOf, type BlacklistAddress } from './address.js';
import { threatTypeOf, threatTypeOfCategories, threatTypes, type ThreatType } from './threatTypes.js';

export const MAX_MESSAGE_LENGTH = 1024;
export const MAX_SOURCE_LENGTH = 64;
/** Reporters' clocks may run a little ahead of ours. */
const FUTURE_TOLERANCE_MS = 60_000;

export interface ReportFields {
  ip?: unknown;
  threat_type?: unknown;
  categories?: unknown;
  category?: unknown;
  comment?: unknown;
  message?: unknown;
  source?: unknown;
  timestamp?: unknown;
}

export interface ReportDraft {
  address: BlacklistAddress;
  threat_type: ThreatType;
  message: string | null;
  source: string;
  at: Date;
}

const refuse = (message: string): never => {
  throw new ApiError('invalid_report', message);
};

const single = (value: unknown): unknown => (Array.isArray(value) && value.length === 1 ? value[0] : value);

function textOf(value: unknown, name: string): string | null {
  const v = single(value);
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' && typeof v !== 'number') refuse(`${name} must be text.`);
  const text = String(v).trim();
  return text.length === 0 ? null : text;
}

/** ISO 8601 (with or without zone: without means UTC) or Unix seconds. */
function parseReportTime(text: string): Date | null {
  if (/^\d{9,11}(\.\d+)?$/.test(text)) return new Date(Number(text) * 1000);
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(text)) return null;
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(text) || text.length === 10 ? text : `${text}Z`;
  const date = new Date(zoned.replace(' ', 'T'));
  return Number.isNaN(date.getTime()) ? null : date;
}

function threatTypeOfFields(fields: ReportFields): ThreatType {
  const named = textOf(fields.threat_type, 'threat_type');
  if (named !== null) {
    return threatTypeOf(named) ?? refuse(`threat_type must be one of ${threatTypes.join(', ')}.`);
  }
  const list = single(fields.categories ?? fields.category);
  if (list === undefined || list === null || list === '') return refuse('threat_type or categories is required.');
  if (typeof list !== 'string' && typeof list !== 'number' && !Array.isArray(list))
    return refuse('categories must be a list of category numbers.');
  return threatTypeOfCategories(list as string) ?? refuse('categories must be category numbers 1 to 23 (comma separated).');
}

/** `arrival`: the report is dated `now` (a claimed timestamp is still checked, then set aside); `claimed`: by its timestamp. */
export type ReportTimeSource = 'arrival' | 'claimed';

export function draftReport(
  fields: ReportFields,
  now: Date,
  retentionMs: number,
  defaultSource: string,
  time: ReportTimeSource,
): ReportDraft {
  const ipText = textOf(fields.ip, 'ip');
  const address = ipText === null ? null : parseBlacklistAddress(ipText);
  if (address === null) throw new ApiError('invalid_ip', ipText === null ? 'The report needs an ip.' : undefined);
  const reserved = reservedRangeOf(address);
  if (reserved !== null)
    throw new ApiError('reserved_ip', `${address.text} is reserved (${reserved.description}); only public addresses can be reported.`);
  const threat_type = threatTypeOfFields(fields);
  const message = textOf(fields.comment ?? fields.message, 'comment');
  const source = textOf(fields.source, 'source') ?? defaultSource;
  if (source.length > MAX_SOURCE_LENGTH) refuse(`source must be at most ${MAX_SOURCE_LENGTH} characters.`);
  const stamp = textOf(fields.timestamp, 'timestamp');
  let at = now;
  if (stamp !== null) {
    at = parseReportTime(stamp) ?? refuse('timestamp must be ISO 8601 or Unix seconds.');
    if (at.getTime() > now.getTime() + FUTURE_TOLERANCE_MS) refuse('timestamp is in the future.');
    if (at.getTime() < now.getTime() - retentionMs) refuse('timestamp is older than the retention window.');
    if (at.getTime() > now.getTime() || time === 'arrival') at = now;
  }
  return { address, threat_type, message: message === null ? null : message.slice(0, MAX_MESSAGE_LENGTH), source, at };
}

/** The store's input for a checked report: the reporter, and the engine's country and provider now (unknown without tables). */
export function reportInputOf(draft: ReportDraft, reporter: string, engine: LookupEngine | null): ReportInput {
  const { address } = draft;
  let country_code: string | null = null;
  let isp: string | null = null;
  if (engine && ((address.v4 >= 0 && engine.ip4) || (address.v4 < 0 && engine.ip6))) {
    const answer = address.v4 >= 0 ? engine.answerIPv4(address.v4) : engine.answerIPv6(address.words);
    country_code = answer.location?.country_code ?? null;
    isp = answer.network?.organization ?? null;
  }
  return {
    ip: address.text,
    reporter,
    threat_type: draft.threat_type,
    message: draft.message,
    source: draft.source,
    at: draft.at,
    country_code,
    isp,
  };
}
