/**
 * Registered company names of the IEEE registries: which spellings are one company (for
 * `total_ouis`) and the cleaned display name (`short_name` where we curate none). The rules are
 * documented in data/curated/README.md ("Company names"); in short:
 *
 * - A name is read as words (runs of letters and digits; `&` is the word "and"), compared without
 *   case, Latin accents and spacing. The words at its end that state the legal form are set apart:
 *   Inc = Incorporated, Corp = Corporation, Ltd = Limited, LLC, GmbH, AG, S.A., S.p.A., S.r.l., B.V.,
 *   A/S, Oy, K.K., … (LEGAL_FORMS). "Co"/"Company" before or without a form changes nothing
 *   (Co., Ltd = Ltd), nor do Pte, Pty, Sdn, Private, "& Co." before a form. A name keeps at least
 *   one word, and a second form spelled in single letters is not taken (I.S.A. S.r.l. is "isa").
 * - Two spellings are one company when the rest of their names are equal, their legal forms agree
 *   and they share a registered country. Legal forms agree when they are the same or one spelling
 *   states none; a spelling without a form joins a company only when exactly one company of that
 *   name shares a country with it (so "Broadcom" does not join Broadcom Inc. and Broadcom Limited
 *   into one). The country and form conditions keep apart unrelated companies that share a name,
 *   which the registry has many of ("MG Co., Ltd." in Japan and "MG s.r.l." in Italy, "Teracom
 *   Limited" in India and "Teracom Ltd." in Bulgaria).
 * - Display name: the registered name without its legal-form words and the punctuation before
 *   them; a name written all in capitals is put in title case, except words of up to three letters
 *   and words without a vowel (acronyms: LG, ZTE, IBM, HTRC).
 */

/** Trailing words that state a legal form, and the form they state. */
const LEGAL_FORMS: [string[], string][] = [
  [['inc'], 'inc'],
  [['incorporated'], 'inc'],
  [['corp'], 'corp'],
  [['corporation'], 'corp'],
  [['ltd'], 'ltd'],
  [['limited'], 'ltd'],
  [['coltd'], 'ltd'],
  [['llc'], 'llc'],
  [['l', 'l', 'c'], 'llc'],
  [['llp'], 'llp'],
  [['plc'], 'plc'],
  [['gmbh'], 'gmbh'],
  [['mbh'], 'gmbh'],
  [['ag'], 'ag'],
  [['kg'], 'kg'],
  [['se'], 'se'],
  [['sa'], 'sa'],
  [['s', 'a'], 'sa'],
  [['spa'], 'spa'],
  [['s', 'p', 'a'], 'spa'],
  [['srl'], 'srl'],
  [['s', 'r', 'l'], 'srl'],
  [['sarl'], 'sarl'],
  [['s', 'a', 'r', 'l'], 'sarl'],
  [['sas'], 'sas'],
  [['s', 'a', 's'], 'sas'],
  [['sl'], 'sl'],
  [['s', 'l'], 'sl'],
  [['ltda'], 'ltda'],
  [['bv'], 'bv'],
  [['b', 'v'], 'bv'],
  [['nv'], 'nv'],
  [['n', 'v'], 'nv'],
  [['ab'], 'ab'],
  [['oy'], 'oy'],
  [['oyj'], 'oy'],
  [['as'], 'as'],
  [['a', 's'], 'as'],
  [['asa'], 'asa'],
  [['aps'], 'aps'],
  [['kk'], 'kk'],
  [['k', 'k'], 'kk'],
  [['bhd'], 'bhd'],
  [['sro'], 'sro'],
  [['s', 'r', 'o'], 'sro'],
  [['sp', 'z', 'o', 'o'], 'spzoo'],
  [['kft'], 'kft'],
  [['zrt'], 'zrt'],
];
/** "Co"/"Company": dropped at the end of a name with or without a legal form after it. */
const COMPANY_WORDS = new Set(['co', 'company']);
/** Words that only qualify a legal form that follows them: Pte Ltd, Pty Ltd, Sdn Bhd, GmbH & Co. KG. */
const FORM_QUALIFIERS = new Set(['pte', 'pty', 'sdn', 'private', 'pvt', 'spol', 'and']);
/** In an all-capitals name: short words that are words, not acronyms. */
const SMALL_WORDS = new Set(['AND', 'OF', 'THE', 'FOR']);

interface Word {
  /** the word folded for comparison: lower case, Latin accents removed */
  folded: string;
  /** where the word starts in the name */
  start: number;
}

export interface NameParts {
  /** the name's words before its legal form, folded and joined without spaces */
  base: string;
  /** the legal forms the name states, sorted and joined with "+"; "" for none */
  forms: string;
  /** where the legal-form words start in the (whitespace-collapsed) name; its length if none */
  formStart: number;
}

