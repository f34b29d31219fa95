/**
 * Where the gold keywords land (error analysis, issue 13): for every distinct gold keyword of every
 * document, the place the system gives it — in the top K, ranked K+1…2K, 2K+1…4K or lower, a scored
 * candidate hidden by a longer or a shorter overlapping variant ranked higher (the phrase stage's
 * no-overlap rule), a candidate the last ranking stage never scored (outside the re-ranker's pool), or
 * never a candidate. The ranking is
 * the extractor's own output for a large topK, the candidates come from the pipeline's `candidates`
 * hook (api.ts); matching is the evaluator's (metrics.ts: normalisation, optional traditional folding
 * and KG aliases). Pipeline presets only: a nodejieba baseline exposes no candidates.
 */
import type { Extractor, OutputCandidate } from '../pipeline/api.js';
import type { Matcher } from './metrics.js';
import { distinctKeys } from './metrics.js';
import type { GoldDocument } from './readers.js';

export const PLACES = ['top', 'next', 'later', 'lower', 'longer', 'shorter', 'unscored', 'never'] as const;
export type Place = (typeof PLACES)[number];

/** Counts of gold keywords per place, with the K the bands are cut at. */
export interface PlacementResult {
  k: number;
  docs: number;
  gold: number;
  counts: Record<Place, number>;
}

/** The largest `topK` the pipeline accepts (options.ts rule of `output.topK`). */
const RANKED = 1000;

/** The label of a place for K (the bands: 1…K, K+1…2K, 2K+1…4K, below 4K). */
export function placeLabel(place: Place, k: number): string {
  switch (place) {
    case 'top':
      return `in the top ${k}`;
    case 'next':
      return `ranked ${k + 1}–${2 * k}`;
    case 'later':
      return `ranked ${2 * k + 1}–${4 * k}`;
    case 'lower':
      return `ranked below ${4 * k}`;
    case 'longer':
      return 'hidden by a longer variant ranked higher';
    case 'shorter':
      return 'hidden by a shorter variant ranked higher';
    case 'unscored':
      return 'a candidate outside the re-rank pool (never scored)';
    case 'never':
      return 'never a candidate';
  }
}

/**
 * The place of one gold key given the document's ranked prediction keys (distinct, best first), its
 * candidates and whether the ranking was cut at the largest topK.
 */
export function placeOf(goldKey: string, ranked: readonly string[], candidates: readonly { key: string; scored: boolean }[], truncated: boolean, k: number, matcher: Matcher): Place {
  const at = ranked.findIndex((p) => matcher.matches(p, goldKey));
  if (at >= 0) return at < k ? 'top' : at < 2 * k ? 'next' : at < 4 * k ? 'later' : 'lower';
  let unscored = false;
  for (const c of candidates) {
    if (!matcher.matches(c.key, goldKey)) continue;
    // a scored candidate missing from an uncut ranking lost to an overlapping variant ranked higher (a
    // longer one containing it, else a shorter one); when the ranking was cut at the largest topK it may
    // simply rank below the cut
    if (c.scored) return truncated ? 'lower' : ranked.some((p) => p.length > c.key.length && p.includes(c.key)) ? 'longer' : 'shorter';
    unscored = true;
  }
  return unscored ? 'unscored' : 'never';
}

/** Place every distinct gold keyword of `docs` (see module header). */
export function goldPlacement(extractor: Extractor, docs: readonly GoldDocument[], k: number, matcher: Matcher, onProgress?: (done: number) => void): PlacementResult {
  const counts = Object.fromEntries(PLACES.map((p) => [p, 0])) as Record<Place, number>;
  let gold = 0;
  docs.forEach((d, i) => {
    let list: readonly OutputCandidate[] = [];
    const keywords = extractor.extract(d.text, { topK: RANKED, film: d.film, title: d.title, candidates: (l) => (list = l) });
    const ranked = distinctKeys(keywords.map((w) => w.word), matcher.key);
    const candidates = list.map((c) => ({ key: matcher.key(c.text), scored: c.scored }));
    for (const g of distinctKeys(d.gold, matcher.key)) {
      counts[placeOf(g, ranked, candidates, keywords.length >= RANKED, k, matcher)]++;
      gold++;
    }
    onProgress?.(i + 1);
  });
  return { k, docs: docs.length, gold, counts };
}

/** The readable table of `filmkw eval --placement`. */
export function placementTable(result: PlacementResult): string {
  const width = Math.max(...PLACES.map((p) => placeLabel(p, result.k).length));
  const rows = [`where the ${result.gold} gold keywords of ${result.docs} documents are (K = ${result.k}):`];
  for (const p of PLACES) {
    const n = result.counts[p];
    const share = result.gold > 0 ? ((100 * n) / result.gold).toFixed(1) : '0.0';
    rows.push(`  ${placeLabel(p, result.k).padEnd(width)}  ${String(n).padStart(6)}  ${share.padStart(5)} %`);
  }
  return rows.join('\n') + '\n';
}
