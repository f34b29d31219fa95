/**
 * Shared pieces of the segmentation backends: the user-dictionary parser (one format, one meaning for
 * both backends), the character class a jieba token can hold, and the alignment of raw `{word, tag}`
 * output to UTF-16 offsets of the input.
 *
 * User dictionary format (what `filmkw dict export` writes and what both backends accept): one entry a
 * line, `word freq tag`, separated by single spaces; `freq` a positive integer; blank lines ignored.
 * This is the intersection of the two native formats: nodejieba also reads `word` and `word tag` (and
 * silently turns `word 10` into the tag `10`), @node-rs/jieba rejects `word tag`; both mishandle lines
 * with more columns. We validate every line ourselves and name the bad one (file:line), instead of
 * letting the native code guess.
 */
import { inputError } from '../../errors.js';

/** One parsed user-dictionary entry. */
export interface UserDictEntry {
  readonly word: string;
  readonly freq: number;
  readonly tag: string;
  /** 1-based line in the source. */
  readonly line: number;
}

/**
 * True when every character of `word` is one a jieba token can hold: CJK ideographs (the ranges
 * jieba-rs uses) or ASCII `[A-Za-z0-9+#&._%-]`. jieba-rs cuts the input into blocks of exactly these
 * characters before it consults the dictionary, so a word with any other character (·, ：, ？, ，,
 * space, kana…) can never come out as one token there; nodejieba holds some of them. Such words are
 * handled as *compounds* (see {@link findCompounds}) in both backends, so that the user dictionary
 * acts identically.
 */
export function isHoldableWord(word: string): boolean {
  return HOLDABLE.test(word);
}
const HOLDABLE =
  /^[\u{3400}-\u{4DBF}\u{4E00}-\u{9FFF}\u{F900}-\u{FAFF}\u{20000}-\u{2A6DF}\u{2A700}-\u{2EBEF}\u{2F800}-\u{2FA1F}A-Za-z0-9+#&._%-]+$/u;

/**
 * Parse user-dictionary text (see module header). `source` names the file (or `inline`) in errors.
 * Throws FilmkwError INPUT naming source:line for a malformed line.
 */
export function parseUserDict(text: string, source: string): UserDictEntry[] {
  const out: UserDictEntry[] = [];
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n');
  for (let i = 0; i < lines.length; i++) {
    let raw = lines[i];
    if (raw.charCodeAt(raw.length - 1) === 0x0d) raw = raw.slice(0, -1);
    if (raw.trim() === '') continue;
    const line = i + 1;
    // "word freq tag": exactly two single spaces, no empty column (checked without regexes: this runs
    // over the ~56k lines of the merged KG's lexicon on every cold start)
    const s1 = raw.indexOf(' ');
    const s2 = s1 < 0 ? -1 : raw.indexOf(' ', s1 + 1);
    if (s1 <= 0 || s2 < 0 || s2 === s1 + 1 || s2 === raw.length - 1 || raw.indexOf(' ', s2 + 1) >= 0) {
      throw inputError(
        `segment: user dictionary ${source}:${line}: expected "word freq tag" separated by single spaces, got ${JSON.stringify(raw)}`,
      );
    }
    const word = raw.slice(0, s1);
    const freqText = raw.slice(s1 + 1, s2);
    const tag = raw.slice(s2 + 1);
    if (!isPositiveInteger(freqText)) {
      throw inputError(`segment: user dictionary ${source}:${line}: freq must be a positive integer, got ${JSON.stringify(freqText)}`);
    }
    if (raw.indexOf('\t') >= 0 || raw.indexOf('\u0000') >= 0) {
      throw inputError(`segment: user dictionary ${source}:${line}: tab or NUL character in ${JSON.stringify(raw)}`);
    }
    if (!isTag(tag)) {
      throw inputError(`segment: user dictionary ${source}:${line}: tag must be 1-8 ASCII letters, got ${JSON.stringify(tag)}`);
    }
    out.push({ word, freq: Number(freqText), tag, line });
  }
  return out;
}

/** `^[1-9][0-9]{0,11}$` */
function isPositiveInteger(text: string): boolean {
  if (text.length < 1 || text.length > 12) return false;
  const first = text.charCodeAt(0);
  if (first < 0x31 || first > 0x39) return false;
  for (let k = 1; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** `^[A-Za-z]{1,8}$` */
function isTag(text: string): boolean {
  if (text.length < 1 || text.length > 8) return false;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k) | 0x20;
    if (c < 0x61 || c > 0x7a) return false;
  }
  return true;
}

/** A max-probability split of a word over a base dictionary (see {@link splitRoute}). */
export interface SplitRoute {
  /** Sum over the pieces of log(freq) − log(total). */
  logProbability: number;
  pieces: string[];
}

/**
 * jieba's max-probability route over a base dictionary with the word itself excluded: the split jieba
 * would choose if the word were not in the dictionary (the DAG of dictionary words, each piece scored
 * log(freq) − log(total)). A single character absent from the dictionary counts with frequency
 * `unknownCharFreq` (jieba: 1); without it, a word with such a character has no route (null).
 */
export function splitRoute(word: string, freq: ReadonlyMap<string, number>, logTotal: number, unknownCharFreq?: number): SplitRoute | null {
  const chars = [...word];
  const n = chars.length;
  // route[i] = best log-probability of chars[i..n); next[i] = end of its first piece
  const route = new Float64Array(n + 1);
  const next = new Int32Array(n + 1);
  for (let i = n - 1; i >= 0; i--) {
    let best = -Infinity;
    let piece = '';
    for (let j = i + 1; j <= n; j++) {
      piece += chars[j - 1];
      if (i === 0 && j === n) break; // not the word itself
      const f = freq.get(piece);
      let lp: number;
      if (f !== undefined && f > 0) lp = Math.log(f) - logTotal;
      else if (j === i + 1 && unknownCharFreq !== undefined) lp = Math.log(unknownCharFreq) - logTotal;
      else continue;
      const score = lp + route[j];
      if (score > best) {
        best = score;
        next[i] = j;
      }
    }
    route[i] = best;
  }
  if (n === 0 || route[0] === -Infinity) return null;
  const pieces: string[] = [];
  for (let i = 0; i < n; i = next[i]) pieces.push(chars.slice(i, next[i]).join(''));
  return { logProbability: route[0], pieces };
}

/** Render entries back to the canonical text form (one `word freq tag` a line, trailing newline). */
export function renderUserDict(entries: readonly { word: string; freq: number; tag: string }[]): string {
  return entries.map((e) => `${e.word} ${e.freq} ${e.tag}\n`).join('');
}

/** A raw token as the native segmenters return it. */
export interface RawTagged {
  word: string;
  tag: string;
}

/** Output token of the segmenter (re-declared here to avoid an import cycle; identical to segment.ts `Token`). */
export interface AlignedToken {
  word: string;
  tag: string;
  start: number;
  end: number;
}

/**
 * Attach UTF-16 offsets to native output and append the tokens to `out`. `text` is the original input;
 * `safe` is the string given to the native code (same length: lone surrogates replaced by U+FFFD);
 * `offset` is where `text` starts in the document (added to every offset). Every token's `word` is set
 * to `text.slice(start, end)`, so the invariant holds even where `safe` differs from `text`. Characters
 * the native code dropped (none observed for either backend) are skipped, never invented.
 */
export function alignTokens(
  text: string,
  safe: string,
  raw: readonly RawTagged[],
  backend: string,
  out: AlignedToken[] = [],
  offset = 0,
): AlignedToken[] {
  const same = text === safe;
  let cursor = 0;
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i];
    const word = r.word;
    if (word === '') continue;
    let start = cursor;
    if (!safe.startsWith(word, cursor)) {
      start = safe.indexOf(word, cursor);
      if (start < 0) {
        throw new Error(
          `segment: ${backend} returned the token ${JSON.stringify(word)} that is not in the input after offset ${cursor} (please report)`,
        );
      }
    }
    const end = start + word.length;
    out.push({ word: same ? word : text.slice(start, end), tag: r.tag, start: start + offset, end: end + offset });
    cursor = end;
  }
  return out;
}

