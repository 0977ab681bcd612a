/** The rule that joins a MAC registry entry's address lines (src/tables/build/macTableBuilder.ts). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { registryAddress } from '../../src/tables/build/macTableBuilder.js';

describe('registryAddress', () => {
  it('joins lines by ", ", without the comma a line ends with, and makes a run of commas one', () => {
    expect(registryAddress(['9-13 Bibby Street,', 'NSW Chiswick 2046'])).toBe('9-13 Bibby Street, NSW Chiswick 2046');
    expect(registryAddress(['17, Deep vihar, Vikas Nagar,, Near Mayank hospital,, Uttam Nagar,', 'New Delhi Delhi 110059'])).toBe(
      '17, Deep vihar, Vikas Nagar, Near Mayank hospital, Uttam Nagar, New Delhi Delhi 110059',
    );
    expect(registryAddress(['19-22# Building,,Star-net Science Plaza'])).toBe('19-22# Building, Star-net Science Plaza');
    expect(registryAddress(['"Le Bâtiment", 3 rue X'])).toBe('"Le Bâtiment", 3 rue X');
    expect(registryAddress([',Le Shi Building, No.105', 'Beijing'])).toBe('Le Shi Building, No.105, Beijing');
    expect(registryAddress(['  ', ',', ''])).toBeNull();
    expect(registryAddress([])).toBeNull();
  });

  it('leaves no ",," and no line-ending comma in any address of the registry data the tables are built from', () => {
    const registry = JSON.parse(readFileSync(new URL('../../node_modules/oui-data/index.json', import.meta.url), 'utf8')) as Record<
      string,
      string
    >;
    let checked = 0;
    const bad: string[] = [];
    for (const value of Object.values(registry)) {
      const lines = value.split('\n').slice(1);
      const address = registryAddress(lines);
      if (address === null) continue;
      checked++;
      if (/,\s*,|,$|^,/.test(address) || address.includes(',,')) bad.push(address);
    }
    expect(checked).toBeGreaterThan(50_000);
    expect(bad).toEqual([]);
  });
});
