/** linesOf: lines of a publisher's file, gzip or plain, within bounds. */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { linesOf, SourceFormatError } from '../../../src/tables/sources/textLines.js';

async function collect(chunks: (string | Buffer)[], bounds?: Parameters<typeof linesOf>[2]) {
  const lines: string[] = [];
  for await (const { text, line } of linesOf(
    (async function* () {
      yield* chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c));
    })(),
    'test.txt',
    bounds,
  )) {
    lines.push(`${line}:${text}`);
  }
  return lines;
}

describe('linesOf', () => {
  it('splits LF and CRLF lines across chunks, the last line without a break included', async () => {
    expect(await collect(['a\r\nb', 'c\nd'])).toEqual(['1:a', '2:bc', '3:d']);
    expect(await collect(['a\n', '\n'])).toEqual(['1:a', '2:']);
    expect(await collect([])).toEqual([]);
  });

  it('inflates gzip by its magic bytes', async () => {
    const gz = gzipSync(Buffer.from('x\ny\n'));
    expect(await collect([gz.subarray(0, 5), gz.subarray(5)])).toEqual(['1:x', '2:y']);
  });

  it('refuses a line past the bound, a body past the bound, bad UTF-8 and a cut gzip', async () => {
    await expect(collect(['abcdef\n'], { maxLineLength: 5 })).rejects.toThrow(/test.txt:1: line longer than 5/);
    await expect(collect(['abc', 'defg'], { maxLineLength: 5 })).rejects.toThrow(SourceFormatError);
    await expect(collect(['aaaa\n', 'bbbb\n'], { maxBytes: 6 })).rejects.toThrow(/more than 6 bytes/);
    await expect(collect([Buffer.from([0x61, 0x0a, 0xff, 0x0a])])).rejects.toThrow(/not UTF-8/);
    const gz = gzipSync(Buffer.from('x\n'.repeat(1000)));
    await expect(collect([gz.subarray(0, gz.length - 10)])).rejects.toThrow();
  });
});
