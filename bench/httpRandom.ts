/**
 * The random workload of the HTTP bench: every request asks about a new address, drawn by the load
 * generator itself from a seeded stream, as real clients spread over millions of ranges do.
 *
 * The address spaces:
 * - IPv4: uniform over all 2³² values, special-purpose blocks redrawn (`reservedIPv4`);
 * - IPv6: uniform over the space the ASN source (`@ip-location-db/asn`) says is announced, minus the
 *   special-purpose blocks: a CIDR block chosen with probability proportional to its size, then its
 *   host bits drawn uniformly, so every announced address is equally likely (large allocations take
 *   most draws, as they hold most addresses);
 * - MAC: 7 in 8 inside a uniformly chosen IEEE block of oui-data (the rest of the digits random),
 *   1 in 8 fully random; the text forms rotate as in bench/inputs.ts.
 *
 * The stream is defined twice, independently: in Lua for wrk (`luaRandomSource`), with the IPv4
 * public space as intervals and its own RFC 5952 formatting, and in TypeScript (`RequestStream`),
 * with the service's own `reservedIPv4` and `formatIPv6`. Both use sfc32 (bench/inputs.ts's `prng`)
 * from the same seed, so the TypeScript side knows the requests wrk sends: it checks the answers
 * to the first ones, and `verifyStream` compares what wrk sent to a recording server with it.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from '../src/address/ipAddress.js';
import { SPECIAL_PURPOSE_REGISTRY, reservedIPv4, reservedIPv6 } from '../src/address/reservedRange.js';
import { prng } from './inputs.js';
import type { LoadGenerator, LoadRequest } from './httpLoad.js';
import { OUI_JSON, ROOT } from './httpSettings.js';

export const ASN_IPV6_CSV = path.join(ROOT, 'node_modules', '@ip-location-db', 'asn', 'asn-ipv6-num.csv');

export type RandomKind = 'ipv4' | 'ipv6' | 'mac';

/**
 * What a random case sends: request i asks about a fresh address of `kinds[i % kinds.length]` at
 * `paths[kind]` + address + `suffixes[i % suffixes.length]`; with `batch`, each request is instead a
 * POST of `{"ips": [...]}` with `batch.size` fresh IPv4 addresses.
 */
export interface RandomRequests {
  spaces: RandomSpaces;
  kinds: RandomKind[];
  paths: Partial<Record<RandomKind, string>>;
  suffixes: string[];
  batch: { path: string; size: number } | null;
}

/** The spaces the stream draws from, and the directory of their files (read by wrk's Lua and by autocannon's process). */
export interface RandomSpaces {
  dir: string;
  /** public IPv4 intervals, inclusive: start, end, start, end… (for the Lua side) */
  ipv4: number[];
  /** IPv6 CIDR blocks: four network words each */
  ipv6Words: Float64Array;
  ipv6Prefix: Uint8Array;
  /** running sum of the blocks' sizes (2^(128 − prefix)) */
  ipv6Cumulative: Float64Array;
  macPrefixes: string[];
}

const TWO32 = 2 ** 32;
const TWO64 = 2 ** 64;

/** Public IPv4 space as inclusive intervals: the registry's CIDR bounds cut it into pieces of one kind each. */
function publicIPv4Intervals(): number[] {
  const cuts = new Set<number>([0, TWO32]);
  for (const row of SPECIAL_PURPOSE_REGISTRY) {
    if (row.cidr.includes(':')) continue;
    const [address, bits] = row.cidr.split('/');
    const start = parseIPv4(address);
    cuts.add(start);
    cuts.add(start + 2 ** (32 - Number(bits)));
  }
  const sorted = [...cuts].sort((a, b) => a - b);
  const out: number[] = [];
  for (let i = 0; i + 1 < sorted.length; i++) {
    if (reservedIPv4(sorted[i]) !== null) continue;
    const end = sorted[i + 1] - 1;
    if (out.length > 0 && out[out.length - 1] === sorted[i] - 1) out[out.length - 1] = end;
    else out.push(sorted[i], end);
  }
  return out;
}

const MASK32 = 0xffffffffn;

function wordsOf(address: bigint, out: Uint32Array): Uint32Array {
  for (let i = 0; i < 4; i++) out[i] = Number((address >> BigInt(96 - 32 * i)) & MASK32);
  return out;
}

