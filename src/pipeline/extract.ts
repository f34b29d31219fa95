/**
 * The extraction pipeline end to end (王芳, 刘嘉恩, 李晶 2022 §2; spec §1.2): segment → candidates →
 * KG matching and title policy → word graph → rank → top K.
 *
 * `createExtractor` resolves the options once, exports the KG lexicon and creates the segmenter once
 * (explicitly, with the user dictionary only when the lexicon is on), and loads the title policy's
 * common-word list once; the exported lexicon (made ready for the segmenter: src/lexicon/user-dict.ts
 * `prepareUserDict`) and the common-word list are cached on disk keyed by the KG content hash, options,
 * backend and code (src/lexicon/cache.ts), which is most of what a cold start with the merged KG saves
 * (bench/README.md, bench/cold.ts). `extract(text)` is then a pure function of the text: no state is carried
 * from one document to the next (the only caches are memo tables of pure lookups), so a document gives the
 * same keywords alone or inside a batch.
 *
 * The pure core (core.ts `extractFromTokens`) takes already segmented tokens and the candidate token
 * indices; the parity tests and the spec vectors run it on pre-tagged tokens.
 */
import type { KgView } from '../kg/model.js';
import { usageError } from '../errors.js';
import type { Extractor, ExtractCallOptions, Keyword } from './api.js';
import { candidateSurfaces, extractFromTokens, needsKg, type DocumentContext } from './core.js';
import { JaccardMemo } from './jaccard.js';
import { resolveOptions, type OptionOverrides } from './options.js';
import { commonEntityNames } from '../lexicon/title-policy.js';
import { createSegmenter } from './segment.js';
import { DEFAULT_BACKEND, type SegmenterBackend } from '../lexicon/base.js';
import { prepareUserDict, preparedFromStrings, preparedToStrings, type PreparedUserDict } from '../lexicon/user-dict.js';
import { createCandidateFilter, filmHeadNouns, selectCandidateIndices, stopwordSet } from './candidates.js';
import { loadBundledIdf, type IdfTable } from './idf.js';
import { exportUserDict } from '../lexicon/dict.js';
import { baseLexicon } from '../lexicon/base.js';
import { cachedStrings, type DiskCache } from '../lexicon/cache.js';
import { loadBundledRerankModel, usesCorpusFeatures, type RerankModel } from './rerank-model.js';
import { ScratchBuffers } from './rerank.js';
import { SubjectResolver } from './context.js';
import { loadBundledCorpusStats, type CorpusStats } from './corpus-stats.js';
import { callAsWritten, keywordsAsWritten, simplifiedCopy } from './script.js';

const NO_COMMON: ReadonlySet<string> = new Set();

/** Options of {@link createExtractor}. */
export interface CreateExtractorOptions {
  /** Preset name or alias (presets.ts); default `textrank+w+g+r`. */
  preset?: string;
  /** Option overrides (`group.key`, unique bare keys, or `{group: {...}}`), validated. */
  overrides?: Record<string, unknown> | OptionOverrides;
  /** The KG (needed by the lexicon, KG-edge and semantic presets); null/absent: none. */
  kg?: KgView | null;
  /** Segmentation backend (segment.ts; default the segmenter's default). */
  backend?: SegmenterBackend;
  /**
   * The re-ranker's model (option `rerank.enabled`); default the bundled models/rerank.json. The
   * trainer passes its own.
   */
  rerankModel?: RerankModel;
  /** IDF table of the prior `prior.idf: 'multiply'`; default nodejieba's, loaded at creation (through `cache`). */
  idf?: IdfTable | null;
  /** The stop-word set for the option `candidates.stopwords`; default that named set, read at creation. */
  stopwords?: ReadonlySet<string>;
  /**
   * On-disk cache of what is derived from the KG (the prepared lexicon, the title policy's common names)
   * and of the packed IDF table; default none. The CLI passes its cache (`FILMKW_CACHE_DIR`).
   */
  cache?: DiskCache | null;
  /**
   * Corpus statistics for the re-ranker's corpus features (corpus-stats.ts), read only when its model
   * uses them; default the table shipped with the package (models/corpus-stats.tsv) when the model uses
   * them; null: none (the features stay off).
   */
  corpusStats?: CorpusStats | null;
}

