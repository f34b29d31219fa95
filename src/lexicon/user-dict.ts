/**
 * The user dictionary of the segmenters: its text format, the parser (one format, one meaning for both
 * backends), the character class a jieba token can hold, jieba's max-probability split of a word (which
 * the frequency suggestion and the title policy's common-phrase rule use), and the dictionary made ready
 * for the segmenter ({@link PreparedUserDict}).
 *
 * User dictionary format (what `filmkw dict export` writes and what both backends accept): one entry a
 * line, `word freq tag`, separated by single spaces; `freq` a positive integer; blank lines ignored.
 * This is the intersection of the two native formats: nodejieba also reads `word` and `word tag` (and
 * silently turns `word 10` into the tag `10`), @node-rs/jieba rejects `word tag`; both mishandle lines
 * with more columns. We validate every line ourselves and name the bad one (file:line), instead of
 * letting the native code guess.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { inputError } from '../errors.js';

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
 * handled as *compounds* (src/pipeline/segmenters/common.ts `findCompounds`) in both backends, so
 * that the user dictionary acts identically.
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

/** A compound: a user-dictionary word the segmenters cannot hold as one token (see {@link isHoldableWord}). */
export interface Compound {
  readonly word: string;
  readonly tag: string;
}

/** Where a user dictionary comes from: a file, or lines given in memory (not both). */
export interface UserDictSource {
  /** Path of a user dictionary (`word freq tag` lines, as written by `filmkw dict export`); null/absent = none. */
  userDict?: string | null;
  /** User dictionary given as lines instead of a file (same format). Not together with `userDict`. */
  userDictLines?: readonly string[];
}

/**
 * A user dictionary made ready for the backends (parsed, validated, de-duplicated, split into holdable
 * words and compounds): all that the segmenter (src/pipeline/segment.ts `createSegmenter`) needs of it, in a form that can be stored
 * (src/pipeline/extract.ts keeps the KG lexicon's in the on-disk cache, src/lexicon/cache.ts, so a cold start neither parses
 * nor re-renders its ~56k entries).
 */
export interface PreparedUserDict {
  /** What `dictionaries.user` reports: the path, or `inline:sha256:<16 hex>` of the lines given. */
  readonly user: string;
  /** Entries in effect after de-duplication. */
  readonly entries: number;
  /** Entries a backend cannot hold as one token, found in the text first (see module header). */
  readonly compounds: readonly Compound[];
  /** The holdable entries as `word freq tag` lines, as the native loaders take them. */
  readonly holdableText: string;
}

/** The stored form of a {@link PreparedUserDict} (two strings: a JSON head and the holdable text). */
export function preparedToStrings(p: PreparedUserDict): string[] {
  return [JSON.stringify({ user: p.user, entries: p.entries, compounds: p.compounds }), p.holdableText];
}

/** Reads back {@link preparedToStrings}; null if the strings are not such a form. */
export function preparedFromStrings(values: readonly string[]): PreparedUserDict | null {
  if (values.length !== 2) return null;
  try {
    const head = JSON.parse(values[0]) as { user?: unknown; entries?: unknown; compounds?: unknown };
    const compounds = head.compounds;
    if (typeof head.user !== 'string' || typeof head.entries !== 'number' || !Array.isArray(compounds)) return null;
    if (!compounds.every((c: Compound) => c && typeof c.word === 'string' && typeof c.tag === 'string')) return null;
    return { user: head.user, entries: head.entries, compounds: compounds as Compound[], holdableText: values[1] };
  } catch {
    return null;
  }
}

/** A user-dictionary line that a parsed entry renders back to exactly (one line, no BOM, no CR); parseUserDict validated the rest. */
function isCanonicalLine(line: string | undefined, first: boolean): boolean {
  if (line === undefined || line.charCodeAt(line.length - 1) === 0x0d || line.indexOf('\n') >= 0) return false;
  return !(first && line.charCodeAt(0) === 0xfeff);
}

/**
 * Parses, validates and de-duplicates a user dictionary (a file or lines) and splits it into what the
 * native loaders hold and the compounds; null when neither is given. Throws FilmkwError INPUT on a
 * missing or malformed dictionary.
 */
export function prepareUserDict(opts: UserDictSource): PreparedUserDict | null {
  let entries: UserDictEntry[];
  let user: string;
  if (opts.userDict != null) {
    const path = opts.userDict;
    if (!existsSync(path)) throw inputError(`segment: user dictionary not found: ${path}`);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw inputError(`segment: cannot read the user dictionary ${path}: ${(err as Error).message}`, err);
    }
    entries = parseUserDict(text, path);
    user = path;
  } else if (opts.userDictLines != null) {
    const text = opts.userDictLines.join('\n');
    entries = parseUserDict(text, 'userDictLines');
    user = `inline:sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  } else {
    return null;
  }
  // De-duplicate: the last entry for a word wins (as in both native loaders), order by first appearance.
  const byWord = new Map<string, UserDictEntry>();
  for (const e of entries) {
    byWord.delete(e.word);
    byWord.set(e.word, e);
  }
  const holdable: UserDictEntry[] = [];
  const compounds: Compound[] = [];
  for (const e of byWord.values()) {
    if (isHoldableWord(e.word)) holdable.push(e);
    else compounds.push({ word: e.word, tag: e.tag });
  }
  // Lines given in canonical form are passed on as they are (no re-rendering of ~40k entries).
  const given = opts.userDictLines;
  const holdableText =
    given != null && holdable.every((e) => isCanonicalLine(given[e.line - 1], e.line === 1))
      ? holdable.map((e) => given[e.line - 1]).join('\n') + (holdable.length > 0 ? '\n' : '')
      : renderUserDict(holdable);
  return { user, entries: byWord.size, compounds, holdableText };
}
