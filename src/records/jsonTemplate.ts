/**
 * JSON with holes: a record is stringified once with markers in place of the values that change
 * per request, and split at the markers. Rendering is then a few string concatenations instead
 * of building and stringifying an object of some forty keys (JSON.stringify of a 600-byte record
 * costs as much as a lookup).
 *
 * The template is made from the same record object the object path returns, so both paths give
 * the same JSON by construction; key order is the object's.
 */

/** A marker no record value can contain: NUL, which our tables and inputs never carry. */
const markerOf = (name: string) => `\u0000${name}\u0000`;

export class JsonTemplate {
  private constructor(
    /** the JSON text around the holes: parts.length = holes + 1 */
    readonly parts: readonly string[],
  ) {}

  /**
   * `record` with the value at each of `holes` (dot paths, in the order they appear in the
   * record's key order) replaced by a marker, stringified and split there. The record is used up:
   * its hole values are overwritten (callers build it for this; a copy would double the cost of
   * a compile). Throws when a hole is missing or out of order.
   */
  static compile(record: object, holes: readonly string[]): JsonTemplate {
    const marked = record as Record<string, unknown>;
    for (const hole of holes) {
      const path = hole.split('.');
      let parent = marked;
      for (const key of path.slice(0, -1)) {
        const next = parent[key];
        if (typeof next !== 'object' || next === null) throw new Error(`template hole ${hole}: no object at ${key}`);
        parent = next as Record<string, unknown>;
      }
      const last = path[path.length - 1];
      if (!(last in parent)) throw new Error(`template hole ${hole}: no key ${last}`);
      parent[last] = markerOf(hole);
    }
    const text = JSON.stringify(marked);
    const parts: string[] = [];
    let from = 0;
    for (const hole of holes) {
      const marker = JSON.stringify(markerOf(hole));
      const at = text.indexOf(marker, from);
      if (at < 0) throw new Error(`template hole ${hole} is not in key order`);
      parts.push(text.slice(from, at));
      from = at + marker.length;
    }
    parts.push(text.slice(from));
    return new JsonTemplate(parts);
  }

  /** The JSON text with `values` (already JSON texts, one per hole, in order) in the holes. */
  render(values: readonly string[]): string {
    const parts = this.parts;
    let out = parts[0];
    for (let i = 1; i < parts.length; i++) out += values[i - 1] + parts[i];
    return out;
  }
}
