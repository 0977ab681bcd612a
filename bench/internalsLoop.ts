/**
 * Buffer's undocumented `latin1Slice` / `latin1Write` against the public `toString('latin1', s, e)`
 * and `write(text, offset, 'latin1')`, in a loop, on the sizes the service gives them: a request
 * head as read from a socket (about 200 bytes) and a paid IPv4 record (about 1.3 KB) with the meta
 * written over its closing brace. Rounds alternate the two, and each reports ns per call; the
 * median of the rounds' ratios is printed (docs/performance.md, "Node internals: what each pays").
 *
 *   node --import tsx bench/internalsLoop.ts
 */
const ROUNDS = Number(process.env.BENCH_INTERNALS_ROUNDS ?? 9);
const CALLS = 2_000_000;

interface Undocumented {
  latin1Slice(start: number, end: number): string;
  latin1Write(text: string, offset: number): number;
}

const head = Buffer.from(`GET /v1/ip/81.2.69.160 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-API-Key: nlk_${'7'.repeat(40)}\r\n\r\n`, 'latin1');
const record = Buffer.alloc(64 * 1024, 0x61);
const RECORD_BYTES = 1300;
record[RECORD_BYTES - 1] = 0x7d;
const ending = ',"meta":{"plan":"business","fields":"full","quota":{"period":"month","used":12,"limit":1000000000,"remaining":999999988}}}';

let sink = 0;
const cases = {
  'head, latin1Slice': () => (sink += (head as unknown as Undocumented).latin1Slice(0, head.length).length),
  "head, toString('latin1', s, e)": () => (sink += head.toString('latin1', 0, head.length).length),
  'record with ending, latin1Write + latin1Slice': () => {
    const b = record as unknown as Undocumented;
    sink += b.latin1Slice(0, RECORD_BYTES - 1 + b.latin1Write(ending, RECORD_BYTES - 1)).length;
  },
  "record with ending, write(…, 'latin1') + toString('latin1', …)": () =>
    (sink += record.toString('latin1', 0, RECORD_BYTES - 1 + record.write(ending, RECORD_BYTES - 1, 'latin1')).length),
};

function nsPerCall(run: () => unknown): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) run();
  return Number(process.hrtime.bigint() - started) / CALLS;
}

const names = Object.keys(cases) as (keyof typeof cases)[];
for (const name of names) nsPerCall(cases[name]);
const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? names : [...names].reverse();
  for (const name of order) times[name].push(nsPerCall(cases[name]));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (let i = 0; i < names.length; i += 2) {
  const [internal, open] = [names[i], names[i + 1]];
  const ratios = times[open].map((t, r) => t / times[internal][r]);
  console.log(
    `${internal}: ${median(times[internal]).toFixed(1)} ns; ${open}: ${median(times[open]).toFixed(1)} ns; ` +
      `public / internal ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
  );
}
if (sink === 0) console.log('');
