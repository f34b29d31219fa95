/**
 * The types of the pipeline's option set, apart from the values (options.ts: defaults, validation,
 * presets) so that a stage (core.ts) and the presets (presets.ts) can name them without importing the
 * resolver, which imports them back. Each group's type is its stage's (graph.ts, rank.ts, output.ts, …).
 */
import type { GraphOptions, SemanticOptions } from './graph.js';
import type { KgMatchOptions } from './kg-match.js';
import type { RankOptions } from './rank.js';
import type { TitlePolicyOptions } from '../lexicon/title-policy.js';
import type { PriorOptions } from './idf.js';
import type { CandidateOptions } from './candidates.js';
import type { PhraseOptions } from './phrases.js';
import type { RerankOptions } from './rerank.js';
import type { LexiconOptions } from './segment.js';
import type { OutputOptions } from './output.js';

/** All pipeline options, grouped by stage. */
export interface PipelineOptions {
  lexicon: LexiconOptions;
  candidates: CandidateOptions;
  kgMatch: KgMatchOptions;
  titles: TitlePolicyOptions;
  graph: GraphOptions;
  semantic: SemanticOptions;
  rank: RankOptions;
  prior: PriorOptions;
  phrases: PhraseOptions;
  rerank: RerankOptions;
  output: OutputOptions;
}

/** Resolved options: frozen, plus the name of the preset they came from. */
export type ResolvedOptions = Readonly<PipelineOptions> & { readonly preset: string };

/** Recursively partial options (preset data, typed overrides). */
export type OptionOverrides = { [G in keyof PipelineOptions]?: Partial<PipelineOptions[G]> };
