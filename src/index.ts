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
 * Everything exported here is covered by test/api.test.ts; changing this surface is a breaking change.
 */

// extraction
export { createExtractor, type CreateExtractorOptions } from './pipeline/extract.js';
export type { Extractor, ExtractCallOptions, Keyword, KeywordExplain } from './pipeline/api.js';
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

// the stages, each a pure function of (input, options)
export { createSegmenter, type Segmenter, type Token } from './pipeline/segment.js';
export { createCandidateFilter, selectCandidates, type CandidateFilter, type CandidateSelection } from './pipeline/candidates.js';
export { loadBundledIdf, parseIdf, type IdfTable } from './pipeline/idf.js';
export { loadStopwords } from './pipeline/stopwords.js';
export { extractFromTokens, type DocumentContext } from './pipeline/core.js';
export { buildCandidateDoc, buildWordGraph, mergeEntityNodes, toRankInput, toGraphology, type CandidateDoc, type WordGraph, type WordEdgeAttributes, type WordNodeAttributes } from './pipeline/graph.js';
export { matchEntities, resolveAmbiguity, primaryEntity, MatchCache } from './pipeline/kg-match.js';
export { rankGraph, type RankInput, type RankResult } from './pipeline/rank.js';
export { positionBias } from './pipeline/positions.js';
export { jaccard } from './pipeline/jaccard.js';

// lexicon: KG names → segmenter user dictionary; the title policy's common-word rules
export { DEFAULT_BACKEND, SEGMENTER_BACKENDS, type SegmenterBackend } from './lexicon/base.js';
export { exportUserDict, writeUserDict, type UserDictExport } from './lexicon/dict.js';
export { DiskCache } from './lexicon/cache.js';
export { applyTitlePolicy, commonEntityNames, isCommonWord } from './lexicon/title-policy.js';

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

// errors
export { FilmkwError, EXIT, type ErrorCode } from './errors.js';