/** Announced IPv6 space from the ASN source, without special-purpose blocks, as CIDR blocks. */
function announcedIPv6Blocks(): { words: number[]; prefix: number[] } {
  const cuts: bigint[] = [];
  const w = new Uint32Array(4);
  for (const row of SPECIAL_PURPOSE_REGISTRY) {
    if (!row.cidr.includes(':')) continue;
    const [address, bits] = row.cidr.split('/');
    if (!parseIPv6(address, w)) throw new Error(`bad registry cidr ${row.cidr}`);
    const start = (BigInt(w[0]) << 96n) | (BigInt(w[1]) << 64n) | (BigInt(w[2]) << 32n) | BigInt(w[3]);
    cuts.push(start, start + (1n << BigInt(128 - Number(bits))));
  }
  cuts.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const words: number[] = [];
  const prefix: number[] = [];
  const addBlocks = (from: bigint, to: bigint) => {
    // The largest aligned block starting at `from` that fits, repeatedly.
    let start = from;
    while (start <= to) {
      let size = 1n;
      let bits = 128;
      while (bits > 0 && start % (size << 1n) === 0n && start + (size << 1n) - 1n <= to) {
        size <<= 1n;
        bits--;
      }
      words.push(...wordsOf(start, w));
      prefix.push(bits);
      start += size;
    }
  };
  for (const line of fs.readFileSync(ASN_IPV6_CSV, 'utf8').split('\n')) {
    const comma = line.indexOf(',');
    if (comma < 0) continue;
    const first = BigInt(line.slice(0, comma));
    const last = BigInt(line.slice(comma + 1, line.indexOf(',', comma + 1)));
    // Cut the row at every registry bound inside it: each piece is then wholly special or wholly global.
    let from = first;
    for (const cut of cuts) {
      if (cut <= from || cut > last) continue;
      if (reservedIPv6(wordsOf(from, w)) === null) addBlocks(from, cut - 1n);
      from = cut;
    }
    if (reservedIPv6(wordsOf(from, w)) === null) addBlocks(from, last);
  }
  return { words, prefix };
}

const FILES = { ipv6: 'random-ipv6.txt', mac: 'random-mac.txt' };

/** Builds the spaces and writes their files into `dir` (for wrk's Lua and autocannon's process). */
export function writeSpaces(dir: string): RandomSpaces {
  const { words, prefix } = announcedIPv6Blocks();
  const cumulative = new Float64Array(prefix.length);
  let sum = 0;
  for (let i = 0; i < prefix.length; i++) cumulative[i] = sum += 2 ** (128 - prefix[i]);
  const lines: string[] = [];
  for (let i = 0; i < prefix.length; i++) lines.push(`${words.slice(4 * i, 4 * i + 4).join(' ')} ${prefix[i]} ${cumulative[i]}`);
  fs.writeFileSync(path.join(dir, FILES.ipv6), lines.join('\n') + '\n');
  const macPrefixes = Object.keys(JSON.parse(fs.readFileSync(OUI_JSON, 'utf8')) as Record<string, string>);
  fs.writeFileSync(path.join(dir, FILES.mac), macPrefixes.join('\n') + '\n');
  return {
    dir,
    ipv4: publicIPv4Intervals(),
    ipv6Words: Float64Array.from(words),
    ipv6Prefix: Uint8Array.from(prefix),
    ipv6Cumulative: cumulative,
    macPrefixes,
  };
}

