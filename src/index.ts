/**
 * filmkw public API: keyword extraction for Chinese film texts with a film knowledge graph
 * (TextRank / PositionRank + MKG, 王芳 等 2022). Library first; the CLI (src/cli) is a thin layer on top.
 *
 * Typical use:
 *
 *   import { createExtractor } from 'filmkw';
 *   const extractor = createExtractor({ preset: 'textrank+w+g+r', kg });
 *   extractor.extract('以易烊千玺扮演的伍万里……', { topK: 5, explain: true });
 *
 * What a library user needs — the extractor, presets and options, the resources it takes, the KG (load,
 * import, Neo4j), the evaluator and the batch runner — and not the stages' internals (graph.ts, rank.ts …
 * are reached by path in tests). Covered by test/api.test.ts; changing this surface is a breaking change.
 */

// extraction
export { createExtractor, type CreateExtractorOptions } from './pipeline/extract.js';
export type { Extractor, ExtractCallOptions, ExtractTrace, Keyword, KeywordExplain } from './pipeline/api.js';
export type { WordGraph } from './pipeline/graph.js';
export { toGraphology, type WordNodeAttributes, type WordEdgeAttributes } from './pipeline/graphology.js';
export { PRESETS, listPresets, findPreset, type Preset } from './pipeline/presets.js';
export {
  DEFAULT_OPTIONS,
  DEFAULT_PRESET,
  resolveOptions,
  applyOverrides,
  normaliseOverrides,
  parseOverride,
  optionKeys,
  describeOptions,
  type PipelineOptions,
  type ResolvedOptions,
  type OptionOverrides,
  type LexiconOptions,
  type OutputOptions,
  type GraphOptions,
  type SemanticOptions,
  type RankOptions,
  type KgMatchOptions,
  type TitlePolicyOptions,
  type CandidateOptions,
} from './pipeline/options.js';

// resources passed to the extractor (nothing process-wide: see README "Library")
export { loadBundledIdf, parseIdf, type IdfTable } from './pipeline/idf.js';
export { loadStopwords } from './pipeline/stopwords.js';
export { DiskCache } from './lexicon/cache.js';

// segmentation, and the pure core for text tagged by another segmenter
export { createSegmenter, type Segmenter, type Token } from './pipeline/segment.js';
export { extractFromTokens, type DocumentContext } from './pipeline/core.js';
export { commonEntityNames, commonWordTest } from './lexicon/title-policy.js';

// lexicon: KG names → segmenter user dictionary
export { DEFAULT_BACKEND, SEGMENTER_BACKENDS, type SegmenterBackend } from './lexicon/base.js';
export { exportUserDict, writeUserDict, type UserDictExport } from './lexicon/dict.js';

// knowledge graph
export {
  ENTITY_KINDS,
  RELATION_KINDS,
  normalizeName,
  entityId,
  type Entity,
  type EntityKind,
  type Relation,
  type RelationKind,
  type KgData,
  type KgStats,
  type KgView,
} from './kg/model.js';
export { KgStore } from './kg/store.js';
export { loadKg, defaultKgDir, type LoadKgOptions } from './kg/load.js';
export { loadSnapshot, saveSnapshot, readSnapshotHeader, type SnapshotHeader } from './kg/snapshot.js';
export { importSources, parseSource, SOURCE_PREFIXES, type ImportOptions, type ImportResult, type SourceSpec } from './kg/import.js';
export { neo4jConfigFromEnv, writeKgToNeo4j, readKgFromNeo4j, neo4jStats, type Neo4jConfig } from './kg/neo4j.js';

// evaluation
export { evaluate, parseKs, normalizeKeyword, type EvalOptions, type EvalResult, type Judgement, type PRF } from './eval/metrics.js';
export { readGold, parseGold, GOLD_FORMATS, type GoldDocument, type GoldFormat, type ReadGoldOptions } from './eval/readers.js';

// batch runs (what `filmkw tag` does: streamed input, ordered worker pool, resumable output)
export { runTag, summaryLine, type TagRunOptions, type TagRunSummary } from './batch/tag-run.js';

// errors
export { FilmkwError, EXIT, type ErrorCode } from './errors.js';
