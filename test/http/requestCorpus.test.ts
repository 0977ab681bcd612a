/**
 * The request corpus drawn from llhttp's own tests (test/fixtures/requests/llhttpCorpus.ts) on the
 * direct connections' safety rule: they never answer a request that node:http would refuse or
 * read otherwise. No answer is written here: node:http is the reference.
 *
 * End to end, each case goes to a real service with the direct connections on and to one with
 * them off, alone and after a plain lookup on the same connection; both must send the same bytes
 * (Date aside) and leave the connection in the same state. What the connection does next is seen
 * through a probe, a lookup with `Connection: close` sent once the case's answers have come: it
 * is answered, runs into what the case left unfinished, or finds the connection closed.
 *
 * Parts of a case are sent one after the other's answers. A request node:http refuses, read while
 * an answer before it on the connection is still to be written, is node:http's refusal when that
 * answer has not begun and a cut connection when it has (answerClientError): the direct
 * connections answer the lookup and hand the refused request over, which node:http then refuses
 * as the first of a connection. Pipelined so, node:http alone answers by timing, not by bytes.
 *
 * At the unit level, every head plainGetAt takes from a case, read as the direct connections read
 * (part by part, head after head), must be read by node:http's own parser on a bare server as the
 * same request: the same target, headers and keep-alive, never a refusal.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainGetAt, type PlainGet } from '../../src/http/transport/plainGet.js';
import { KEY, REQUEST_CORPUS, type RequestCase } from '../fixtures/requests/llhttpCorpus.js';
import { elapse } from '../until.js';
import { Harness, TEST_PLANS } from './harness.js';
import { startNodeReader, type NodeReader } from './nodeReadings.js';

const PLAIN = `GET /v1/ip/1.0.0.1?fields=ip HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\n\r\n`;
const PROBE = `GET /v1/ip/9.9.9.9?fields=ip HTTP/1.1\r\nHost: probe\r\nX-API-Key: ${KEY}\r\nConnection: close\r\n\r\n`;

/** Each case as sent: alone, and after a lookup the direct connections answer, on the same connection. */
const sent = REQUEST_CORPUS.flatMap((c) => [
  { ...c, label: label(c, 'alone'), parts: apart(c.bytes, c.parts ?? []) },
  {
    ...c,
    label: label(c, 'after a lookup'),
    bytes: PLAIN + c.bytes,
    parts: [PLAIN.length, ...apart(c.bytes, c.parts ?? []).map((at) => at + PLAIN.length)],
  },
]);

/**
 * The case's parts, and what follows its first head apart from it: node:http reads the bytes of a
 * handed-over connection's first read in one go (socket.unshift) where it reads a fresh one's as
 * they come (its parser consuming the socket), and its answers to what follows a head in the same
 * read (a body, pipelined requests) may then differ in order (metering) or in `Connection`
 * (whether the body was read when the answer was decided) without either reading any byte otherwise.
 */
function apart(bytes: string, parts: readonly number[]): number[] {
  const end = bytes.indexOf('\r\n\r\n') + 4;
  if (end === 3 || end === bytes.length || parts.includes(end)) return [...parts];
  return [...parts, end].sort((a, b) => a - b);
}

function label(c: RequestCase, how: string): string {
  return `${c.mirrors}${c.note ? ` (${c.note})` : ''}, ${how}`;
}

/** The bytes cut at `parts`. */
function pieces(bytes: string, parts: readonly number[] = []): string[] {
  const at = [0, ...parts, bytes.length];
  return at.slice(1).map((end, i) => bytes.slice(at[i], end));
}

/** What a client sees of a case on one service: every byte sent back, and how the connection ended. */
interface Transcript {
  answers: string;
  fate: 'closed before the probe' | 'closed after the probe' | 'open';
}

/**
 * Quiet after the last byte either way: the answers to what was sent have come. A case whose
 * transcripts differ is sent again with the longer wait: a real difference is the same at any
 * pace, a stall of a loaded machine is not.
 */
const SETTLED_MS = [100, 1500];
/** The probe's answer and the close it asks for come within this, or the connection counts as open. */
const OPEN_MS = 4000;

function converse(url: string, bytes: string, parts: readonly number[] | undefined, probe: string, settledMs: number): Promise<Transcript> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answers = '';
    let closed = false;
    let lastByte = performance.now();
    const socket = net.connect(Number(port), hostname);
    socket.on('data', (d: Buffer) => {
      answers += d.toString('latin1');
      lastByte = performance.now();
    });
    // A reset after the answers (the server closing with bytes unread) leaves them to compare.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    const whenClosed = new Promise<void>((done) =>
      socket.on('close', () => {
        closed = true;
        done();
      }),
    );
    // No event says that the answers to what was sent have all come: quiet for a while does, and
    // after an answer that closes the connection, the close.
    const settled = async () => {
      for (;;) {
        const quiet = performance.now() - lastByte;
        if (closed || (quiet >= settledMs && (!closing(answers) || quiet >= OPEN_MS))) return;
        await elapse(settledMs / 4);
      }
    };
    socket.once('connect', async () => {
      for (const piece of pieces(bytes, parts)) {
        if (closed) break;
        socket.write(Buffer.from(piece, 'latin1'));
        lastByte = performance.now();
        await settled();
      }
      if (closed) return resolve({ answers, fate: 'closed before the probe' });
      socket.write(probe);
      let cut = false;
      const open = setTimeout(() => {
        cut = true;
        socket.destroy();
      }, OPEN_MS);
      await whenClosed;
      clearTimeout(open);
      resolve({ answers, fate: cut ? 'open' : 'closed after the probe' });
    });
  });
}

