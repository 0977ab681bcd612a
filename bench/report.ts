/** Result records of bench/engine.ts and their text and Markdown tables. */

export type Group = 'ipv4-single' | 'ipv6-single' | 'mac-single';

export const GROUP_TITLES: Record<Group, string> = {
  'ipv4-single': 'IPv4, single call, text in',
  'ipv6-single': 'IPv6, single call, text in',
  'mac-single': 'MAC, single call, text in',
};

export interface Target {
  /** e.g. "≥ 10× maxmind" */
  text: string;
  pass: boolean;
  /** the case the brief's target names; other engine cases are judged for information */
  primary: boolean;
  /** a ratio target decided by less than the two cases' combined rme: another run may flip it */
  within_noise?: boolean;
}

export interface CaseResult {
  group: Group;
  id: string;
  name: string;
  ours: boolean;
  /** benchmark.js hz: calls per second */
  ops_per_sec: number;
  /** lookups per second (ops × batch size for batch cases) */
  lookups_per_sec: number;
  ns_per_lookup: number;
  /** relative margin of error, percent */
  rme: number;
  samples: number;
  /** this case's lookups/s divided by each peer's, by peer id */
  ratios: Record<string, number>;
  target: Target | null;
  /** the answer as the API serves it: text in, the complete record's JSON out */
  served?: boolean;
  note?: string;
}

export interface ChildLoad {
  command: string;
  module: string;
  /** dist/ only: when the compiled module was built (it may lag behind src/) */
  module_built_at?: string;
  load_ms: number;
  import_ms: number;
  ready_since_process_start_ms: number;
  wall_ms: number;
  rss_mb: number;
  /** the RSS target judged on this process too (for information) */
  rss_target?: Target;
}

export interface LoadResult {
  in_process_ms: number[];
  median_ms: number;
  first_in_process_ms: number;
  /** a new process: node --import tsx, src/ */
  child: ChildLoad | null;
  /** a new process: plain node, the compiled dist/ (no tsx loader thread: the production RSS) */
  child_plain_node: ChildLoad | null;
  /** why the plain-node child could not load (e.g. dist/ older than build/) */
  child_plain_node_failed?: string;
  target: Target;
}

export interface MemoryResult {
  rss_before_mb: number;
  rss_after_mb: number;
  heap_used_mb: number;
  external_mb: number;
  wasm_memory_mb: number;
  table_bytes_mb: number;
  /** RSS of an empty `node -e` and `node --import tsx -e`: the difference is the tsx loader's share */
  empty_process_rss_mb: { plain_node: number; node_import_tsx: number };
  target: Target;
}

const mb = (n: number) => n / 2 ** 20;
export const toMb = (n: number) => Math.round(mb(n) * 10) / 10;

export function fmtRate(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return n.toFixed(1);
}