/** A compound: a user-dictionary word the segmenters cannot hold as one token (see {@link isHoldableWord}). */
export interface Compound {
  readonly word: string;
  readonly tag: string;
}

/** The compounds that start with one UTF-16 code unit: by their second code unit (longest first), and the one-unit compound. */
interface FirstUnitSlot {
  readonly bySecond: Map<number, Compound[]>;
  single: Compound | null;
}

/**
 * Index of compounds for {@link findCompounds}: a table over the first UTF-16 code unit (most text
 * positions are rejected by one array read), then the candidates by their second code unit, longest
 * first. Small-integer keys only (a two-unit key as one number would leave V8's small-integer range).
 */
export interface CompoundIndex {
  readonly size: number;
  readonly slots: readonly (FirstUnitSlot | null)[];
}

export function buildCompoundIndex(compounds: readonly Compound[]): CompoundIndex {
  const slots: (FirstUnitSlot | null)[] = new Array<FirstUnitSlot | null>(0x10000).fill(null);
  let size = 0;
  for (const c of compounds) {
    if (c.word.length === 0) continue;
    const c0 = c.word.charCodeAt(0);
    const slot = (slots[c0] ??= { bySecond: new Map(), single: null });
    size++;
    if (c.word.length === 1) {
      slot.single = c;
      continue;
    }
    const c1 = c.word.charCodeAt(1);
    let list = slot.bySecond.get(c1);
    if (!list) slot.bySecond.set(c1, (list = []));
    list.push(c);
  }
  for (const slot of slots) {
    if (slot) for (const list of slot.bySecond.values()) list.sort((a, b) => b.word.length - a.word.length || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
  }
  return { size, slots };
}

/** An occurrence of a compound in a text: `text.slice(start, end) === compound.word`. */
export interface CompoundMatch {
  readonly start: number;
  readonly end: number;
  readonly tag: string;
}

/**
 * Occurrences of compounds in `text`, scanning left to right, longest compound first at each position,
 * never overlapping. The segmenter treats them as hard token boundaries: the text between two
 * occurrences is tagged on its own, so a backend's HMM cannot glue a compound's first character to the
 * preceding one (nodejieba: 我看了本·金斯利 → 了本/·/金斯利 when tagged as one string).
 */
export function findCompounds(text: string, index: CompoundIndex): CompoundMatch[] {
  const out: CompoundMatch[] = [];
  if (index.size === 0) return out;
  const slots = index.slots;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const slot = slots[text.charCodeAt(i)];
    if (slot === null) continue;
    let found: Compound | null = null;
    if (i + 1 < n) {
      const list = slot.bySecond.get(text.charCodeAt(i + 1));
      if (list !== undefined) {
        for (const c of list) {
          if (text.startsWith(c.word, i)) {
            found = c;
            break;
          }
        }
      }
    }
    found ??= slot.single;
    if (found !== null) {
      out.push({ start: i, end: i + found.word.length, tag: found.tag });
      i += found.word.length - 1;
    }
  }
  return out;
}
