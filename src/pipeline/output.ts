/**
 * What the extractor returns (option group `output`: spec §1.2 step 8, [RECON]): how many keywords, on
 * which score scale ({@link scale}: raw S(v_i), jieba/cppjieba's min-max/10, sum-normalised), what becomes of
 * candidates without edges, whether keywords name their KG entity, and whether cast-list verbs are output.
 * core.ts applies them; select.ts picks the top K.
 */
import type { OptionRules } from '../util/option-rules.js';

export const SCORE_SCALES = ['raw', 'minMax10', 'sum'] as const;
export const ISOLATED_RULES = ['keep', 'drop', 'zero'] as const;

/** What the extractor returns (group `output`). */
export interface OutputOptions {
  /**
   * Number of keywords returned (the paper evaluates K = 1..5); `extract(text, {topK})` overrides it.
   * @default 5
   */
  topK: number;
  /**
   * Score scale of the output: the raw S(v_i), jieba/cppjieba's min-max variant
   * (w − min/10)/(max − min/10) (top word 1), or scores divided by their sum.
   * @default 'raw'
   */
  scoreScale: (typeof SCORE_SCALES)[number];
  /**
   * Candidates without any edge: keep them with their restart score (1−d)·b_i, drop them (jieba: they
   * are not graph nodes), or keep them with score 0 (cppjieba: in its word map with weight 0, which
   * also enters the min-max scaling).
   * @default 'keep'
   */
  isolated: (typeof ISOLATED_RULES)[number];
  /**
   * Report `kind` and `entityId` for keywords that denote a KG entity (whenever a KG is given; does
   * not change scores).
   * @default true
   */
  annotateEntities: boolean;
  /**
   * Cast-list verbs (饰演, 扮演, 主演, 客串, 执导 …; phrases.ts `CAST_VERBS`) and the compounds with one
   * in them (张三饰演): output like any word (`'keep'`, the paper presets), or never output (`'drop'`, the
   * preset `filmkw-rerank`). They stay graph words and candidates either way, so the ranking of the other
   * words does not change.
   * @default 'keep'
   */
  castVerbs: (typeof CAST_VERB_RULES)[number];
}

export const CAST_VERB_RULES = ['keep', 'drop'] as const;

export const DEFAULT_OUTPUT_OPTIONS: Readonly<OutputOptions> = Object.freeze({ topK: 5, scoreScale: 'raw', isolated: 'keep', annotateEntities: true, castVerbs: 'keep' });

export const OUTPUT_OPTION_RULES: OptionRules<OutputOptions> = Object.freeze({
  topK: { type: 'number', min: 1, max: 1000, integer: true },
  scoreScale: { type: 'enum', values: SCORE_SCALES },
  isolated: { type: 'enum', values: ISOLATED_RULES },
  annotateEntities: { type: 'boolean' },
  castVerbs: { type: 'enum', values: CAST_VERB_RULES },
});

/** Rescale the included nodes' values in place (`output.scoreScale`). */
export function scale(values: Float64Array, included: readonly number[], mode: OutputOptions['scoreScale']): void {
  if (mode === 'raw' || included.length === 0) return;
  if (mode === 'sum') {
    let total = 0;
    for (const i of included) total += values[i];
    if (total > 0) for (const i of included) values[i] /= total;
    return;
  }
  // jieba / cppjieba: (w − min/10) / (max − min/10)
  let min = Infinity;
  let max = -Infinity;
  for (const i of included) {
    if (values[i] < min) min = values[i];
    if (values[i] > max) max = values[i];
  }
  const denominator = max - min / 10;
  for (const i of included) values[i] = denominator > 0 ? (values[i] - min / 10) / denominator : 0;
}
