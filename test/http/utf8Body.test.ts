/**
 * The batch body's encoder: the bytes of the joined text, whatever the parts and their sizes; and
 * its buffer, which serves another big body only once node:http has handed the answer to the
 * system ('finish'), never while it may still be written from.
 */
import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { Utf8Body } from '../../src/http/request/respond.js';

describe('Utf8Body', () => {
  it('encodes the parts as Buffer.from encodes them joined, across growth of its buffer', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ maxLength: 3000 }), fc.string({ unit: 'grapheme', maxLength: 500 }), fc.constant('São Paulo 🌍')), {
          maxLength: 120,
        }),
        (parts) => {
          const body = new Utf8Body();
          for (const part of parts) body.append(part);
          expect(body.toBuffer().equals(Buffer.from(parts.join(''), 'utf8'))).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('holds a body far bigger than its first buffer', () => {
    const part = `{"city":"Zürich","n":"${'x'.repeat(1000)}"}`;
    const body = new Utf8Body();
    for (let i = 0; i < 1000; i++) body.append(part);
    expect(body.toBuffer().toString('utf8')).toBe(part.repeat(1000));
  });

  it('takes UTF-8 bytes given as Latin-1 strings among the text', () => {
    const body = new Utf8Body(16).append('São ').appendBytes(Buffer.from('Paulo ₽ ', 'utf8').toString('latin1')).append('¥');
    expect(body.toBuffer().toString('utf8')).toBe('São Paulo ₽ ¥');
  });
});

/** What sendOn uses of Koa's context: status, set, body and the response's events. */
function fakeContext(): Context & { res: EventEmitter } {
  return { status: 404, body: undefined, set: () => {}, res: new EventEmitter() } as unknown as Context & { res: EventEmitter };
}

const BIG = 600 * 1024;
/** The memory a body writes to: a small one is a slice of Node's shared pool. */
const memoryOf = (body: Utf8Body) => `${body.toBuffer().byteOffset} ${body.toBuffer().buffer.byteLength}`;
const sameMemory = (a: Utf8Body, b: Utf8Body) => a.toBuffer().buffer === b.toBuffer().buffer && memoryOf(a) === memoryOf(b);

describe('Utf8Body buffers', () => {
  it('a sent body keeps its buffer until the answer is finished, then the next big body takes it', () => {
    const first = new Utf8Body(BIG).appendBytes('x'.repeat(1000));
    const ctx = fakeContext();
    first.sendOn(ctx, 200);
    expect((ctx.body as Buffer).toString('latin1')).toBe('x'.repeat(1000));

    const whileWriting = new Utf8Body(BIG);
    expect(sameMemory(whileWriting, first)).toBe(false);

    ctx.res.emit('finish');
    const afterwards = new Utf8Body(BIG);
    expect(sameMemory(afterwards, first)).toBe(true);
    // the sent bytes are not touched by being kept
    expect((ctx.body as Buffer).toString('latin1')).toBe('x'.repeat(1000));
  });

  it('an answer that never finishes (the client went away) never gives its buffer to another body', () => {
    const sent = new Utf8Body(BIG).appendBytes('y');
    const ctx = fakeContext();
    sent.sendOn(ctx, 200);
    ctx.res.emit('close');
    for (let i = 0; i < 8; i++) expect(sameMemory(new Utf8Body(BIG), sent)).toBe(false);
  });

  it('small bodies are not kept', () => {
    const small = new Utf8Body(1024).appendBytes('z');
    const ctx = fakeContext();
    small.sendOn(ctx, 200);
    ctx.res.emit('finish');
    expect(sameMemory(new Utf8Body(1024), small)).toBe(false);
  });
});
