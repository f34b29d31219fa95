/**
 * The exact-body judge of seed 000 (§3): an extraction is correct when it holds ALL of the body text
 * and at most a little extra — "不超过一句话，且长度不能超过正文信息的10%" (at most one sentence, at most 10%
 * of the body's length, before or after the article).
 *
 * Mechanics (the paper judged by eye; this is our reading, identical for every extractor):
 * - both texts are NFKC-normalised and all white space is removed (ground truths are hard-wrapped);
 * - each non-empty line of the ground truth must occur in the extraction (searched in order, then
 *   anywhere); a line that is missing fails the page. Lines that are the page title (given in
 *   `optional`) may be absent: the paper counts title/author/date as metadata, not body;
 * - every extraction character not covered by a ground-truth line is extra; segments made only of
 *   punctuation are ignored; the extra must be ≤ `maxExtraRatio` of the body and hold ≤ `maxExtraSentences`
 *   sentences (split at 。！？!?；; and line ends).
 * Soft figures come along: character recall (covered ground truth / ground truth) and precision
 * (covered extraction / extraction).
 */

/** Options of {@link judgeBody}. */
export interface JudgeOptions {
  /** Largest extra text as a share of the body length. @default 0.1 */
  maxExtraRatio?: number;
  /** Most extra sentences. @default 1 */
  maxExtraSentences?: number;
  /** Strings (titles) whose ground-truth lines may be absent from the extraction. */
  optional?: string[];
}

export const JUDGE_DEFAULTS = Object.freeze({ maxExtraRatio: 0.1, maxExtraSentences: 1 });

/** Verdict of {@link judgeBody}. */
export interface Verdict {
  ok: boolean;
  /** Ground-truth lines not found in the extraction (normalised). */
  missing: string[];
  extraChars: number;
  extraSentences: number;
  goldChars: number;
  recall: number;
  precision: number;
  reason: string;
}

/** NFKC, no white space. */
export const judgeNormalize = (s: string): string => s.normalize('NFKC').replace(/[\s\u200b\ufeff]+/g, '');

const PUNCT_ONLY = /^[\p{P}\p{S}\d]*$/u;

export function judgeBody(extracted: string, gold: string, opts: JudgeOptions = {}): Verdict {
  const maxRatio = opts.maxExtraRatio ?? JUDGE_DEFAULTS.maxExtraRatio;
  const maxSent = opts.maxExtraSentences ?? JUDGE_DEFAULTS.maxExtraSentences;
  const optional = (opts.optional ?? []).map(judgeNormalize).filter((s) => s.length > 0);
  const ext = judgeNormalize(extracted);
  const lines = gold.split(/\r?\n/).map(judgeNormalize).filter((l) => l.length > 0);
  const covered = new Uint8Array(ext.length);
  const missing: string[] = [];
  let goldChars = 0;
  let goldCovered = 0;
  let pos = 0;
  for (const l of lines) {
    let i = ext.indexOf(l, pos);
    if (i < 0) i = ext.indexOf(l);
    const isOptional = optional.some((t) => t.includes(l) || (l.length <= 2 * t.length && l.includes(t)));
    if (i < 0) {
      if (!isOptional) {
        missing.push(l);
        goldChars += l.length;
      }
      continue;
    }
    goldChars += l.length;
    goldCovered += l.length;
    covered.fill(1, i, i + l.length);
    pos = i + l.length;
  }
  // extra segments
  let extraChars = 0;
  let extraSentences = 0;
  let extCovered = 0;
  let segStart = -1;
  const closeSeg = (end: number): void => {
    const seg = ext.slice(segStart, end);
    segStart = -1;
    if (PUNCT_ONLY.test(seg)) return;
    extraChars += seg.length;
    extraSentences += seg.split(/[。！？!?；;]+/).filter((p) => !PUNCT_ONLY.test(p)).length;
  };
  for (let i = 0; i < ext.length; i++) {
    if (covered[i]) {
      extCovered++;
      if (segStart >= 0) closeSeg(i);
    } else if (segStart < 0) segStart = i;
  }
  if (segStart >= 0) closeSeg(ext.length);
  const recall = goldChars ? goldCovered / goldChars : 0;
  const precision = ext.length ? extCovered / ext.length : 0;
  let reason = 'ok';
  let ok = true;
  if (lines.length === 0) {
    ok = false;
    reason = 'empty ground truth';
  } else if (missing.length) {
    ok = false;
    reason = `${missing.length} body line(s) missing, e.g. "${missing[0]!.slice(0, 30)}"`;
  } else if (extraChars > maxRatio * goldChars) {
    ok = false;
    reason = `${extraChars} extra chars > ${Math.round(maxRatio * 100)}% of ${goldChars}`;
  } else if (extraSentences > maxSent) {
    ok = false;
    reason = `${extraSentences} extra sentences > ${maxSent}`;
  }
  return { ok, missing, extraChars, extraSentences, goldChars, recall, precision, reason };
}