/** The KG methods the pipeline calls (a `kg` without them is refused up front, not a TypeError mid-document). */
const KG_METHODS = ['lookup', 'neighbours', 'kindOf', 'idOf', 'nameOf', 'relationCount'] as const;

/** Refuse what a JavaScript caller can pass that the types forbid (FilmkwError USAGE, never a TypeError; issue 26). */
function checkCreateOptions(create: unknown): void {
  if (create === null || typeof create !== 'object' || Array.isArray(create)) throw usageError(`extract: createExtractor takes an options object, got ${create === null ? 'null' : typeof create}`);
  const c = create as Record<string, unknown>;
  if (c.preset !== undefined && typeof c.preset !== 'string') throw usageError(`extract: preset must be a preset name (a string, e.g. "filmkw-rerank"), got ${c.preset === null ? 'null' : typeof c.preset}`);
  const kg = c.kg;
  if (kg !== undefined && kg !== null) {
    const missing = typeof kg === 'object' ? KG_METHODS.filter((m) => typeof (kg as Record<string, unknown>)[m] !== 'function') : [...KG_METHODS];
    if (missing.length > 0 || typeof (kg as { contentHash?: unknown }).contentHash !== 'string') {
      throw usageError(`extract: kg must be a loaded KG (loadKg(), loadSnapshot() or KgStore), got ${typeof kg === 'object' ? `an object without ${missing.length > 0 ? missing.join(', ') : 'contentHash'}` : typeof kg}`);
    }
  }
}

/**
 * Create an extractor: options resolved, lexicon exported and segmenter created once (see module
 * header). Throws FilmkwError('USAGE') for an unknown preset, a bad option, or a KG preset without KG.
 */
