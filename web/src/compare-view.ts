// Compare view: two to four presets side by side on the same text (e.g. the paper's ladder TextRank →
// +W → +W+G → +W+G+R); keywords only one column has are marked, those a column adds to the previous
// one counted, and with gold keywords, hits (✓) and misses.
import { api, byId, chip, fmt, h, kindOf } from './dom.js';
import type { ExtractResult } from './types.js';

interface CompareResult {
  results: ExtractResult[];
  only: string[][];
  added: string[][];
  gold?: string[];
  hits?: string[][];
}

/** Compare the presets and draw the columns, unless `isCurrent()` says the input changed meanwhile. */
export async function runCompare(body: Record<string, unknown>, isCurrent: () => boolean = () => true): Promise<CompareResult> {
  const r = await api<CompareResult>('/api/compare', body);
  if (!isCurrent()) return r;
  const out = byId('compare-out');
  out.style.gridTemplateColumns = `repeat(${r.results.length}, minmax(0, 1fr))`;
  out.replaceChildren(...r.results.map((res, i) => column(res, r.only[i], i > 0 ? r.added[i] : null, r.hits?.[i], r.gold)));
  return r;
}

function column(res: ExtractResult, only: string[], added: string[] | null, hits: string[] | undefined, gold: string[] | undefined): HTMLElement {
  const onlySet = new Set(only);
  const hitSet = new Set(hits ?? []);
  const list = h('ol', {});
  for (const k of res.keywords) {
    const kind = kindOf(k);
    const word = h('span', { class: [onlySet.has(k.word) ? 'only' : '', hitSet.has(k.word) ? 'hit' : ''].join(' ').trim() || undefined }, k.word);
    list.append(h('li', { 'data-word': k.word }, word, ' ', chip(kind, kind), ' ', h('span', { class: 'muted small' }, fmt(k.score))));
  }
  const card = h('div', { class: 'card' }, h('h2', {}, res.preset), list);
  if (gold) {
    const missed = gold.filter((g) => !res.keywords.some((k) => k.word === g) && !hitSet.has(g));
    card.append(h('div', { class: 'small' }, `gold hits ${hitSet.size}/${gold.length}`, missed.length ? ' · missed: ' : '', ...missed.flatMap((m, i) => [i ? ', ' : '', h('span', { class: 'miss' }, m)])));
  }
  card.append(h('div', { class: 'muted small' }, `${only.length} only here (marked)`, added ? ` · ${added.length} new against the column before` : '', ` · ${res.ms.toFixed(1)} ms`));
  return card;
}
