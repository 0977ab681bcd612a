/**
 * The feeds `netlookup update` fetches for the paid record's verdicts, beside the table sources of
 * sourceCatalog.ts: where each is, how big it may be, how it is checked, how often it changes, how
 * long it answers, and its licence. docs/feeds.md states the same for operators.
 */
import type { FeedListing } from '../feeds/sources/feedListing.js';
import type { ValuedRange } from '../feeds/build/feedTables.js';
import type { PublishedSource } from './sourceCatalog.js';

export interface FeedSourceDefinition extends PublishedSource {
  /** the feed table it goes into */
  table: 'security' | 'rpki' | 'abuse';
  /** what a listed address is */
  says: 'tor' | 'vpn' | 'proxy' | 'relay' | 'rpki' | 'abuse';
  /** how long after its date the feed answers (a multiple of its cadence); past it, its verdicts are null */
  staleAfterMs: number;
  /** security feeds: the listing of the file */
  listing?(file: string, url: string): Promise<FeedListing>;
  /** rpki and abuse feeds: the valued ranges of the file (with the routes in force, or the group's other files) */
  ranges?(file: string, url: string, context: { routes?: string; files?: Record<string, string> }): Promise<ValuedRange<string>[]>;
  /** abuse feeds: the registry whose dump files are read together, and this file's part of it */
  group?: string;
  part?: string;
}

export const FEED_SOURCES: readonly FeedSourceDefinition[] = [];
