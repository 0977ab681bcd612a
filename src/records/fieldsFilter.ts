/**
 * SPEC 4.1 `fields`: a comma-separated list of dot paths that keeps only the listed parts of a
 * record. Compile once per request (parseFields), apply to the record or to each batch result
 * (applyFields).
 *
 * Rules:
 * - A path selects a subtree: `location` keeps the whole location object, `location.city` keeps
 *   `{ location: { city } }`. A shorter path wins over a longer one (`location,location.city`
 *   keeps all of location).
 * - The keys that say what a result is and what it answers (top level) are always kept: success,
 *   input (a batch result's submitted text), ip, mac, version, meta, and the kind of answer: found,
 *   reserved and message (of not-found and reserved answers). A filter selects fields of an
 *   answer; it never hides that there is no answer.
 * - Unknown paths are ignored; keys are never added. A path that goes through an object and
 *   selects nothing in it leaves no empty object behind (`location.nope` drops location).
 * - A path that goes through a null keeps the null (`country_info.tld` with an unknown country
 *   gives `country_info: null`): the client asked about that subtree and it is unknown (SPEC 1.5).
 *   A path that goes through any other non-object value (string, number, array) selects nothing.
 * - A batch failure entry (success === false) is kept intact.
 * - Whitespace around paths and dots is tolerated; empty paths and paths with empty segments
 *   (`a..b`) are ignored. A parameter with no usable path at all (absent, empty, only commas)
 *   means no filter: parseFields returns null and the record is returned whole.
 * - Output keys keep the record's order. The input is never changed; kept subtrees are shared.
 */

/** A compiled node: `true` keeps the whole value; a map selects keys of a nested object. */
type FieldNode = Map<string, FieldNode | true>;

export interface FieldsFilter {
  readonly root: FieldNode;
  /** the normalised paths, for logs and tests */
  readonly paths: readonly string[];
}

export const ALWAYS_KEPT: readonly string[] = ['success', 'input', 'ip', 'mac', 'asn', 'version', 'found', 'reserved', 'message', 'meta'];
const alwaysKept = new Set(ALWAYS_KEPT);

/** Whether a record filtered by `filter` (null: not filtered) shows the value at dot path `path`. */
export function keepsField(filter: FieldsFilter | null, path: string): boolean {
  if (filter === null) return true;
  let node: FieldNode = filter.root;
  for (const key of path.split('.')) {
    const next = node.get(key);
    if (next === undefined) return false;
    if (next === true) return true;
    node = next;
  }
  return true;
}

/** Compiles a `fields` parameter; null when there is nothing to filter by. */
export function parseFields(param: string | undefined | null): FieldsFilter | null {
  if (param === undefined || param === null) return null;
  const root: FieldNode = new Map();
  const paths: string[] = [];
  for (const raw of param.split(',')) {
    const segments = raw.split('.').map((s) => s.trim());
    if (segments.some((s) => s.length === 0)) continue;
    paths.push(segments.join('.'));
    let node = root;
    for (let i = 0; i < segments.length; i++) {
      const key = segments[i];
      const existing = node.get(key);
      if (existing === true) break; // a shorter path already keeps this subtree
      if (i === segments.length - 1) {
        node.set(key, true);
        break;
      }
      if (existing === undefined) {
        const child: FieldNode = new Map();
        node.set(key, child);
        node = child;
      } else {
        node = existing;
      }
    }
  }
  return paths.length === 0 ? null : { root, paths };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function select(value: Record<string, unknown>, node: FieldNode, top: boolean): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  let kept = false;
  for (const key of Object.keys(value)) {
    const item = value[key];
    if (top && alwaysKept.has(key)) {
      out[key] = item;
      kept = true;
      continue;
    }
    const selection = node.get(key);
    if (selection === undefined) continue;
    if (selection === true || item === null) {
      out[key] = item;
      kept = true;
    } else if (isPlainObject(item)) {
      const inner = select(item, selection, false);
      if (inner !== null) {
        out[key] = inner;
        kept = true;
      }
    }
  }
  return kept || top ? out : null;
}

/**
 * Keeps only the filter's paths of a record (plus the always-kept keys). null filter: the record
 * itself. A failure entry (success === false) is returned as it is.
 */
export function applyFields<T extends object>(record: T, filter: FieldsFilter | null): T | Partial<T> {
  if (filter === null) return record;
  const r = record as Record<string, unknown>;
  if (r.success === false) return record;
  return select(r, filter.root, true) as Partial<T>;
}