function fold(word: string): string {
  return word.normalize('NFKD').replace(/(?<=\p{Script=Latin})\p{M}+/gu, '').normalize('NFC').toLowerCase();
}

/** Collapses runs of whitespace and trims: the form every rule here reads. */
function tidy(name: string): string {
  return name.normalize('NFC').replace(/\s+/g, ' ').trim();
}

function wordsOf(name: string): Word[] {
  const words: Word[] = [];
  for (const m of name.matchAll(/[\p{L}\p{N}]+|&/gu)) words.push({ folded: m[0] === '&' ? 'and' : fold(m[0]), start: m.index! });
  return words;
}

/** Splits a registered name into its compared words and its legal form. */
export function nameParts(registered: string): NameParts {
  const name = tidy(registered);
  const words = wordsOf(name);
  let end = words.length;
  const forms = new Set<string>();
  const endsWith = (sequence: string[]) => end - sequence.length >= 1 && sequence.every((w, k) => words[end - sequence.length + k].folded === w);
  for (;;) {
    // A second form spelled in single letters is more likely the initials of the name (I.S.A. S.r.l.).
    const form = LEGAL_FORMS.find(([sequence]) => endsWith(sequence) && (forms.size === 0 || sequence.length === 1));
    if (form) {
      forms.add(form[1]);
      end -= form[0].length;
    } else if (end > 1 && (COMPANY_WORDS.has(words[end - 1].folded) || (forms.size > 0 && FORM_QUALIFIERS.has(words[end - 1].folded)))) {
      end -= 1;
    } else {
      break;
    }
  }
  const base = words.slice(0, end).map((w) => w.folded).join('');
  return { base: base === '' ? name.toLowerCase() : base, forms: [...forms].sort().join('+'), formStart: end < words.length ? words[end].start : name.length };
}

/** The display name: the registered name without its legal form, all-capitals names in title case. */
export function displayName(registered: string): string {
  const name = tidy(registered);
  const { formStart } = nameParts(name);
  const kept = name.slice(0, formStart).replace(/[\s,.;:/&-]+$/u, '') || name;
  return /\p{Ll}/u.test(kept) || (kept.match(/\p{Lu}/gu)?.length ?? 0) < 2 ? kept : titleCase(kept);
}

function titleCase(name: string): string {
  return name.replace(/\p{Lu}+/gu, (word, at: number) => {
    if (name[at - 1] === "'") return word.toLowerCase();
    if ((word.length <= 3 || !/[AEIOUY]/.test(word)) && !SMALL_WORDS.has(word)) return word;
    if (SMALL_WORDS.has(word) && at > 0) return word.toLowerCase();
    return word[0] + word.slice(1).toLowerCase();
  });
}

/** One registered spelling of a company name and the countries its blocks are registered in. */
export interface Spelling {
  name: string;
  countries: ReadonlySet<string>;
}

function shareCountry(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const c of a) if (b.has(c)) return true;
  return false;
}

/** Union-find over spelling indexes. */
class Groups {
  private readonly parent: number[];

  constructor(size: number) {
    this.parent = Array.from({ length: size }, (_, i) => i);
  }

  find(i: number): number {
    while (this.parent[i] !== i) {
      this.parent[i] = this.parent[this.parent[i]];
      i = this.parent[i];
    }
    return i;
  }

  join(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/**
 * The company of each spelling, by the rule above: returns, for each spelling (same order), the
 * index of the first spelling of its company.
 */
export function companiesOf(spellings: readonly Spelling[]): number[] {
  const groups = new Groups(spellings.length);
  const parts = spellings.map((s) => nameParts(s.name));
  const byBase = new Map<string, number[]>();
  parts.forEach((p, i) => {
    const list = byBase.get(p.base);
    if (list) list.push(i);
    else byBase.set(p.base, [i]);
  });
  for (const members of byBase.values()) {
    if (members.length < 2) continue;
    const formed = members.filter((i) => parts[i].forms !== '');
    const unformed = members.filter((i) => parts[i].forms === '');
    for (const [k, a] of formed.entries()) {
      for (const b of formed.slice(k + 1)) {
        if (parts[a].forms === parts[b].forms && shareCountry(spellings[a].countries, spellings[b].countries)) groups.join(a, b);
      }
    }
    const loose: number[] = [];
    for (const i of unformed) {
      const touched = new Set(formed.filter((f) => shareCountry(spellings[i].countries, spellings[f].countries)).map((f) => groups.find(f)));
      if (touched.size === 1) groups.join(i, [...touched][0]);
      else if (touched.size === 0) loose.push(i);
    }
    for (const [k, a] of loose.entries()) {
      for (const b of loose.slice(k + 1)) if (shareCountry(spellings[a].countries, spellings[b].countries)) groups.join(a, b);
    }
  }
  return spellings.map((_, i) => groups.find(i));
}
