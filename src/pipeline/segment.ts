/**
 * Segmentation and POS tagging behind one small interface (pipeline step 1; spec §1.2 step 1, §4.5).
 *
 * Two backends, both jieba (dictionary DAG + max-probability path, HMM for unknown runs, jieba/ICTCLAS
 * tagset):
 * - `'node-rs'`: @node-rs/jieba (jieba-rs). Independent instances, worker-safe, ~38 MB each.
 * - `'nodejieba'`: nodejieba (cppjieba), named by the design. One configuration per thread (see
 *   segmenters/nodejieba.ts: switching between two nodejieba segmenters reloads, ~1 s each time).
 *
 * Dictionaries are loaded explicitly, once, at creation: the backend's bundled base dictionary plus
 * the user dictionary (the KG lexicon, ablation "W") when one is given; with none, NO user dictionary
 * at all (nodejieba's bundled sample user.dict.utf8 is never loaded). A missing user dictionary is a
 * FilmkwError INPUT naming the path, checked before any native call (nodejieba aborts the process on a
 * missing file). There is no fallback.
 *
 * The user dictionary acts identically in both backends: one parser (`word freq tag`, validated, see
 * segmenters/common.ts), user tag and user frequency override the base entry in both, and words a
 * backend cannot hold as one token (any character outside CJK ideographs and `[A-Za-z0-9+#&._%-]`,
 * e.g. 莱昂纳多·迪卡普里奥, 你好，李焕英) are found in the text first and kept whole as hard token
 * boundaries, the text between them tagged piece by piece, the same way in both.
 *
 * Tokens carry UTF-16 offsets into the input: `text.slice(t.start, t.end) === t.word` always, tokens
 * are in order, do not overlap, and (for both backends, as measured) cover the whole input, whitespace
 * and emoji included (each whitespace character or emoji code point is usually its own `x` token).
 *
 * Default backend: `'node-rs'`, chosen by measurement (`node --import tsx bench/segment.ts`, 2-core
 * shared machine, Node 20, 297 Douban reviews = 346 k chars and 2,050 synopses = 537 k chars, no user
 * dictionary; tables in dictionaries/README.md):
 * - `tag` throughput: node-rs 1.25–1.34 M chars/s vs nodejieba 0.67–0.74 M chars/s (≈ 1.8×);
 * - memory: loading adds ≈ 56 MB RSS for node-rs (a second instance ≈ +34 MB) vs ≈ 255 MB for nodejieba;
 *   dictionary load 0.3 s vs 1.3 s; a nodejieba dictionary switch costs ≈ 1.1 s;
 * - output: 98.4 % of review tokens identical (word, tag, offsets); the rest are HMM boundary
 *   differences on unknown runs and the tag of digits/Latin letters (x vs m/eng); with the KG user
 *   dictionary, 32,536 of 32,538 dictionary-word tokens identical across the corpus.
 * Dev-set F1 per backend is measured by the evaluator (`filmkw eval --backend`), not here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { inputError, usageError } from '../errors.js';
import type { Compound, UserDictEntry } from './segmenters/common.js';
import { alignTokens, buildCompoundIndex, findCompounds, isHoldableWord, parseUserDict, renderUserDict } from './segmenters/common.js';
import { createNodejiebaTagger } from './segmenters/nodejieba.js';
import { createNodeRsTagger } from './segmenters/node-rs.js';

export { isHoldableWord, parseUserDict, renderUserDict } from './segmenters/common.js';
export type { UserDictEntry } from './segmenters/common.js';

/** A token: surface word, POS tag (jieba tagset; `x` for punctuation, whitespace, symbols) and offsets. */
export interface Token {
  word: string;
  tag: string;
  /** UTF-16 offset of the first code unit in the input string. */
  start: number;
  /** UTF-16 offset just past the last code unit (`text.slice(start, end) === word`). */
  end: number;
}

export const SEGMENTER_BACKENDS = ['node-rs', 'nodejieba'] as const;
export type SegmenterBackend = (typeof SEGMENTER_BACKENDS)[number];

/** The default backend (see module header for the measurement). */
export const DEFAULT_BACKEND: SegmenterBackend = 'node-rs';

