/**
 * Strict readers of option values (commander's argParser): a value of the wrong form is bad usage
 * (exit 2, before any store or table is opened), never guessed at. `Number()` would take "0x10",
 * "1e3" and " 8 "; `Date.parse` takes "1" (the year 2001), "2027-02-30" (2 March) and local times
 * that mean another instant on every machine.
 */
import { InvalidArgumentError } from 'commander';
import os from 'node:os';
import { hostOf } from '../config/config.js';
import { normalizeWebsites, StoreInputError } from '../store/storeInput.js';

/** The word that stands for the admin API's JSON null in `--expires` and `--email`. */
const NONE = 'none';

/**
 * An option value with `none` read as null (commander stores a parser's null as ""; so the
 * parsers keep the word and the action reads it here); undefined when the option is not given.
 */
export function noneAsNull(value: string | undefined): string | null | undefined {
  return value === NONE ? null : value;
}

function refuse(message: string): never {
  throw new InvalidArgumentError(message);
}

/** A whole decimal number from `min` to `max`. */
export function wholeNumber(min: number, max: number): (text: string) => number {
  return (text) => {
    const value = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
    if (!(value >= min && value <= max)) refuse(`A whole number from ${min} to ${max} is expected.`);
    return value;
  };
}

/**
 * A build time as Unix seconds, the form of SOURCE_DATE_EPOCH (reproducible-builds.org): a whole
 * number the tables' header can hold (u32), past 2000, since the time-zone inference looks at the
 * clocks around it.
 */
export function unixSeconds(text: string): Date {
  const value = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!(value >= MIN_BUILD_SECONDS && value <= 0xffffffff)) refuse(`Unix seconds from ${MIN_BUILD_SECONDS} to ${0xffffffff} are expected.`);
  return new Date(value * 1000);
}

/** 2000-01-01T00:00:00Z */
const MIN_BUILD_SECONDS = 946684800;

export function listenHost(text: string): string {
  return hostOf(text) ?? refuse('An IP address or host name is expected.');
}

const isoInstant = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * An ISO 8601 date (2027-01-01: its start in UTC) or instant with its zone (2027-01-01T12:00:00Z,
 * …+02:00), as a full ISO instant, or `none`. A real calendar day and clock time only.
 */
export function instantOrNone(text: string): string {
  if (text === NONE) return text;
  const match = isoInstant.exec(text);
  const [year, month, day, hour, minute, second] = (match?.slice(1, 7) ?? []).map((part) => Number(part ?? 0));
  const calendarDay = match !== null && new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day && month >= 1 && month <= 12;
  if (!calendarDay || hour > 23 || minute > 59 || second > 59)
    refuse('An ISO 8601 date (2027-01-01) or instant with its zone (2027-01-01T12:00:00Z), or "none", is expected.');
  return new Date(text).toISOString();
}

export function emailOrNone(text: string): string {
  if (text === NONE) return text;
  if (!/^[^\s@]+@[^\s@]+$/.test(text)) refuse('An email address (name@example.com) or "none" is expected.');
  return text;
}

/** A key's name as the admin API accepts it. */
export function keyName(text: string): string {
  if (text.trim().length === 0 || text.length > 100) refuse('A name of 1 to 100 characters is expected.');
  return text.trim();
}

/** Words that read as "no restriction" but would be stored as a host of that name, locking the key out. */
const unrestrictedWords = new Set(['none', 'any', 'all', '*']);

/**
 * One entry of a key's website list, checked by the stores' own rule (src/store/storeInput.ts),
 * collected into the list (the option repeats).
 */
export function websiteHost(text: string, previous: string[] | undefined): string[] {
  if (unrestrictedWords.has(text.trim().toLowerCase()))
    refuse(`A host is expected; a key without --website answers any website (key update: --no-websites empties the list).`);
  try {
    return [...(previous ?? []), ...normalizeWebsites([text])];
  } catch (error) {
    if (error instanceof StoreInputError) refuse(`${error.message[0].toUpperCase()}${error.message.slice(1)}.`);
    throw error;
  }
}

/** A UTC offset, +01:00 or -0500, in minutes east of UTC. */
export function utcOffsetMinutes(text: string): number {
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(text.trim());
  const hours = Number(match?.[2]);
  const minutes = Number(match?.[3]);
  if (!match || hours > 14 || minutes > 59) refuse('An offset from -14:00 to +14:00 is expected, such as +01:00 or -0500.');
  return (match[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** The most worker processes `serve --workers` starts. */
const MAX_WORKERS = 256;

/** `serve --workers`: a count, or `auto`: one per core this process may use. */
export function workerCount(text: string): number {
  if (text === 'auto') return Math.min(os.availableParallelism(), MAX_WORKERS);
  try {
    return wholeNumber(1, MAX_WORKERS)(text);
  } catch {
    return refuse(`A whole number from 1 to ${MAX_WORKERS}, or auto (one per core), is expected.`);
  }
}