/** The spaces from the files `writeSpaces` wrote (in autocannon's process). */
export function readSpaces(dir: string): RandomSpaces {
  const rows = fs
    .readFileSync(path.join(dir, FILES.ipv6), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ').map(Number));
  return {
    dir,
    ipv4: publicIPv4Intervals(),
    ipv6Words: Float64Array.from(rows.flatMap((r) => r.slice(0, 4))),
    ipv6Prefix: Uint8Array.from(rows.map((r) => r[4])),
    ipv6Cumulative: Float64Array.from(rows.map((r) => r[5])),
    macPrefixes: fs.readFileSync(path.join(dir, FILES.mac), 'utf8').split('\n').filter(Boolean),
  };
}

/** Share of the 2³² IPv4 values that are public, and the size of the announced IPv6 space (log2), for the report. */
export function spaceSummary(spaces: RandomSpaces): Record<string, number> {
  let v4 = 0;
  for (let i = 0; i < spaces.ipv4.length; i += 2) v4 += spaces.ipv4[i + 1] - spaces.ipv4[i] + 1;
  const total6 = spaces.ipv6Cumulative[spaces.ipv6Cumulative.length - 1];
  return {
    ipv4_public_addresses: v4,
    ipv4_public_share: Math.round((v4 / TWO32) * 1e4) / 1e4,
    ipv6_blocks: spaces.ipv6Prefix.length,
    ipv6_announced_log2: Math.round(Math.log2(total6) * 100) / 100,
    mac_blocks: spaces.macPrefixes.length,
  };
}

const HEX = '0123456789ABCDEF';

/** The TypeScript side of the stream: request i of a seed is the one wrk sends i-th with that seed. */
export class RequestStream {
  private readonly next: () => number;
  private index = 0;
  private readonly words = new Uint32Array(4);

  private readonly spaces: RandomSpaces;

  constructor(
    private readonly random: RandomRequests,
    seed: number,
  ) {
    this.spaces = random.spaces;
    this.next = prng(seed);
  }

  ipv4(): string {
    for (;;) {
      const a = this.next();
      if (reservedIPv4(a) === null) return formatIPv4(a);
    }
  }

  ipv6(): string {
    const { ipv6Cumulative: cumulative, ipv6Prefix, ipv6Words } = this.spaces;
    const u1 = this.next();
    const u2 = this.next();
    const x = ((u1 * TWO32 + u2) / TWO64) * cumulative[cumulative.length - 1];
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (cumulative[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    const prefix = ipv6Prefix[lo];
    for (let w = 0; w < 4; w++) {
      const r = this.next();
      const bits = prefix - 32 * w;
      this.words[w] = bits >= 32 ? ipv6Words[4 * lo + w] : bits <= 0 ? r : ipv6Words[4 * lo + w] + (r % 2 ** (32 - bits));
    }
    return formatIPv6(this.words);
  }

  mac(index: number): string {
    const { macPrefixes } = this.spaces;
    let hex = this.next() % 8 === 0 ? '' : macPrefixes[this.next() % macPrefixes.length];
    while (hex.length < 12) hex += HEX[this.next() & 15];
    const pairs = hex.match(/../g)!;
    const form = index % 4;
    return form < 2 ? pairs.join(':') : form === 2 ? pairs.join('-').toLowerCase() : hex.toLowerCase();
  }

  request(): LoadRequest {
    const i = this.index++;
    const { kinds, paths, suffixes, batch } = this.random;
    if (batch !== null) {
      const ips: string[] = [];
      for (let k = 0; k < batch.size; k++) ips.push(this.ipv4());
      return { method: 'POST', path: batch.path, body: JSON.stringify({ ips }) };
    }
    const kind = kinds[i % kinds.length];
    const address = kind === 'ipv4' ? this.ipv4() : kind === 'ipv6' ? this.ipv6() : this.mac(i);
    return { method: 'GET', path: `${paths[kind]}${address}${suffixes.length > 0 ? suffixes[i % suffixes.length] : ''}` };
  }

  take(count: number): LoadRequest[] {
    return Array.from({ length: count }, () => this.request());
  }
}

/** A Lua string literal for printable ASCII text, with CR and LF when allowed (JSON string syntax is valid Lua for it). */
export function luaString(text: string, lineBreaks = false): string {
  if (!(lineBreaks ? /^[\x20-\x7e\r\n]*$/ : /^[\x20-\x7e]*$/).test(text)) throw new Error(`not printable ASCII: ${text.slice(0, 40)}`);
  return JSON.stringify(text);
}

/**
 * Lua for wrk: `init(args)` seeds the stream from args[1] and reads the spaces' files; `request()`
 * returns the next request, `head` being the header block (ending with the empty line) every
 * request carries. Numbers stay in [0, 2³²) between bit operations, whose int32 results are
 * brought back with `% 2^32`, so that the arithmetic is the TypeScript side's, double for double.
 */
export function luaRandomSource(random: RandomRequests, head: string): string {
  const { spaces } = random;
  const kinds = `{ ${random.kinds.map((k) => luaString(k)).join(', ')} }`;
  const paths = `{ ${Object.entries(random.paths)
    .map(([k, v]) => `${k} = ${luaString(v)}`)
    .join(', ')} }`;
  return `
local bit = require('bit')
local bxor, rshift, lshift, rol, band = bit.bxor, bit.rshift, bit.lshift, bit.rol, bit.band
local floor, format, concat, lower = math.floor, string.format, table.concat, string.lower
local M = 4294967296
local a, b, c, d = 0, 0, 0, 0
local function nextu32()
  local t = (a + b + d) % M
  d = (d + 1) % M
  a = bxor(b, rshift(b, 9)) % M
  b = (c + lshift(c, 3) % M) % M
  c = (rol(c, 21) % M + t) % M
  return t
end
local function seed(s)
  a, b, c, d = 0x9e3779b9, 0x243f6a88, 0xb7e15162, s % M
  for _ = 1, 16 do nextu32() end
end
local v4s, v4e = {}, {}
do
  local iv = { ${spaces.ipv4.join(', ')} }
  for k = 1, #iv, 2 do v4s[#v4s + 1] = iv[k]; v4e[#v4e + 1] = iv[k + 1] end
end
local nv4 = #v4s
local function ipv4()
  while true do
    local x = nextu32()
    local lo, hi = 1, nv4
    while lo < hi do
      local mid = floor((lo + hi + 1) / 2)
      if v4s[mid] <= x then lo = mid else hi = mid - 1 end
    end
    if v4s[lo] <= x and x <= v4e[lo] then
      return format('%d.%d.%d.%d', floor(x / 16777216), floor(x / 65536) % 256, floor(x / 256) % 256, x % 256)
    end
  end
end
local v6w, v6p, v6c, nv6 = {}, {}, {}, 0
local macp, nmac = {}, 0
local function load_spaces(dir)
  for line in io.lines(dir .. '/${FILES.ipv6}') do
    local w0, w1, w2, w3, p, cum = line:match('^(%d+) (%d+) (%d+) (%d+) (%d+) (%S+)$')
    nv6 = nv6 + 1
    v6w[4 * nv6 - 3], v6w[4 * nv6 - 2], v6w[4 * nv6 - 1], v6w[4 * nv6] = tonumber(w0), tonumber(w1), tonumber(w2), tonumber(w3)
    v6p[nv6] = tonumber(p)
    v6c[nv6] = tonumber(cum)
  end
  for line in io.lines(dir .. '/${FILES.mac}') do
    if #line > 0 then nmac = nmac + 1; macp[nmac] = line end
  end
end
local groups = {}
local function ipv6()
  local u1 = nextu32()
  local u2 = nextu32()
  local x = (u1 * M + u2) / 18446744073709551616 * v6c[nv6]
  local lo, hi = 1, nv6
  while lo < hi do
    local mid = floor((lo + hi) / 2)
    if v6c[mid] > x then hi = mid else lo = mid + 1 end
  end
  local p = v6p[lo]
  for w = 0, 3 do
    local r = nextu32()
    local bits = p - 32 * w
    local word
    if bits >= 32 then word = v6w[4 * lo - 3 + w]
    elseif bits <= 0 then word = r
    else word = v6w[4 * lo - 3 + w] + r % 2 ^ (32 - bits) end
    groups[2 * w + 1] = floor(word / 65536)
    groups[2 * w + 2] = word % 65536
  end
  -- RFC 5952: the first longest run of two or more zero groups becomes '::'
  local best, bestlen = 0, 1
  local g = 1
  while g <= 8 do
    if groups[g] == 0 then
      local e = g
      while e < 8 and groups[e + 1] == 0 do e = e + 1 end
      if e - g + 1 > bestlen then best, bestlen = g, e - g + 1 end
      g = e + 1
    else
      g = g + 1
    end
  end
  local out = {}
  local k = 1
  while k <= 8 do
    if k == best then
      out[#out + 1] = '::'
      k = k + bestlen
    else
      if #out > 0 and k ~= best + bestlen then out[#out + 1] = ':' end
      out[#out + 1] = format('%x', groups[k])
      k = k + 1
    end
  end
  return concat(out)
end
local HEX = { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F' }
local function mac(i)
  local hex = ''
  if nextu32() % 8 ~= 0 then hex = macp[nextu32() % nmac + 1] end
  local parts = { hex }
  for _ = #hex + 1, 12 do parts[#parts + 1] = HEX[band(nextu32(), 15) + 1] end
  hex = concat(parts)
  local form = i % 4
  if form == 3 then return lower(hex) end
  local sep = form == 2 and '-' or ':'
  local t = concat({ hex:sub(1, 2), hex:sub(3, 4), hex:sub(5, 6), hex:sub(7, 8), hex:sub(9, 10), hex:sub(11, 12) }, sep)
  return form == 2 and lower(t) or t
end
local kinds = ${kinds}
local nkinds = #kinds
local paths = ${paths}
local suffixes = { ${random.suffixes.map((k) => luaString(k)).join(', ')} }
local nsuffixes = #suffixes
local head = ${luaString(head, true)}
local batch_path = ${random.batch ? luaString(random.batch.path) : 'nil'}
local batch_size = ${random.batch ? random.batch.size : 0}
local index = 0
function init(args)
  seed(tonumber(args[1]))
  load_spaces(${luaString(spaces.dir)})
end
function request()
  local i = index
  index = index + 1
  if batch_path then
    local ips = {}
    for k = 1, batch_size do ips[k] = ipv4() end
    local body = '{"ips":["' .. concat(ips, '","') .. '"]}'
    return 'POST ' .. batch_path .. ' HTTP/1.1\\r\\nContent-Length: ' .. #body .. '\\r\\n' .. head .. body
  end
  local kind = kinds[i % nkinds + 1]
  local address
  if kind == 'ipv4' then address = ipv4() elseif kind == 'ipv6' then address = ipv6() else address = mac(i) end
  local suffix = nsuffixes > 0 and suffixes[i % nsuffixes + 1] or ''
  return 'GET ' .. paths[kind] .. address .. suffix .. ' HTTP/1.1\\r\\n' .. head
end
`;
}

/** The first `count` requests the load generator sends with `seed`. */
export function sentRequests(generator: LoadGenerator, random: RandomRequests, seed: number, count: number): LoadRequest[] {
  const stream = new RequestStream(random, seed);
  stream.take(generator.streamOffset);
  return stream.take(count);
}

/**
 * Whether the load generator sends exactly the TypeScript stream: a recording server in this process
 * takes what it sends over one connection for a second (every kind in turn with suffixes, then
 * batches), and each request is compared with the stream's. Returns the counts compared, or throws.
 */
export async function verifyStream(
  generator: LoadGenerator,
  spaces: RandomSpaces,
  options: { cpu: string | null; seed: number },
): Promise<{ requests_compared: number; batches_compared: number }> {
  const recorded: LoadRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('latin1');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (recorded.length < VERIFY_LIMIT)
        recorded.push({ method: req.method as LoadRequest['method'], path: req.url ?? '', ...(body ? { body } : {}) });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const specs: RandomRequests[] = [
    {
      spaces,
      kinds: ['ipv4', 'ipv6', 'mac'],
      paths: { ipv4: '/v1/ip/', ipv6: '/v1/ip/', mac: '/v1/mac/' },
      suffixes: ['?key=a', '?key=b', '', '?fields=x'],
      batch: null,
    },
    { spaces, kinds: ['ipv4'], paths: {}, suffixes: [], batch: { path: '/v1/ip/batch', size: 10 } },
  ];
  const counts: number[] = [];
  try {
    for (const [n, random] of specs.entries()) {
      recorded.length = 0;
      const prepared = generator.prepare({ port, headers: { 'X-API-Key': 'k' }, requests: [], random }, spaces.dir, `verify-${n}`);
      await generator.run(prepared, { connections: 1, seconds: 1, timeoutSeconds: 5, cpu: options.cpu, seed: options.seed });
      const expected = sentRequests(generator, random, options.seed, recorded.length);
      recorded.forEach((r, i) => {
        const e = expected[i];
        if (r.method !== e.method || r.path !== e.path || (r.body ?? '') !== (e.body ?? ''))
          throw new Error(
            `${generator.name}'s request ${i} differs from the stream's: ${r.method} ${r.path} ${r.body?.slice(0, 80) ?? ''} ≠ ${e.method} ${e.path} ${e.body?.slice(0, 80) ?? ''}`,
          );
      });
      if (recorded.length < 100) throw new Error(`${generator.name} sent only ${recorded.length} requests to the recording server`);
      counts.push(recorded.length);
    }
  } finally {
    server.close();
    server.closeAllConnections();
  }
  return { requests_compared: counts[0], batches_compared: counts[1] };
}

const VERIFY_LIMIT = 20_000;
