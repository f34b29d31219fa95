/**
 * Segmentation and POS tagging behind one small interface (pipeline step 1; spec §1.2 step 1, §4.5).
 *
 * Two backends, both jieba (dictionary DAG + max-probability path, HMM for unknown runs, jieba/ICTCLAS
 * tagset):
 * - `'node-rs'`: @node-rs/jieba (jieba-rs). Independent instances, worker-safe, tens of MB each.
 * - `'nodejieba'`: nodejieba (cppjieba), named by the design. One configuration per thread (see
 *   segmenters/nodejieba.ts: switching between two nodejieba segmenters reloads each time).
 *
 * Both tag by native `cut` + a bounded word → tag cache, identical to native `tag` token by token
 * (segmenters/tag-cache.ts).
 *
 * Dictionaries are loaded explicitly, once, at creation: the backend's bundled base dictionary plus
 * the user dictionary (the KG lexicon, ablation "W") when one is given; with none, NO user dictionary
 * at all (nodejieba's bundled sample user.dict.utf8 is never loaded). A missing user dictionary is a
 * FilmkwError INPUT naming the path, checked before any native call (nodejieba aborts the process on a
 * missing file). There is no fallback.
 *
 * The user dictionary acts identically in both backends: one parser (`word freq tag`, validated, see
 * src/lexicon/user-dict.ts), user tag and user frequency override the base entry in both, and words a
 * backend cannot hold as one token (any character outside CJK ideographs and `[A-Za-z0-9+#&._%-]`,
 * e.g. 莱昂纳多·迪卡普里奥, 你好，李焕英) are found in the text first and kept whole as hard token
 * boundaries, the text between them tagged piece by piece, the same way in both.
 *
 * Tokens carry UTF-16 offsets into the input: `text.slice(t.start, t.end) === t.word` always, tokens
 * are in order, do not overlap, and (for both backends, as measured) cover the whole input, whitespace
 * and emoji included (each whitespace character or emoji code point is usually its own `x` token).
 *
 * Default backend: `'node-rs'`, chosen by measurement (`node --import tsx bench/segment.ts`: more
 * throughput and less memory than nodejieba, nearly the same review tokens; the tables are in
 * dictionaries/README.md and bench/README.md). Dev-set F1 per backend is measured by the evaluator (`filmkw eval
 * --backend`).
 */
import { usageError } from '../errors.js';
import { DEFAULT_BACKEND, SEGMENTER_BACKENDS, type SegmenterBackend } from '../lexicon/base.js';
import { prepareUserDict, type PreparedUserDict, type UserDictSource } from '../lexicon/user-dict.js';
import { alignTokens, buildCompoundIndex, findCompounds } from './segmenters/common.js';
import { createNodejiebaTagger } from './segmenters/nodejieba.js';
import { createNodeRsTagger } from './segmenters/node-rs.js';
import type { OptionRules } from '../util/option-rules.js';
import { SCRIPT_RULES } from './script.js';

/** Ablation "W" (group `lexicon`). */
export interface LexiconOptions {
  /**
   * Segment with the KG's entity names as a user dictionary (the paper's "W"), exported once when the
   * extractor is created.
   * @default false
   */
  useDomainLexicon: boolean;
  /**
   * A text in traditional script: segmented and matched as written (`'asWritten'`, the paper's presets),
   * or in a simplified copy of the same length with the output surfaces taken back from the text as
   * written (`'simplified'`, the preset `filmkw-rerank`; script.ts).
   * @default 'asWritten'
   */
  script: (typeof SCRIPT_RULES)[number];
}

export const DEFAULT_LEXICON_OPTIONS: Readonly<LexiconOptions> = Object.freeze({ useDomainLexicon: false, script: 'asWritten' });

export const LEXICON_OPTION_RULES: OptionRules<LexiconOptions> = Object.freeze({ useDomainLexicon: { type: 'boolean' }, script: { type: 'enum', values: SCRIPT_RULES } });

/** A token: surface word, POS tag (jieba tagset; `x` for punctuation, whitespace, symbols) and offsets. */
export interface Token {
  word: string;
  tag: string;
  /** UTF-16 offset of the first code unit in the input string. */
  start: number;
  /** UTF-16 offset just past the last code unit (`text.slice(start, end) === word`). */
  end: number;
}

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

export interface CreateSegmenterOptions extends UserDictSource {
  /** @default DEFAULT_BACKEND ('node-rs') */
  backend?: SegmenterBackend;
  /** A user dictionary already made ready by {@link prepareUserDict} (e.g. kept in the on-disk cache). Not together with the other two. */
  prepared?: PreparedUserDict | null;
}

/** Lone surrogates → U+FFFD, same length (`String.prototype.toWellFormed`, ES2024, Node ≥ 20). */
function wellFormed(text: string): string {
  const s = text as string & { isWellFormed(): boolean; toWellFormed(): string };
  return s.isWellFormed() ? text : s.toWellFormed();
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
