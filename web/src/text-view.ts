// Text view: the document with every candidate occurrence marked, the top-K keywords highlighted by
// rank and coloured by kind, the keyword list, and the explain parts on hover.
import { append, byId, chip, clear, fmt, h, kindOf, KIND_COLOURS } from './dom.js';
import type { ExtractResult, Keyword } from './types.js';

export interface TextViewHooks {
  /** Jump to an entity in the KG view. */
  openEntity(id: string): void;
}

/** Render the document and the keyword list. */
export function renderText(text: string, result: ExtractResult, hooks: TextViewHooks): void {
  const doc = byId('doc');
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

function showExplain(k: Keyword): void {
  const box = byId('explain');
  box.classList.remove('muted');
  box.replaceChildren(explainBlock(k));
}

/** The `--explain` parts of a keyword as a small table. */
export function explainBlock(k: Keyword): DocumentFragment {
  const f = document.createDocumentFragment();
  const e = k.explain;
  append(f, h('b', {}, `${k.rank}. ${k.word}`), ' ', k.kind ? `(${k.kind})` : e?.phrase ? '(phrase)' : '', h('br'), `score ${fmt(k.score)}`);
  if (!e) return f;
  const graphScore = e.rank === undefined ? '' : `rank ${fmt(e.rank)}${e.idf !== undefined ? ` × idf ${fmt(e.idf)}` : ''}`;
  // under the re-ranker (filmkw-rerank) the score is the model's σ(logit); the graph score is one of its inputs
  if (e.rerank) append(f, ` = σ(logit ${fmt(e.rerank.logit)})`, graphScore ? ` · graph score ${graphScore}` : '');
  else if (graphScore) append(f, ` = ${graphScore}`);
  append(f, h('br'), `edges: co-occurrence ${fmt(e.cooc)} · KG ${fmt(e.kg)} · semantic ${fmt(e.sem)}`, e.position !== undefined ? ` · position ${fmt(e.position)}` : '');
  if (e.phrase) append(f, h('br'), `phrase of ${e.phrase.words.map((w) => `${w.word} (${fmt(w.score)})`).join(' + ')}, ${e.phrase.occurrences}× in the text`);
  if (e.neighbours.length > 0) {
    const table = h('table', {}, h('tr', {}, h('th', {}, 'neighbour'), h('th', {}, 'co-oc'), h('th', {}, 'KG'), h('th', {}, 'sem')));
    for (const n of e.neighbours) table.append(h('tr', {}, h('td', {}, n.word), h('td', {}, fmt(n.cooc)), h('td', {}, fmt(n.kg)), h('td', {}, fmt(n.sem))));
    f.append(table);
  }
  if (e.rerank) {
    // the largest contributions to the logit (the list is sorted by |contribution|)
    const shown = e.rerank.features.slice(0, RERANK_SHOWN);
    const table = h('table', { class: 'rerank' }, h('tr', {}, h('th', {}, 're-ranker feature'), h('th', {}, 'value'), h('th', {}, 'logit +')));
    for (const c of shown) table.append(h('tr', {}, h('td', {}, c.feature), h('td', {}, fmt(c.value)), h('td', {}, fmt(c.contribution))));
    const rest = e.rerank.features.slice(RERANK_SHOWN).reduce((a, c) => a + c.contribution, 0);
    append(f, h('br'), `logit = bias ${fmt(e.rerank.bias)} + Σ contributions${e.rerank.features.length > RERANK_SHOWN ? ` (${e.rerank.features.length - RERANK_SHOWN} more: ${fmt(rest)})` : ''}`);
    f.append(table);
  }
  return f;
}

/** How many of the re-ranker's feature contributions the explain block lists. */
const RERANK_SHOWN = 6;
