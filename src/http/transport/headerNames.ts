/**
 * Header names, as both the request reader and the answering exchanges handle them: the token
 * characters a name is made of (RFC 9110 5.6.2, node:http's checkIsHttpToken), and names in lower
 * case kept per name as given.
 */

/** A header name's characters, as a regular-expression character class body. */
export const TOKEN_CHARS = "!#$%&'*+\\-.^_`|~0-9A-Za-z";

/**
 * Lower-case header names by the name as given: names compare case-insensitively, and
 * lower-casing each time would allocate; the kept lower-case name is a constant, which V8 need
 * not internalize again to use as a property key. Bounded: past it a name is lower-cased each time.
 */
export class LowerCaseNames {
  private readonly known = new Map<string, string>();

  constructor(private readonly bound: number) {}

  of(name: string): string {
    const known = this.known.get(name);
    if (known !== undefined) return known;
    if (this.known.size >= this.bound) return name.toLowerCase();
    // A copy: a name cut out of a text read is a slice that would keep that whole text alive.
    const kept = [...name].join('');
    const lower = kept.toLowerCase();
    this.known.set(kept, lower);
    return lower;
  }
}
