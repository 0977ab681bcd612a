/**
 * JSON from outside (a publisher's list, an RDAP answer) parsed within a nesting bound: the depth
 * is counted on the text first, so a hostile document fails before JSON.parse recurses into it.
 */

/** Deepest nesting of `[`/`{` in JSON text (strings skipped). */
function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 91 || c === 123) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 93 || c === 125) {
      depth--;
    }
  }
  return deepest;
}

/** `text` parsed as JSON; throws an Error saying why when it nests deeper than `maxDepth` or is not JSON. */
export function parseBoundedJson(text: string, maxDepth: number): unknown {
  if (jsonDepth(text) > maxDepth) throw new Error(`JSON nested deeper than ${maxDepth} levels`);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`not JSON (${(error as Error).message})`, { cause: error });
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