export interface Segmenter {
  readonly backend: SegmenterBackend;
  /** What was loaded: the base dictionary (package-relative id) and the user dictionary (path, `inline:sha256:…`, or null = none). */
  readonly dictionaries: { base: string; user: string | null };
  /** Number of user-dictionary entries in effect (after de-duplication), of which `compounds` are merged after tagging. */
  readonly userEntries: number;
  readonly compounds: number;
  /** Segment and tag; pure for a given segmenter. */
  tag(text: string): Token[];
}

export interface CreateSegmenterOptions {
  /** @default DEFAULT_BACKEND ('node-rs') */
  backend?: SegmenterBackend;
  /** Path of a user dictionary (`word freq tag` lines, as written by `filmkw dict export`); null/absent = none. */
  userDict?: string | null;
  /** User dictionary given as lines instead of a file (same format). Not together with `userDict`. */
  userDictLines?: readonly string[];
  /** A user dictionary already made ready by {@link prepareUserDict} (e.g. kept in the on-disk cache). Not together with the other two. */
  prepared?: PreparedUserDict | null;
}

/**
 * A user dictionary made ready for the backends (parsed, validated, de-duplicated, split into holdable
 * words and compounds): all that {@link createSegmenter} needs of it, in a form that can be stored
 * (src/pipeline/extract.ts keeps the KG lexicon's in the on-disk cache, so a cold start neither parses
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

/** Lone surrogates → U+FFFD, same length (`String.prototype.toWellFormed`, ES2024, Node ≥ 20). */
function wellFormed(text: string): string {
  const s = text as string & { isWellFormed(): boolean; toWellFormed(): string };
  return s.isWellFormed() ? text : s.toWellFormed();
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
export function prepareUserDict(opts: Pick<CreateSegmenterOptions, 'userDict' | 'userDictLines'>): PreparedUserDict | null {
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

/** The segmenter factory (see module header). Throws FilmkwError USAGE/INPUT on bad options or dictionaries. */
export function createSegmenter(opts: CreateSegmenterOptions = {}): Segmenter {
  const backend = opts.backend ?? DEFAULT_BACKEND;
  if (!(SEGMENTER_BACKENDS as readonly string[]).includes(backend)) {
    throw usageError(`segment: unknown backend ${JSON.stringify(backend)} (valid: ${SEGMENTER_BACKENDS.join(', ')})`);
  }
  const given = [opts.userDict, opts.userDictLines, opts.prepared].filter((x) => x != null).length;
  if (given > 1) throw usageError('segment: give one of userDict (a path), userDictLines or prepared, not several');
  const prepared = opts.prepared ?? prepareUserDict(opts);
  const compounds = prepared?.compounds ?? [];
  const index = buildCompoundIndex(compounds);
  const holdableText = prepared?.holdableText ?? '';
  const tagger = backend === 'nodejieba' ? createNodejiebaTagger(holdableText) : createNodeRsTagger(holdableText);
  const dictionaries = Object.freeze({ base: tagger.base, user: prepared?.user ?? null });
  return Object.freeze({
    backend,
    dictionaries,
    userEntries: prepared?.entries ?? 0,
    compounds: compounds.length,
    tag(text: string): Token[] {
      if (typeof text !== 'string') throw usageError(`segment: tag() needs a string, got ${typeof text}`);
      if (text === '') return [];
      const safe = wellFormed(text);
      const matches = findCompounds(text, index);
      if (matches.length === 0) return alignTokens(text, safe, tagger.tag(safe), backend);
      // Compounds are hard boundaries: tag the text between them piece by piece (see findCompounds).
      const out: Token[] = [];
      const piece = (a: number, b: number): void => {
        if (a >= b) return;
        const sub = safe.slice(a, b);
        alignTokens(text === safe ? sub : text.slice(a, b), sub, tagger.tag(sub), backend, out, a);
      };
      let from = 0;
      for (const m of matches) {
        piece(from, m.start);
        out.push({ word: text.slice(m.start, m.end), tag: m.tag, start: m.start, end: m.end });
        from = m.end;
      }
      piece(from, text.length);
      return out;
    },
  });
}