/** Whether the last answer in `text` closes its connection. */
function closing(text: string): boolean {
  const last = text.lastIndexOf('HTTP/1.1 ');
  const end = text.indexOf('\r\n\r\n', last);
  return last !== -1 && end !== -1 && /\r\nconnection: close\r\n/i.test(text.slice(last, end + 2));
}

const withoutDates = (text: string) => text.replace(/\r\nDate: [^\r]*\r\n/g, '\r\n');

describe('the llhttp corpus on the direct connections and on node:http (a real service each)', () => {
  let direct: Harness;
  let onNode: Harness;
  beforeAll(async () => {
    const settings = { headersTimeoutMs: 1000, requestTimeoutMs: 1500, bodyTimeoutMs: 1000 };
    const plans = { ...TEST_PLANS, business: { ...TEST_PLANS.business, rate_limit_per_second: 1_000_000 } };
    [direct, onNode] = await Promise.all([
      Harness.start({ plans, connections: { ...settings, directConnections: true } }),
      Harness.start({ plans, connections: { ...settings, directConnections: false } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([direct?.stop(), onNode?.stop()]);
  });

  it('every case gets the same answers and leaves the connection the same, alone and after a lookup', async () => {
    const differences: string[] = [];
    const outcomes = new Map<string, number>();
    let next = 0;
    // A few cases at a time, each with a key of its own on each service (the same counts on both).
    const worker = async () => {
      while (next < sent.length) {
        const c = sent[next++];
        let transcripts: Transcript[] = [];
        for (const settledMs of SETTLED_MS) {
          transcripts = await Promise.all(
            [direct, onNode].map(async (h) => {
              const key = await h.newKey('business');
              const transcript = await converse(h.url, c.bytes.replaceAll(KEY, key), c.parts, PROBE.replace(KEY, key), settledMs);
              return { answers: withoutDates(transcript.answers), fate: transcript.fate };
            }),
          );
          if (transcripts[0].answers === transcripts[1].answers && transcripts[0].fate === transcripts[1].fate) break;
        }
        const [there, reference] = transcripts;
        const outcome = `${reference.answers.match(/HTTP\/1\.1 \d{3}(?= )/g)?.join(' ') ?? 'no answer'}; ${reference.fate}`;
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        if (there.answers !== reference.answers || there.fate !== reference.fate)
          differences.push(
            `${c.label}\n  sent: ${JSON.stringify(c.bytes)}\n  direct: ${JSON.stringify(there)}\n  node:http: ${JSON.stringify(reference)}`,
          );
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    expect(differences.join('\n\n')).toBe('');
    // The corpus reaches both sides of the rule: answered lookups, node:http's refusals, kept and closed connections.
    const seen = [...outcomes.keys()].join('\n');
    expect(seen).toMatch(/^HTTP\/1\.1 200 HTTP\/1\.1 200; closed after the probe$/m);
    expect(seen).toMatch(/^HTTP\/1\.1 400; closed before the probe$/m);
    expect(seen).toMatch(/^HTTP\/1\.1 200 HTTP\/1\.1 400; closed before the probe$/m);
  });
});

describe('plainGetAt on the llhttp corpus reads as node:http’s parser reads (a bare node:http server)', () => {
  let node: NodeReader;
  beforeAll(async () => {
    node = await startNodeReader();
  });
  afterAll(() => node?.close());

  /**
   * The heads the direct connections take from `bytes` arriving as `parts`: each arrival read from
   * the first byte not answered, head after head, until a head is not whole yet (wait for the next
   * part), or is not plain (node:http reads the rest), or closes the connection.
   */
  function takenHeads(bytes: string, parts: readonly number[] = []): PlainGet[] {
    const taken: PlainGet[] = [];
    let at = 0;
    for (const end of [...parts, bytes.length]) {
      const text = bytes.slice(0, end);
      for (;;) {
        const read = plainGetAt(text, at);
        if (read === 'other') return taken;
        if (read === 'incomplete') break;
        taken.push(read);
        if (!read.keepAlive) return taken;
        at = read.end;
      }
    }
    return taken;
  }

  it('every head taken from a case is read the same by node:http, never refused', async () => {
    let taken = 0;
    let handedOver = 0;
    for (const c of sent) {
      const heads = takenHeads(c.bytes, c.parts);
      const end = heads.at(-1)?.end ?? 0;
      if (end < c.bytes.length) handedOver++;
      if (end === 0) continue;
      taken += heads.length;
      // What follows cannot change node:http's reading of the heads before it; sent with them, a
      // refusal of it could come before their answers (node:http's clientError writes at once).
      const readings = await node.readings(c.bytes.slice(0, end));
      heads.forEach((head, i) => {
        const reading = readings[i];
        const at = `${c.label}, head ${i + 1}: ${JSON.stringify(c.bytes)}`;
        expect(reading?.status, at).toBe(200);
        expect(reading.url, at).toBe(head.url);
        expect(reading.headers, at).toEqual({ ...head.headers });
        expect(reading.keepAlive, at).toBe(head.keepAlive);
      });
    }
    // Both sides of the rule: heads taken, and cases left to node:http.
    expect(taken).toBeGreaterThan(sent.length / 2);
    expect(handedOver).toBeGreaterThan(sent.length / 2);
  });
});