function fmtNs(ns: number): string {
  return ns >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${ns.toFixed(1)} ns`;
}

function fmtRatio(r: number): string {
  return r >= 10 ? `${r.toFixed(0)}×` : r >= 1 ? `${r.toFixed(2)}×` : `${r.toFixed(3)}×`;
}

function verdict(t: Target | null): string {
  if (!t) return '';
  const mark = (t.pass ? 'PASS' : 'FAIL') + (t.within_noise ? ', within noise' : '');
  return t.primary ? `${mark} (${t.text})` : `(${mark.toLowerCase()}: ${t.text})`;
}

type Row = string[];

function caseRows(results: CaseResult[], names: Map<string, string>): { group: Group; rows: Row[] }[] {
  const groups: { group: Group; rows: Row[] }[] = [];
  for (const group of Object.keys(GROUP_TITLES) as Group[]) {
    const cases = results.filter((c) => c.group === group);
    if (cases.length === 0) continue;
    const rows = cases.map((c) => [
      `${c.served ? '★ ' : ''}${c.name}`,
      `${fmtRate(c.lookups_per_sec)}/s`,
      fmtNs(c.ns_per_lookup),
      `±${c.rme.toFixed(1)}%`,
      String(c.samples),
      Object.entries(c.ratios)
        .map(([peer, r]) => `${fmtRatio(r)} ${names.get(peer) ?? peer}`)
        .join(', '),
      verdict(c.target),
    ]);
    groups.push({ group, rows });
  }
  return groups;
}

const HEAD = ['case', 'lookups/s', 'per lookup', 'rme', 'samples', 'vs peers', 'target'];

function pad(rows: Row[]): string {
  const widths = HEAD.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell + ' '.repeat(widths[i] - [...cell].length))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export interface Summary {
  cases: CaseResult[];
  load: LoadResult;
  memory: MemoryResult;
  shortNames: Map<string, string>;
}

export function textTable({ cases, load, memory, shortNames }: Summary): string {
  const out: string[] = [];
  for (const { group, rows } of caseRows(cases, shortNames)) {
    out.push(`\n${GROUP_TITLES[group]}`);
    out.push(pad([HEAD, HEAD.map((h) => '-'.repeat(h.length)), ...rows]));
  }
  out.push('\nTable load and memory');
  out.push(
    loadLines(load, memory)
      .map((l) => `  ${l}`)
      .join('\n'),
  );
  out.push(
    "\n★ = the answer as the API serves it (text in, the complete record's JSON out); ratios (on our cases) are lookups/s of the case over the peer's; PASS/FAIL on the case the target names, (pass/fail) for information.",
  );
  return out.join('\n');
}

function loadLines(load: LoadResult, memory: MemoryResult): string[] {
  const child = load.child;
  return [
    `load all three tables (loadEngine), median of ${load.in_process_ms.length} in-process: ${load.median_ms.toFixed(0)} ms ` +
      `[${load.in_process_ms.map((m) => m.toFixed(0)).join(', ')}]; first in this process ${load.first_in_process_ms.toFixed(0)} ms — ${verdict(load.target)}`,
    child
      ? `cold child process (node --import tsx, src/): loadEngine ${child.load_ms.toFixed(0)} ms, module import ${child.import_ms.toFixed(0)} ms, ` +
        `ready ${child.ready_since_process_start_ms.toFixed(0)} ms after process start, wall ${child.wall_ms.toFixed(0)} ms, RSS ${child.rss_mb.toFixed(0)} MB`
      : 'cold child process (tsx): not measured',
    load.child_plain_node
      ? `cold child process (plain node, dist/ built ${load.child_plain_node.module_built_at?.slice(0, 16) ?? '?'}): loadEngine ${load.child_plain_node.load_ms.toFixed(0)} ms, ` +
        `ready ${load.child_plain_node.ready_since_process_start_ms.toFixed(0)} ms after process start, RSS ${load.child_plain_node.rss_mb.toFixed(0)} MB (no tsx loader thread)` +
        (load.child_plain_node.rss_target ? ` — ${verdict(load.child_plain_node.rss_target)}` : '')
      : `cold child process (plain node, dist/): not measured (${load.child_plain_node_failed ? `failed: ${load.child_plain_node_failed}; dist/ is older than build/?` : 'no dist/ build'})`,
    `RSS after loading all tables (after gc): ${memory.rss_after_mb.toFixed(0)} MB (before: ${memory.rss_before_mb.toFixed(0)} MB; ` +
      `WASM memory ${memory.wasm_memory_mb.toFixed(0)} MB for ${memory.table_bytes_mb.toFixed(0)} MB of tables; JS heap ${memory.heap_used_mb.toFixed(0)} MB) — ${verdict(memory.target)}`,
    `empty process RSS: plain node ${memory.empty_process_rss_mb.plain_node.toFixed(0)} MB, node --import tsx ${memory.empty_process_rss_mb.node_import_tsx.toFixed(0)} MB ` +
      `(so under plain node the loaded engine would take ≈ ${(memory.rss_after_mb - (memory.empty_process_rss_mb.node_import_tsx - memory.empty_process_rss_mb.plain_node)).toFixed(0)} MB)`,
  ];
}

export function markdownTable({ cases, load, memory, shortNames }: Summary, heading: string): string {
  const out: string[] = [heading, ''];
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  for (const { group, rows } of caseRows(cases, shortNames)) {
    out.push(`**${GROUP_TITLES[group]}**`, '');
    out.push(`| ${HEAD.join(' | ')} |`, `|${HEAD.map((_, i) => (i >= 1 && i <= 4 ? '---:' : '---')).join('|')}|`);
    for (const r of rows) out.push(`| ${r.map(esc).join(' | ')} |`);
    out.push('');
  }
  out.push('**Table load and memory**', '');
  for (const l of loadLines(load, memory)) out.push(`- ${esc(l)}`);
  out.push(
    '',
    "★ = the answer as the API serves it (text in, the complete record's JSON out). Ratios (on our cases): the case's lookups/s over the peer's. PASS/FAIL on the case the target names; (pass/fail) on other engine cases for information.",
  );
  return out.join('\n') + '\n';
}
