/**
 * Firewall exports of the blacklist, rendered as a stream of text chunks from a stream of rows
 * (ascending, IPv4 first): nothing of the list is held beyond one chunk of rows, except the CIDR
 * merger's stack (at most 129 blocks).
 *
 * - plain     one address per line
 * - cidr      the minimal CIDR cover of the addresses (adjacent addresses merged)
 * - ipset     an `ipset restore` file: fills <name>-v4/-v6 through a temporary set and a swap
 * - nftables  an `nft -f` file: table inet <name> with sets v4 and v6, flushed and refilled
 * - iptables  a shell script: chain <NAME> in iptables and ip6tables, flushed and refilled
 * - csv       ip,version,threat_type,confidence,reports,first_seen,last_seen
 * - json      {"success":true,"generated_at","filter","addresses":[…],"count"}, indented as JSON.stringify's 2 with `pretty`
 */
import type { ExportFilter, ExportRow } from './listing.js';
import { blacklistTime } from './blacklistTime.js';
import { CidrMerger } from './cidr.js';

export const exportFormats = ['plain', 'cidr', 'ipset', 'nftables', 'iptables', 'csv', 'json'] as const;
export type ExportFormat = (typeof exportFormats)[number];

export function contentTypeOf(format: ExportFormat): string {
  if (format === 'json') return 'application/json; charset=utf-8';
  if (format === 'csv') return 'text/csv; charset=utf-8';
  return 'text/plain; charset=utf-8';
}

export interface ExportContext {
  generated_at: Date;
  filter: ExportFilter;
  /** set, table or chain name for the firewall formats (letters, digits, _ and -) */
  name: string;
  /** json: indented, as every JSON answer with `pretty` */
  pretty?: boolean;
}

/**
 * The export as text chunks, one per chunk of rows. Each IP version the filter allows gets its
 * section (set, chain) even when it has no rows, so that a firewall's list empties when it should.
 */
export async function* renderExport(
  format: ExportFormat,
  chunks: AsyncIterable<ExportRow[]>,
  context: ExportContext,
): AsyncGenerator<string> {
  const render = renderers[format](context);
  const versions: (4 | 6)[] = context.filter.version === null ? [4, 6] : [context.filter.version];
  let next = 0;
  let open: 4 | 6 | null = null;
  /** closes the open section and opens (empty) every section before `version`, then `version` */
  const advanceTo = (version: 4 | 6 | null): string => {
    let text = open === null ? '' : render.endVersion(open);
    open = null;
    while (next < versions.length && (version === null || versions[next] <= version)) {
      const v = versions[next++];
      text += render.startVersion(v);
      if (v === version) open = v;
      else text += render.endVersion(v);
    }
    return text;
  };
  yield render.head();
  for await (const rows of chunks) {
    let text = '';
    for (const row of rows) {
      if (row.version !== open) text += advanceTo(row.version);
      text += render.row(row);
    }
    yield text;
  }
  yield advanceTo(null) + render.tail();
}

interface Renderer {
  head(): string;
  /** before the first row of a version (also for a version without rows) */
  startVersion(version: 4 | 6): string;
  row(row: ExportRow): string;
  endVersion(version: 4 | 6): string;
  tail(): string;
}

const none = () => '';
const comment = (c: ExportContext, prefix = '#') =>
  `${prefix} netlookup blacklist, generated ${c.generated_at.toISOString()}; min_confidence ${c.filter.min_confidence}` +
  `${c.filter.version ? `, IPv${c.filter.version} only` : ''}${c.filter.max_age_ms === null ? '' : `, reported within ${Math.round(c.filter.max_age_ms / 1000)} s`}\n`;

function ipv4Number(text: string): bigint {
  return BigInt(text.split('.').reduce((n, part) => n * 256 + Number(part), 0));
}

