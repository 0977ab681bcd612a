/** The templates the hot path renders records into (the WASM writer's records: ipRecordJson.data.test.ts). */
import { describe, expect, it } from 'vitest';
import { JsonTemplate } from '../../src/records/jsonTemplate.js';

describe('JsonTemplate', () => {
  it('renders values into its holes in key order', () => {
    const template = JsonTemplate.compile({ a: 1, b: { c: 'x', d: [1, 2] }, e: null }, ['b.c', 'e']);
    expect(template.render(['"y"', '{"z":true}'])).toBe('{"a":1,"b":{"c":"y","d":[1,2]},"e":{"z":true}}');
    expect(template.parts).toHaveLength(3);
  });

  it('refuses holes that are missing or out of key order', () => {
    expect(() => JsonTemplate.compile({ a: 1 }, ['b'])).toThrow(/no key b/);
    expect(() => JsonTemplate.compile({ a: 1 }, ['a.b'])).toThrow(/no object/);
    expect(() => JsonTemplate.compile({ a: 1, b: 2 }, ['b', 'a'])).toThrow(/key order/);
  });

  it('keeps nothing of the record it used up: later changes to it do not show', () => {
    const record = { a: { b: 1 }, c: [2] };
    const template = JsonTemplate.compile(record, ['a.b']);
    record.c.push(3);
    record.a.b = 5;
    expect(template.render(['7'])).toBe('{"a":{"b":7},"c":[2]}');
  });
});
