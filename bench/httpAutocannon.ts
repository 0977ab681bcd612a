/**
 * The autocannon fallback of the HTTP bench, run in its own process by bench/httpLoad.ts when wrk
 * is missing and autocannon is installed (it is not a dependency of this project):
 *
 *   node --import tsx bench/httpAutocannon.ts SPEC.json CONNECTIONS SECONDS TIMEOUT_SECONDS SEED
 *
 * SPEC.json: {module, port, headers, requests: [{method, path, body?}], random?} (random: the
 * random stream of bench/httpRandom.ts, its spaces given as their directory). Prints one line
 * `ACJSON {...}` in the shape of httpLoad.ts's LoadResult (latencies in microseconds).
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LoadRequest } from './httpLoad.js';
import { RequestStream, readSpaces, type RandomRequests } from './httpRandom.js';

interface Spec {
  module: string;
  port: number;
  headers: Record<string, string>;
  requests: LoadRequest[];
  random?: Omit<RandomRequests, 'spaces'> & { spaces: string };
}

/* eslint-disable @typescript-eslint/no-explicit-any -- autocannon has no types here: it is not installed with the project */
const [specFile, connections, seconds, timeout, seed] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(specFile, 'utf8')) as Spec;
const stream = spec.random ? new RequestStream({ ...spec.random, spaces: readSpaces(spec.random.spaces) }, Number(seed)) : null;
const pkg = JSON.parse(fs.readFileSync(path.join(spec.module, 'package.json'), 'utf8')) as { main?: string };
const imported = (await import(pathToFileURL(path.join(spec.module, pkg.main ?? 'autocannon.js')).href)) as { default?: any };
const autocannon: any = imported.default ?? imported;

let next = 0;
const result: any = await new Promise((resolve, reject) => {
  autocannon(
    {
      url: `http://127.0.0.1:${spec.port}`,
      connections: Number(connections),
      duration: Number(seconds),
      timeout: Number(timeout),
      headers: spec.headers,
      requests: [
        {
          setupRequest: (request: Record<string, unknown>) => {
            const r = stream ? stream.request() : spec.requests[next];
            if (!stream) next = (next + 1) % spec.requests.length;
            const headers = { ...spec.headers, ...(r.body === undefined ? {} : { 'content-type': 'application/json' }) };
            return { ...request, method: r.method, path: r.path, headers, ...(r.body === undefined ? {} : { body: r.body }) };
          },
        },
      ],
    },
    (error: Error | null, out: unknown) => (error ? reject(error) : resolve(out)),
  );
});

const ms = (v: number | undefined) => (v ?? NaN) * 1000;
const out = {
  requests: result.requests.total,
  duration_s: result.duration,
  req_per_s: result.requests.total / result.duration,
  bytes: result.throughput.total,
  latency_us: {
    mean: ms(result.latency.average),
    p50: ms(result.latency.p50),
    p75: ms(result.latency.p75),
    p90: ms(result.latency.p90),
    p99: ms(result.latency.p99),
    p999: ms(result.latency.p99_9),
    max: ms(result.latency.max),
  },
  errors: { connect: 0, read: result.errors - result.timeouts, write: 0, timeout: result.timeouts, non_2xx_3xx: result.non2xx },
};
process.stdout.write(`ACJSON ${JSON.stringify(out)}\n`);