export function createExtractor(create: CreateExtractorOptions = {}): Extractor {
  checkCreateOptions(create);
  const options = resolveOptions(create.preset, create.overrides);
  const kg = create.kg ?? null;
  if (!kg && needsKg(options)) {
    throw usageError(`extract: preset ${options.preset} needs a KG (lexicon, KG edges or semantic similarity are on); pass kg, or use textrank, positionrank, jieba-textrank or cppjieba-textrank`);
  }
  const backend = create.backend ?? DEFAULT_BACKEND;
  const cache = create.cache ?? null;
  const titles = options.titles;
  // the lexicon and the title policy agree on what a common word is
  // Both KG-derived tables are cached on disk by KG content hash + options + backend (lexicon/cache.ts).
  let prepared: PreparedUserDict | null = null;
  if (options.lexicon.useDomainLexicon && kg) {
    const exportOptions = {
      backend,
      commonMinFreq: titles.commonMinFreq,
      commonMaxLength: titles.commonMaxLength,
      commonPhraseMaxLength: titles.commonPhraseMaxLength,
      commonWordKinds: [...titles.titleKinds],
    };
    // kept made ready for the segmenter (parsed, split into holdable words and compounds), not as lines
    const prepare = () => preparedToStrings(prepareUserDict({ userDictLines: exportUserDict(kg, exportOptions).lines })!);
    prepared = preparedFromStrings(cachedStrings(cache, 'segmenter-lexicon', kg.contentHash, exportOptions, prepare)) ?? preparedFromStrings(prepare());
  }
  const segmenter = createSegmenter({ backend, prepared });
  let common = NO_COMMON;
  if (kg && titles.titlePolicy !== 'always') {
    const commonOptions = {
      backend,
      commonMinFreq: titles.commonMinFreq,
      commonMaxLength: titles.commonMaxLength,
      commonPhraseMaxLength: titles.commonPhraseMaxLength,
      titleKinds: [...titles.titleKinds].sort(),
    };
    const names = cachedStrings(cache, 'common-names', kg.contentHash, commonOptions, () => [
      ...commonEntityNames(kg, titles, { id: `base:${backend}`, freq: baseLexicon(backend).freq }),
    ]);
    common = new Set(names);
  }
  // No MatchCache in front of the KG: the store's name index is already a hash table on typed arrays
  // (kg/packed.ts), and a memo Map of every word seen cost more than it saved (bench/README.md, issue 6
  // profiles).
  const idf = options.prior.idf === 'multiply' || options.rerank.enabled ? (create.idf ?? loadBundledIdf({ cache })) : null;
  const rerankModel = options.rerank.enabled ? (create.rerankModel ?? loadBundledRerankModel()) : null;
  // the compound candidates of the re-ranker's phrases (phrases.parts 'content') test the same stop words
  const compounds = options.phrases.enabled && options.phrases.parts === 'content';
  const stopwords = create.stopwords ?? (compounds ? stopwordSet(options.candidates.stopwords) : undefined);
  const headStopwords = compounds && options.phrases.stopHeads !== 'off' ? filmHeadNouns() : null;
  const subjects = kg ? new SubjectResolver(kg) : null;
  const corpusStats = create.corpusStats !== undefined ? create.corpusStats : rerankModel && usesCorpusFeatures(rerankModel) ? loadBundledCorpusStats({ cache }) : null;
  const rerankScratch = rerankModel ? new ScratchBuffers() : null;
  const context: DocumentContext = { options, kg, common, cache: null, jaccardMemo: kg ? new JaccardMemo() : null, idf, rerankModel, stopwords: stopwords ?? null, headStopwords, subjects, corpusStats, rerankScratch };
  const filter = createCandidateFilter(options.candidates, stopwords);
  const simplify = options.lexicon.script === 'simplified';
  const described = Object.freeze({
    ...options,
    segmenter: Object.freeze({ backend: segmenter.backend, dictionaries: { ...segmenter.dictionaries }, userEntries: segmenter.userEntries }),
    kg: kg ? Object.freeze({ contentHash: kg.contentHash, entities: kg.entityCount }) : null,
  });
  return {
    preset: options.preset,
    options: described,
    extract(text: string, call?: ExtractCallOptions): Keyword[] {
      if (call !== undefined && (call === null || typeof call !== 'object' || Array.isArray(call))) throw usageError(`extract: the call options must be an object or absent, got ${call === null ? 'null' : Array.isArray(call) ? 'an array' : typeof call}`);
      // a text in traditional script is matched in a simplified copy (lexicon.script, script.ts)
      const copy = simplify ? simplifiedCopy(text) : null;
      if (copy === null) {
        const tokens = segmenter.tag(text);
        return extractFromTokens(text, tokens, selectCandidateIndices(tokens, filter), context, call);
      }
      const tokens = segmenter.tag(copy);
      return keywordsAsWritten(extractFromTokens(copy, tokens, selectCandidateIndices(tokens, filter), context, callAsWritten(call, text, copy)), text, copy);
    },
    candidateSurfaces(text: string): string[] {
      // the surfaces the pipeline matches: those of the simplified copy of a text in traditional script
      const matched = (simplify ? simplifiedCopy(text) : null) ?? text;
      const tokens = segmenter.tag(matched);
      return candidateSurfaces(matched, tokens, selectCandidateIndices(tokens, filter), context);
    },
    resolveFilm(film: string): { id: string; name: string } | null {
      const s = subjects?.resolve(film) ?? null;
      return s && kg ? { id: kg.idOf(s.film), name: kg.nameOf(s.film) } : null;
    },
  };
}

export { PRESETS, listPresets } from './presets.js';
export { extractFromTokens, needsKg, usesKgGraph, type DocumentContext } from './core.js';
