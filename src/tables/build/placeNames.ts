/**
 * City names without their district part. DB-IP writes many places as "City (District)":
 * "Frankfurt am Main (Innenstadt I)", "Seongnam-si (Buljeong-ro)", "Zurich (Zurich (Kreis 11) /
 * Oerlikon)". But a parenthesis is also part of official names: "Frankfurt (Oder)", "Halle
 * (Saale)", "Kempten (Allgau)". The rule, from what the source itself shows:
 *
 *   A name "Base (Part)" (Part: the balanced parenthesised group that ends the name) is split into
 *   city "Base" and district "Part" when, in the same country and region, the source names "Base"
 *   as a city on its own, or names "Base" with at least two different parts. Otherwise the name is
 *   kept whole (no district).
 *
 * So "Frankfurt (Oder)", which the source never splits further, stays whole, while a municipality
 * listed with its districts ("Biebergemund (Rossbach)", "Biebergemund (Wirtheim)") is split.
 * MaxMind City files name places as GeoNames does, officially, and are never split.
 */

export interface SplitName {
  city: string;
  district: string | null;
}

/** "Base (Part)" → [Base, Part] when the name ends in a balanced parenthesised group after text. */
export function trailingGroup(name: string): [string, string] | null {
  if (!name.endsWith(')')) return null;
  let depth = 0;
  for (let i = name.length - 1; i >= 0; i--) {
    if (name[i] === ')') depth++;
    else if (name[i] === '(') {
      depth--;
      if (depth === 0) {
        const base = name.slice(0, i).trimEnd();
        const part = name.slice(i + 1, -1).trim();
        return base.length > 0 && part.length > 0 && !base.endsWith('(') ? [base, part] : null;
      }
    }
  }
  return null;
}

export class PlaceNames {
  private readonly cities = new Set<string>();
  /** per place key of a base: the first part seen, or true once a second, different part is seen */
  private readonly parts = new Map<string, string | true>();

  private static key(country: string | null, region: string | null, city: string): string {
    return `${country ?? ''}\u0000${region ?? ''}\u0000${city}`;
  }

  /** Records one place name of the source; every name is observed before any is split. */
  observe(country: string | null, region: string | null, city: string | null): void {
    if (!city) return;
    this.cities.add(PlaceNames.key(country, region, city));
    const group = trailingGroup(city);
    if (!group) return;
    const key = PlaceNames.key(country, region, group[0]);
    const seen = this.parts.get(key);
    if (seen === undefined) this.parts.set(key, group[1]);
    else if (seen !== true && seen !== group[1]) this.parts.set(key, true);
  }

  split(country: string | null, region: string | null, city: string): SplitName {
    const group = trailingGroup(city);
    if (!group) return { city, district: null };
    const key = PlaceNames.key(country, region, group[0]);
    return this.cities.has(key) || this.parts.get(key) === true ? { city: group[0], district: group[1] } : { city, district: null };
  }
}
