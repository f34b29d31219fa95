// Text view: the document with every candidate occurrence marked, the top-K keywords highlighted by
// rank and coloured by kind, the keyword list, and the explain parts on hover.
import { append, byId, chip, clear, fmt, h, kindOf, KIND_COLOURS } from './dom.js';
import { FEATURE_GLOSSARY, TERM_GLOSSARY } from '../../src/pipeline/glossary.js';
import type { ExtractResult, Keyword } from './types.js';

export interface TextViewHooks {
  /** Jump to an entity in the KG view. */
  openEntity(id: string): void;
}

/** Render the document and the keyword list. */
export function renderText(text: string, result: ExtractResult, hooks: TextViewHooks): void {
  const doc = byId('doc');
  resetExplain();
  const byRank = new Map(result.keywords.map((k) => [k.rank, k]));
  const frag = document.createDocumentFragment();
  const firstSeen = new Set<number>();
  const mark = (start: number, end: number, node: number): HTMLElement => {
    const n = result.nodes[node];
    const k = n.keyword !== undefined ? byRank.get(n.keyword) : undefined;
    const el = h('span', { class: 'occ', 'data-node': String(node) }, text.slice(start, end));
    if (k) {
      el.className = `occ kw kind-${kindOf(k)} r${k.rank}`;
      el.dataset.rank = String(k.rank);
            if (!firstSeen.has(k.rank)) {
        firstSeen.add(k.rank);
        el.append(h('sup', {}, k.rank));
      }
    }
    return el;
  };
  let pos = 0;
  let o = 0;
  const occ = result.occurrences;
  const emit = (parent: Node, until: number) => {
    while (o < occ.length && occ[o].start < until) {
      const x = occ[o++];
      if (x.start < pos || x.end > until) continue; // crosses a phrase edge: left as plain text
      if (x.start > pos) parent.appendChild(document.createTextNode(text.slice(pos, x.start)));
      parent.appendChild(mark(x.start, x.end, x.node));
      pos = x.end;
    }
    if (until > pos) parent.appendChild(document.createTextNode(text.slice(pos, until)));
    pos = Math.max(pos, until);
  };
  for (const span of result.phraseSpans) {
    if (span.start < pos) continue;
    emit(frag, span.start);
    const k = byRank.get(span.keyword)!;
    const wrap = h('span', { class: `kw phrase-span kind-phrase r${k.rank}`, 'data-rank': String(k.rank) });
    emit(wrap, span.end);
    if (!firstSeen.has(k.rank)) {
      firstSeen.add(k.rank);
      wrap.append(h('sup', {}, k.rank));
    }
    frag.appendChild(wrap);
  }
  emit(frag, text.length);
  doc.replaceChildren(frag);

  const list = byId('keywords');
  clear(list);
  for (const k of result.keywords) {
    const kind = kindOf(k);
    const li = h('li', { 'data-rank': String(k.rank) }, h('span', { class: 'rank' }, k.rank), h('span', { class: 'word' }, k.word), chip(kind, kind), h('span', { class: 'score' }, fmt(k.score)));
    if (k.entityId) {
      const go = h('button', { class: 'link', title: `open ${k.entityId} in the KG view` }, 'KG →');
      go.addEventListener('click', () => hooks.openEntity(k.entityId!));
      li.insertBefore(go, li.lastChild);
    }
    li.addEventListener('mouseenter', () => {
      showExplain(k);
      for (const el of doc.querySelectorAll(`[data-rank="${k.rank}"]`)) el.classList.add('hot');
    });
    li.addEventListener('mouseleave', () => {
      for (const el of doc.querySelectorAll('.hot')) el.classList.remove('hot');
    });
    list.append(li);
  }
  const legend = byId('legend');
  clear(legend);
  const kinds = new Set(result.keywords.map((k) => kindOf(k)));
  for (const kind of Object.keys(KIND_COLOURS)) if (kinds.has(kind)) legend.append(chip(kind, kind));

  // hover: the explain parts of a keyword, or the rank score of any candidate
  const tip = byId('tip');
  doc.onmousemove = (ev) => {
    const target = (ev.target as HTMLElement).closest('[data-rank], [data-node]') as HTMLElement | null;
    if (!target) {
      tip.hidden = true;
      return;
    }
    clear(tip);
    const rank = target.dataset.rank ? Number(target.dataset.rank) : undefined;
    const k = rank !== undefined ? byRank.get(rank) : undefined;
    if (k) {
      tip.append(explainBlock(k));
      showExplain(k);
    } else {
      const n = result.nodes[Number(target.dataset.node)];
      append(tip, h('b', {}, n.word), h('br'), `candidate, not in the top ${result.topK}`, h('br'), `graph rank score ${fmt(n.rank)} · ${n.count}× in the text`, n.kind ? h('br') : null, n.kind ? `KG: ${n.kind}` : null);
    }
    tip.hidden = false;
    tip.style.left = `${Math.min(ev.clientX + 14, window.innerWidth - 340)}px`;
    tip.style.top = `${ev.clientY + 16}px`;
  };
  doc.onmouseleave = () => (tip.hidden = true);
}

const EXPLAIN_PLACEHOLDER = 'Hover a marked word to see what lifted it.';

