/**
 * Output lines of `filmkw tag` (JSON lines, one per input record, in input order):
 *
 *   {"id":"…","keywords":[{"word":"…","score":0.123457,"kind":"Person","entityId":"…"},…]}
 *   {"id":"…","line":12,"error":"…"}
 *
 * Scores (and the explain parts) are rounded to 6 decimals so output is stable across platforms and
 * runs; key order is fixed. With explain, `explain.why` first reads the parts in plain words
 * (src/pipeline/glossary.ts `explainSentence`, from the rounded parts). `id` is null on an error record whose id could not be read.
 */
import type { Keyword, KeywordExplain } from '../pipeline/api.js';
import { explainSentence } from '../pipeline/glossary.js';

/** Decimals kept in scores. */
export const SCORE_DECIMALS = 6;
const SCALE = 10 ** SCORE_DECIMALS;

/** Round to {@link SCORE_DECIMALS} decimals (−0 becomes 0; non-finite values stay as they are). */
export function roundScore(x: number): number {
  if (!Number.isFinite(x)) return x;
  const r = Math.round(x * SCALE) / SCALE;
  return r === 0 ? 0 : r;
}

/** The keywords array of one document as JSON (fixed key order, rounded numbers). */
export function keywordsJson(keywords: readonly Keyword[], explain: boolean): string {
  const out = keywords.map((k, index) => {
    const o: Record<string, unknown> = { word: k.word, score: roundScore(k.score) };
    if (k.kind !== undefined) o.kind = k.kind;
    if (k.entityId !== undefined) o.entityId = k.entityId;
    if (explain && k.explain) {
      const e = k.explain;
      const x: Record<string, unknown> = { cooc: roundScore(e.cooc), kg: roundScore(e.kg), sem: roundScore(e.sem) };
      if (e.position !== undefined) x.position = roundScore(e.position);
      if (e.rank !== undefined) x.rank = roundScore(e.rank);
      if (e.idf !== undefined) x.idf = roundScore(e.idf);
      x.neighbours = e.neighbours.map((n) => ({ word: n.word, cooc: roundScore(n.cooc), kg: roundScore(n.kg), sem: roundScore(n.sem) }));
      // a multi-token keyphrase (pipeline option group phrases): its words and occurrences
      if (e.phrase) x.phrase = { words: e.phrase.words.map((w) => ({ word: w.word, score: roundScore(w.score) })), occurrences: e.phrase.occurrences };
      // the learned re-ranker (option rerank.enabled): logit = bias + Σ contributions; features that contributed, largest first
      if (e.rerank) {
        x.rerank = {
          logit: roundScore(e.rerank.logit),
          bias: roundScore(e.rerank.bias),
          features: e.rerank.features.filter((f) => roundScore(f.contribution) !== 0).map((f) => ({ feature: f.feature, value: roundScore(f.value), contribution: roundScore(f.contribution) })),
        };
      }
      // first: the plain-words reading of the parts below (src/pipeline/glossary.ts)
      o.explain = { why: explainSentence({ word: k.word, kind: k.kind, explain: x as unknown as KeywordExplain }, index + 1), ...x };
    }
    return o;
  });
  return JSON.stringify(out);
}

/** A record id as JSON: a string, or null (never `undefined`, whatever a malformed record holds). */
const idJson = (id: unknown): string => (typeof id === 'string' ? JSON.stringify(id) : typeof id === 'number' && Number.isFinite(id) ? JSON.stringify(String(id)) : 'null');

/** One document line (with the trailing newline). */
export function documentLine(id: string, keywordsJsonText: string): string {
  return `{"id":${idJson(id)},"keywords":${keywordsJsonText}}\n`;
}

/** One error-record line (with the trailing newline); valid JSON for any values (issue 26: `"line":x` was written for a malformed record). */
export function errorLine(id: string | undefined, line: number, error: string): string {
  return `{"id":${idJson(id)},"line":${Number.isSafeInteger(line) ? line : 'null'},"error":${JSON.stringify(String(error))}}\n`;
}
