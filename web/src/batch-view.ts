// Batch view: the tag outputs given to `filmkw serve --files`: records page by page, filtered by
// keyword or entity, with the most frequent keywords of the (filtered) corpus; gold hits marked.
import { api, byId, chip, clear, fmt, h, kindOf, Latest, showError } from './dom.js';
import type { BatchPage } from './types.js';

type Scores = NonNullable<NonNullable<BatchPage['scores']>['file']>;

/** One line of scores: F1, P and R at the run's K, macro over the records with gold (micro F1 after). */
function scoreLine(what: string, s: Scores): string {
  return `${what}: F1@${s.k} ${fmt(s.macro.f1)} · P ${fmt(s.macro.p)} · R ${fmt(s.macro.r)} (macro over ${s.docs} record${s.docs === 1 ? '' : 's'} with gold; micro F1 ${fmt(s.micro.f1)})`;
}

/** The file's scores against its gold keywords, and those of the filtered records when a filter is on. */
function renderScores(page: BatchPage): void {
  const box = byId('batch-scores');
  const s = page.scores;
  if (!s?.file) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(h('div', { 'data-scope': 'file' }, scoreLine('this file', s.file)));
  if (page.matched < page.total) box.append(h('div', { 'data-scope': 'matched' }, s.matched ? scoreLine('the records shown', s.matched) : 'the records shown: none has gold keywords'));
}

const PAGE = 25;

export class BatchView {
  private offset = 0;
  /** The latest page asked for: an older answer arriving later (a slower filter) is dropped. */
  private readonly asking = new Latest();
  /** Page answers received, the dropped ones included (tests wait on it instead of on time). */
  answers = 0;
  constructor(private readonly openText: (text: string, gold?: string[]) => void) {
    byId('batch-go').addEventListener('click', () => this.run(0));
    byId('batch-prev').addEventListener('click', () => this.run(Math.max(0, this.offset - PAGE)));
    byId('batch-next').addEventListener('click', () => this.run(this.offset + PAGE));
    byId('batch-file').addEventListener('change', () => this.run(0));
  }

  run(offset: number): void {
    showError(null);
    this.load(offset).catch(showError);
  }

  async load(offset: number): Promise<void> {
    const file = byId<HTMLSelectElement>('batch-file').value;
    if (file === '') return;
    const keyword = byId<HTMLInputElement>('batch-keyword').value.trim();
    const entity = byId<HTMLInputElement>('batch-entity').value.trim();
    const q = new URLSearchParams({ offset: String(offset), limit: String(PAGE) });
    if (keyword) q.set('keyword', keyword);
    if (entity) q.set('entity', entity);
    const ticket = this.asking.start();
    const page = await api<BatchPage>(`/api/batch/${file}?${q}`);
    this.answers++;
    if (!this.asking.current(ticket)) return;
    this.offset = page.offset;
    byId('batch-count').replaceChildren(`${page.matched} of ${page.total} record(s)${page.matched ? `, ${page.offset + 1}–${Math.min(page.matched, page.offset + PAGE)} shown` : ''}`);
    renderScores(page);
    const table = byId('batch-records');
    clear(table);
    table.append(h('tr', {}, h('th', {}, 'id'), h('th', {}, 'keywords'), h('th', {}, '')));
    for (const r of page.records) {
      const hits = new Set(r.hits ?? []);
      const cell = h('td', {});
      if (r.error) cell.append(h('span', { class: 'miss' }, `error: ${r.error}`));
      for (const k of r.keywords) {
        const c = chip(k.word, kindOf(k));
        if (hits.has(k.word)) c.classList.add('hit');
        c.title = k.entityId ?? '';
        cell.append(c);
      }
      if (r.gold) {
        const missed = r.gold.filter((g) => !hits.has(g));
        if (missed.length) cell.append(h('div', { class: 'small' }, 'gold missed: ', h('span', { class: 'miss' }, missed.join(', '))));
      }
      const open = h('td', {});
      if (r.text) {
        const b = h('button', { class: 'link' }, 'Open →');
        b.addEventListener('click', () => this.openText(r.text!, r.gold));
        open.append(b);
      }
      table.append(h('tr', {}, h('td', { class: 'small' }, r.id ?? `line ${r.line}`), cell, open));
    }
    const top = byId('batch-top');
    clear(top);
    for (const t of page.top) {
      const c = chip(`${t.word} ${t.count}`, kindOf(t));
      c.title = t.entityId ? `filter by entity ${t.entityId}` : `filter by keyword ${t.word}`;
      c.addEventListener('click', () => {
        if (t.entityId) byId<HTMLInputElement>('batch-entity').value = t.entityId;
        else byId<HTMLInputElement>('batch-keyword').value = t.word;
        this.run(0);
      });
      top.append(c);
    }
  }
}