/** Empty the Text view (a new text not tagged yet): document, keyword list, legend, explain panel, tooltip. */
export function clearText(): void {
  for (const id of ['doc', 'keywords', 'legend']) clear(byId(id));
  resetExplain();
  byId('tip').hidden = true;
}

/** The explain panel back to its placeholder (a new document: no keyword of it is hovered yet). */
function resetExplain(): void {
  const box = byId('explain');
  box.classList.add('muted');
  box.replaceChildren(EXPLAIN_PLACEHOLDER);
}

function showExplain(k: Keyword): void {
  const box = byId('explain');
  box.classList.remove('muted');
  box.replaceChildren(explainBlock(k));
}

/** A term of the explain output with its glossary sentence as the tooltip (src/pipeline/glossary.ts). */
export function term(key: keyof typeof TERM_GLOSSARY & string, text = TERM_GLOSSARY[key].label): HTMLElement {
  return h('span', { class: 'term', title: TERM_GLOSSARY[key].means, 'data-term': key }, text);
}

/** A re-ranker feature's name with its glossary sentence as the tooltip. */
function featureName(feature: string): HTMLElement {
  const gloss = (FEATURE_GLOSSARY as Record<string, { means: string } | undefined>)[feature];
  return h('span', { class: 'term', title: gloss?.means, 'data-feature': feature }, feature);
}

/** The `--explain` parts of a keyword: the sentence that reads them, then the parts as small tables. */
export function explainBlock(k: Keyword): DocumentFragment {
  const f = document.createDocumentFragment();
  const e = k.explain;
  append(f, h('b', {}, `${k.rank}. ${k.word}`), ' ', k.kind ? `(${k.kind})` : e?.phrase ? '(phrase)' : '', h('br'));
  if (e?.why) f.append(h('div', { class: 'why' }, e.why));
  append(f, term('score'), ` ${fmt(k.score)}`);
  if (!e) return f;
  const graphScore = e.rank === undefined ? null : h('span', {}, term('rank'), ` ${fmt(e.rank)}`, ...(e.idf !== undefined ? [' × ', term('idf'), ` ${fmt(e.idf)}`] : []));
  // under the re-ranker (filmkw-rerank) the score is the model's σ(logit); the graph score is one of its inputs
  if (e.rerank) append(f, ' = ', term('sigmoid', 'σ'), '(', term('logit'), ` ${fmt(e.rerank.logit)})`, graphScore ? ' · ' : '', graphScore);
  else if (graphScore) append(f, ' = ', graphScore);
  append(f, h('br'), 'edges: ', term('cooc'), ` ${fmt(e.cooc)} · `, term('kg'), ` ${fmt(e.kg)} · `, term('sem'), ` ${fmt(e.sem)}`, e.position !== undefined ? h('span', {}, ' · ', term('position'), ` ${fmt(e.position)}`) : null);
  if (e.phrase) append(f, h('br'), term('phrase'), ` of ${e.phrase.words.map((w) => `${w.word} (${fmt(w.score)})`).join(' + ')}, ${e.phrase.occurrences}× in the text`);
  if (e.neighbours.length > 0) {
    const table = h('table', {}, h('tr', {}, h('th', {}, term('neighbours', 'neighbour')), h('th', {}, term('cooc', 'co-oc')), h('th', {}, term('kg')), h('th', {}, term('sem', 'sem'))));
    for (const n of e.neighbours) table.append(h('tr', {}, h('td', {}, n.word), h('td', {}, fmt(n.cooc)), h('td', {}, fmt(n.kg)), h('td', {}, fmt(n.sem))));
    f.append(table);
  }
  if (e.rerank) {
    // the largest contributions to the logit (the list is sorted by |contribution|)
    const shown = e.rerank.features.slice(0, RERANK_SHOWN);
    const table = h('table', { class: 'rerank' }, h('tr', {}, h('th', {}, 're-ranker feature'), h('th', {}, term('value')), h('th', {}, term('logit', 'logit'), ' +')));
    for (const c of shown) table.append(h('tr', {}, h('td', {}, featureName(c.feature)), h('td', {}, fmt(c.value)), h('td', {}, fmt(c.contribution))));
    const rest = e.rerank.features.slice(RERANK_SHOWN).reduce((a, c) => a + c.contribution, 0);
    append(f, h('br'), term('logit'), ' = ', term('bias'), ` ${fmt(e.rerank.bias)} + Σ `, term('contribution', 'contributions'), e.rerank.features.length > RERANK_SHOWN ? ` (${e.rerank.features.length - RERANK_SHOWN} more: ${fmt(rest)})` : '');
    f.append(table);
  }
  return f;
}

/** The glossary panel under the explain panel: every explain term and re-ranker feature in plain words. */
export function renderGlossary(): void {
  const list = byId('glossary-list');
  const rows: [string, string][] = [...Object.values(TERM_GLOSSARY).map((t): [string, string] => [t.label, t.means]), ...Object.entries(FEATURE_GLOSSARY).map(([name, g]): [string, string] => [name, g.means])];
  list.replaceChildren(...rows.flatMap(([name, means]) => [h('dt', {}, name), h('dd', {}, means)]));
}

/** How many of the re-ranker's feature contributions the explain block lists. */
const RERANK_SHOWN = 6;
