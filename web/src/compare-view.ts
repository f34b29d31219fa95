// Compare view: two presets side by side on the same text; keywords only one side has are marked,
// and with gold keywords, hits (✓) and the gold keywords neither found.
import { api, byId, chip, fmt, h, kindOf } from './dom.js';
import type { ExtractResult } from './types.js';

interface CompareResult {
  results: [ExtractResult, ExtractResult];
  onlyA: string[];
  onlyB: string[];
  gold?: string[];
  hits?: [string[], string[]];
}

export async function runCompare(body: Record<string, unknown>): Promise<CompareResult> {
  const r = await api<CompareResult>('/api/compare', body);
  const out = byId('compare-out');
  out.replaceChildren(...r.results.map((res, side) => column(res, side === 0 ? r.onlyA : r.onlyB, r.hits?.[side], r.gold)));
  return r;
}

function column(res: ExtractResult, only: string[], hits: string[] | undefined, gold: string[] | undefined): HTMLElement {
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
  card.append(h('div', { class: 'muted small' }, `${only.length} keyword(s) only here (marked) · ${res.ms.toFixed(1)} ms`));
  return card;
}
