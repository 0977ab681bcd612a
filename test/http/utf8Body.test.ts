/** The batch body's encoder: the bytes of the joined text, whatever the parts and their sizes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf8Body } from '../../src/http/respond.js';

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
});