function ipv6Number(text: string): bigint {
  const [left, right] = text.includes('::') ? text.split('::') : [text, null];
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(left);
  const tail = right === null ? [] : groups(right);
  const all = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function ipv4Text(n: bigint): string {
  const v = Number(n);
  return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

function ipv6Text(n: bigint): string {
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((n >> BigInt(16 * i)) & 0xffffn).toString(16));
  // Compress the longest run of zero groups (RFC 5952).
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    if (j > i) i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLength).join(':')}`;
}

function cidr(): Renderer {
  let merger: CidrMerger | null = null;
  const lines = (blocks: string[]) => blocks.map((b) => `${b}\n`).join('');
  return {
    head: none,
    startVersion: (version) => {
      merger = new CidrMerger(version, version === 4 ? ipv4Text : ipv6Text);
      return '';
    },
    row: (row) => lines(merger!.add(row.version === 4 ? ipv4Number(row.ip) : ipv6Number(row.ip))),
    endVersion: () => lines(merger!.flush()),
    tail: none,
  };
}

function ipset(c: ExportContext): Renderer {
  const set = (v: 4 | 6) => `${c.name}-v${v}`;
  return {
    head: () => comment(c),
    startVersion: (v) => {
      const family = v === 4 ? 'inet' : 'inet6';
      return (
        `create ${set(v)} hash:ip family ${family} maxelem 16777216 -exist\n` +
        `create ${set(v)}-new hash:ip family ${family} maxelem 16777216 -exist\n` +
        `flush ${set(v)}-new\n`
      );
    },
    row: (row) => `add ${set(row.version)}-new ${row.ip}\n`,
    endVersion: (v) => `swap ${set(v)}-new ${set(v)}\ndestroy ${set(v)}-new\n`,
    tail: none,
  };
}

function nftables(c: ExportContext): Renderer {
  // One `add element` statement per row keeps every line short and the file streamable.
  return {
    head: () => `#!/usr/sbin/nft -f\n${comment(c)}table inet ${c.name} {\n\tset v4 { type ipv4_addr; }\n\tset v6 { type ipv6_addr; }\n}\n`,
    startVersion: (v) => `flush set inet ${c.name} v${v}\n`,
    row: (row) => `add element inet ${c.name} v${row.version} { ${row.ip} }\n`,
    endVersion: none,
    tail: none,
  };
}

function iptables(c: ExportContext): Renderer {
  const chain = c.name.toUpperCase();
  const tool = (v: 4 | 6) => (v === 4 ? 'iptables' : 'ip6tables');
  return {
    head: () => `#!/bin/sh\n${comment(c)}set -e\n`,
    startVersion: (v) => `${tool(v)} -N ${chain} 2>/dev/null || ${tool(v)} -F ${chain}\n`,
    row: (row) => `${tool(row.version)} -A ${chain} -s ${row.ip} -j DROP\n`,
    endVersion: (v) => `${tool(v)} -C INPUT -j ${chain} 2>/dev/null || ${tool(v)} -I INPUT -j ${chain}\n`,
    tail: none,
  };
}

function csv(): Renderer {
  return {
    head: () => 'ip,version,threat_type,confidence,reports,first_seen,last_seen\n',
    startVersion: none,
    row: (r) =>
      `${r.ip},${r.version},${r.threat_type},${r.confidence},${r.total_reports},${blacklistTime(r.first_seen)},${blacklistTime(r.last_seen)}\n`,
    endVersion: none,
    tail: none,
  };
}

/** The JSON export, streamed: the same text as JSON.stringify of the whole (indented by 2 with `pretty`). */
function json(c: ExportContext): Renderer {
  let count = 0;
  // Pretty: a member of the envelope is indented once, an address (an array element) twice.
  const [member, element, colon] = c.pretty ? ['\n  ', '\n    ', ': '] : ['', '', ':'];
  const nested = (value: unknown, depth: string) =>
    c.pretty ? JSON.stringify(value, null, 2).replaceAll('\n', depth) : JSON.stringify(value);
  return {
    head: () =>
      `{${member}"success"${colon}true,${member}"generated_at"${colon}${JSON.stringify(c.generated_at.toISOString())},` +
      `${member}"filter"${colon}${nested(c.filter, member)},${member}"addresses"${colon}[`,
    startVersion: none,
    row: (r) =>
      `${count++ === 0 ? '' : ','}${element}${nested(
        {
          ip: r.ip,
          version: r.version,
          threat_type: r.threat_type,
          confidence: r.confidence,
          reports: r.total_reports,
          first_seen: blacklistTime(r.first_seen),
          last_seen: blacklistTime(r.last_seen),
        },
        element,
      )}`,
    endVersion: none,
    tail: () => `${count > 0 ? member : ''}],${member}"count"${colon}${count}${c.pretty ? '\n' : ''}}\n`,
  };
}

const renderers: Record<ExportFormat, (c: ExportContext) => Renderer> = {
  plain: () => ({ head: none, startVersion: none, row: (r) => `${r.ip}\n`, endVersion: none, tail: none }),
  cidr,
  ipset,
  nftables,
  iptables,
  csv,
  json,
};
