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
  const lines = text.replace(/^\uFEFF/u, '').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].replace(/\r$/u, '');
    if (raw.trim() === '') continue;
    const line = i + 1;
    const cols = raw.split(' ');
    if (cols.length !== 3 || cols.some((c) => c === '')) {
      throw inputError(
        `segment: user dictionary ${source}:${line}: expected "word freq tag" separated by single spaces, got ${JSON.stringify(raw)}`,
      );
    }
    const [word, freqText, tag] = cols;
    if (!/^[1-9][0-9]{0,11}$/u.test(freqText)) {
      throw inputError(`segment: user dictionary ${source}:${line}: freq must be a positive integer, got ${JSON.stringify(freqText)}`);
    }
    if (/[\t\u0000]/u.test(raw)) {
      throw inputError(`segment: user dictionary ${source}:${line}: tab or NUL character in ${JSON.stringify(raw)}`);
    }
    if (!/^[A-Za-z]{1,8}$/u.test(tag)) {
      throw inputError(`segment: user dictionary ${source}:${line}: tag must be 1-8 ASCII letters, got ${JSON.stringify(tag)}`);
    }
    out.push({ word, freq: Number(freqText), tag, line });
  }
  return out;
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
 * Attach UTF-16 offsets to native output. `text` is the original input; `safe` is the string given to
 * the native code (same length: lone surrogates replaced by U+FFFD). Every token's `word` is set to
 * `text.slice(start, end)`, so the invariant holds even where `safe` differs from `text`. Characters the
 * native code dropped (none observed for either backend) are skipped, never invented.
 */
export function alignTokens(text: string, safe: string, raw: readonly RawTagged[], backend: string): AlignedToken[] {
  const out: AlignedToken[] = new Array(raw.length);
  let n = 0;
  let cursor = 0;
  for (const r of raw) {
    if (r.word === '') continue;
    let start = cursor;
    if (!safe.startsWith(r.word, cursor)) {
      start = safe.indexOf(r.word, cursor);
      if (start < 0) {
        throw new Error(
          `segment: ${backend} returned the token ${JSON.stringify(r.word)} that is not in the input after offset ${cursor} (please report)`,
        );
      }
    }
    const end = start + r.word.length;
    out[n++] = { word: text.slice(start, end), tag: r.tag, start, end };
    cursor = end;
  }
  out.length = n;
  return out;
}

/** A compound: a user-dictionary word the segmenters cannot hold as one token (see {@link isHoldableWord}). */
export interface Compound {
  readonly word: string;
  readonly tag: string;
}

/** Index of compounds by first UTF-16 code unit, longest first. */
export type CompoundIndex = ReadonlyMap<string, readonly Compound[]>;

export function buildCompoundIndex(compounds: readonly Compound[]): CompoundIndex {
  const m = new Map<string, Compound[]>();
  for (const c of compounds) {
    const k = c.word[0];
    let list = m.get(k);
    if (!list) m.set(k, (list = []));
    list.push(c);
  }
  for (const list of m.values()) list.sort((a, b) => b.word.length - a.word.length || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
  return m;
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
  for (let i = 0; i < text.length; i++) {
    const list = index.get(text[i]);
    if (!list) continue;
    for (const c of list) {
      if (text.startsWith(c.word, i)) {
        out.push({ start: i, end: i + c.word.length, tag: c.tag });
        i += c.word.length - 1;
        break;
      }
    }
  }
  return out;
}
