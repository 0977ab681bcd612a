/**
 * The engine over the compact sets (ip4c, ip6c, macc): country and AS of an IP address, and the
 * MAC answer less the company address. Parsing, reserved ranges, the WASM search and the MAC
 * answers are the full engine's; only the range tables differ. Platform-neutral: bytes in.
 *
 * With a security feed table (`security.nlt` of a feed set, copied beside the compact sets by
 * `netlookup update`), an IP answer also carries the Tor, VPN and proxy flags by the server's
 * rule (src/feeds/securityVerdicts.ts): a page or edge function can swap in a newer table as
 * the feeds change, without reloading the engine.
 */
import { ApiError } from '../errors.js';
import { FeedTable, type FeedState, type SecurityValue } from '../feeds/format/feedTable.js';
import { SecurityVerdicts, type FeedSecurity } from '../feeds/securityVerdicts.js';
import { TableFormatError } from '../tables/format/container.js';
import type { CompactIpTable } from '../tables/format/compactIpTable.js';
import type { MacTable } from '../tables/format/macTable.js';
import type { CountryFacts } from '../tables/format/tableMeta.js';
import type { TableInfo } from './lookupEngine.js';
import { parseIp, type IpVersion } from '../address/ipAddress.js';
import { MacAnswers, type CompactMacAnswer } from './macAnswers.js';
import { reservedIPv4, reservedIPv6, type ReservedRange } from '../address/reservedRange.js';
import { compactReaders, instantiateEngine, placeTables, type PlacedTables, type TableNames, type TableSources } from './wasmEngine.js';

export type { CompactMacAnswer } from './macAnswers.js';
export type { FeedSecurity } from '../feeds/securityVerdicts.js';

/** The full engine's IP answer reduced to what the compact set carries (same values, same nulls). */
export interface CompactIpAnswer {
  ip: string;
  version: IpVersion;
  status: 'found' | 'reserved' | 'not_found';
  reserved: ReservedRange | null;
  country_code: string | null;
  country: CountryFacts | null;
  network: { asn: number | null; organization: string | null } | null;
  /** the security flags of the feeds, present when a security table is loaded (not for reserved addresses) */
  security?: FeedSecurity;
}

export type CompactTableInfo = TableInfo<'ip4c' | 'ip6c' | 'macc'>;

export class CompactEngine {
  private readonly macAnswers: MacAnswers | null;
  private verdicts: SecurityVerdicts | null = null;

  private constructor(private readonly placed: PlacedTables<CompactIpTable>) {
    this.macAnswers = placed.mac ? new MacAnswers(placed.exports, placed.mac) : null;
  }

  /** Instantiates the WASM module (bytes or a compiled module) and loads the given compact tables. */
  static async create(wasm: BufferSource | WebAssembly.Module, tables: TableSources, names: TableNames = {}): Promise<CompactEngine> {
    const exports = await instantiateEngine(wasm);
    return new CompactEngine(await placeTables(exports, tables, names, compactReaders));
  }

  tables(): CompactTableInfo[] {
    const list: CompactTableInfo[] = [];
    const kinds = { ip4: 'ip4c', ip6: 'ip6c', mac: 'macc' } as const;
    for (const kind of ['ip4', 'ip6', 'mac'] as const) {
      const table: CompactIpTable | MacTable | null = this.placed[kind];
      if (!table) continue;
      const { header } = table;
      list.push({
        kind: kinds[kind],
        file: table.file,
        checksum: header.checksum,
        built_at: header.builtAt.toISOString(),
        source_date: header.sourceDate?.toISOString() ?? null,
        bytes: header.fileLength,
        meta: table.meta,
      });
    }
    return list;
  }

  /**
   * Loads (or replaces, or with null drops) the security feed table an IP answer's `security`
   * comes from. Throws TableFormatError when the bytes are not a security feed table.
   */
  useSecurityTable(bytes: ArrayBuffer | ArrayBufferView | null, name = 'security.nlt'): void {
    if (bytes === null) {
      this.verdicts = null;
      return;
    }
    // copied into a buffer of its own: the table's sections are read through aligned views
    const view = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const table = new FeedTable<SecurityValue>(view.slice(), name);
    if (table.meta.feed_kind !== 'security') throw new TableFormatError(name, `a ${table.meta.feed_kind} table, not a security one`);
    this.verdicts = new SecurityVerdicts(table);
  }

  /** The feeds of the security table in use, with their dates and when they stop answering; empty without one. */
  securityFeeds(): FeedState[] {
    return this.verdicts?.table.meta.feeds ?? [];
  }

  /**
   * Answers an IP address in text; `nowMs` (default the clock) decides which feeds are fresh.
   * Throws ApiError invalid_ip for anything not an address.
   */
  lookupIp(text: string, nowMs: number = Date.now()): CompactIpAnswer {
    const ip = parseIp(text);
    if (!ip) throw new ApiError('invalid_ip');
    const version: IpVersion = ip.v4 >= 0 ? 4 : 6;
    const reserved = ip.v4 >= 0 ? reservedIPv4(ip.v4) : reservedIPv6(ip.words);
    if (reserved) return { ip: ip.text, version, status: 'reserved', reserved, country_code: null, country: null, network: null };
    const { exports } = this.placed;
    const table = version === 4 ? this.placed.ip4 : this.placed.ip6;
    if (!table) throw new ApiError('unavailable', `The IPv${version} table is not loaded.`);
    const w = ip.words;
    const range = version === 4 ? exports.v4Find(ip.v4) : exports.v6FindWords(w[0], w[1], w[2], w[3]);
    const row = table.answer(range);
    const answer: CompactIpAnswer = row
      ? {
          ip: ip.text,
          version,
          status: 'found',
          reserved: null,
          country_code: row.country_code,
          country: row.country_code ? (table.countries.get(row.country_code) ?? null) : null,
          network: row.network,
        }
      : { ip: ip.text, version, status: 'not_found', reserved: null, country_code: null, country: null, network: null };
    if (this.verdicts !== null) answer.security = this.verdicts.of(ip.v4, ip.words, nowMs);
    return answer;
  }

  /** Answers a MAC address or OUI prefix in text. Throws ApiError invalid_mac. */
  lookupMac(text: string): CompactMacAnswer {
    if (!this.macAnswers) throw new ApiError('unavailable', 'The MAC table is not loaded.');
    return this.macAnswers.lookup(text);
  }
}
