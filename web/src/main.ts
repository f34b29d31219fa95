// Front end of `filmkw serve`: tabs, the shared text input, and the wiring of the five views. Every
// API error is shown in the page (#error) with the input of the field it names marked.
import { api, busy, byId, showError, ApiError, Latest } from './dom.js';
import { clearText, renderGlossary, renderText } from './text-view.js';
import { GraphView } from './graph-view.js';
import { openEntity, searchKg } from './kg-view.js';
import { runCompare } from './compare-view.js';
import { BatchView } from './batch-view.js';
import type { EntitySummary, ExtractResult, Info, Sample } from './types.js';

type View = 'text' | 'graph' | 'kg' | 'compare' | 'batch';

/** What tests and the bench read: the last tag's timings (ms) and result, node positions. */
interface FilmkwPage {
  lastTag?: { requestMs: number; textMs: number; layoutMs: number; drawMs: number; totalMs: number };
  lastGraphMs?: number;
  result?: ExtractResult;
  ready: boolean;
  /** Batch page answers received so far, the dropped ones (older than the latest request) included. */
  readonly batchAnswers: number;
  nodePosition(word: string): { x: number; y: number } | null;
}
const page: FilmkwPage = {
  ready: false,
  get batchAnswers() {
    return batchView.answers;
  },
  nodePosition: (word) => graphView.position(word),
};
(window as unknown as { filmkw: FilmkwPage }).filmkw = page;

let current: View = 'text';
let lastText = '';
const tagging = new Latest();
const comparing = new Latest();
const graphView = new GraphView((id) => void jumpToEntity(id));
const batchView = new BatchView((text, gold) => {
  newInput(text, gold ?? [], 'batch');
  show('text');
  void tag();
});

/** Where the text came from: a sample (named in the Sample menu), a batch record, a file, or typing. */
type InputSource = 'sample' | 'batch' | 'file' | 'typed';
/** Whether the gold keywords were filled in with the text (a sample's or a batch record's), not typed. */
let goldFromInput = false;

/**
 * A new text: every view that showed the previous one is emptied (keywords, explain panel, word graph,
 * compare columns) until it is tagged; the Sample menu names a sample only while its text is the input;
 * gold keywords that came with the previous text go with it.
 */
function newInput(text: string | null, gold: readonly string[] | null, source: InputSource): void {
  if (text !== null) byId<HTMLTextAreaElement>('text').value = text;
  if (source !== 'sample') byId<HTMLSelectElement>('sample').value = '';
  const goldBox = byId<HTMLInputElement>('gold');
  if (gold !== null) {
    goldBox.value = gold.join(', ');
    goldFromInput = true;
  } else if (goldFromInput) {
    goldBox.value = '';
    goldFromInput = false;
  }
  tagging.start(); // an answer still on its way is for the previous text
  comparing.start();
  lastText = '';
  page.result = undefined;
  clearText();
  graphView.clear();
  byId('compare-out').replaceChildren();
  byId('status').textContent = source === 'typed' ? 'the text changed: press Tag' : '';
}

function show(view: View): void {
  current = view;
  for (const b of document.querySelectorAll<HTMLButtonElement>('#tabs button')) b.setAttribute('aria-selected', String(b.dataset.view === view));
  for (const v of ['text', 'graph', 'kg', 'compare', 'batch'] as View[]) byId(`view-${v}`).hidden = v !== view;
  byId('source').hidden = view === 'kg' || view === 'batch';
  if (view === 'graph') void drawGraph();
}

async function drawGraph(): Promise<void> {
  const t0 = performance.now();
  await graphView.draw();
  page.lastGraphMs = performance.now() - t0;
}

/** The option overrides typed as `key=value, key=value` (values read as JSON when they parse). */
function parseOptions(raw: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of raw.split(/[,\n]/u)) {
    const s = part.trim();
    if (s === '') continue;
    const eq = s.indexOf('=');
    if (eq <= 0) throw new ApiError(`"${s}" is not key=value`, 'options');
    const value = s.slice(eq + 1).trim();
    let v: unknown = value;
    try {
      v = JSON.parse(value);
    } catch {
      /* a bare string */
    }
    out[s.slice(0, eq).trim()] = v;
  }
  return out;
}

function request(): Record<string, unknown> {
  const topK = byId<HTMLInputElement>('topk').value.trim();
  const film = byId<HTMLInputElement>('film').value.trim();
  const title = byId<HTMLInputElement>('doc-title').value.trim();
  return {
    text: byId<HTMLTextAreaElement>('text').value,
    preset: byId<HTMLSelectElement>('preset').value,
    topK: topK === '' ? undefined : Number(topK),
    options: parseOptions(byId<HTMLInputElement>('options').value),
    explain: true,
    film: film === '' ? undefined : film,
    title: title === '' ? undefined : title,
  };
}

/** The film picker: films of the KG whose name or alias contains what is typed, offered by their KG id. */
let filmQuery = 0;
async function suggestFilms(): Promise<void> {
  const q = byId<HTMLInputElement>('film').value.trim();
  const asked = ++filmQuery;
  if (q === '' || q.startsWith('movie/') || /^\d+$/u.test(q)) return;
  const { matches } = await api<{ matches: EntitySummary[] }>(`/api/kg/search?q=${encodeURIComponent(q)}&kind=Movie&limit=12`);
  if (asked !== filmQuery) return; // a later keystroke asked again
  byId('film-list').replaceChildren(...matches.map((m) => new Option(`${m.name}${m.about ? ` · ${m.about}` : ''}`, m.id)));
}

/** How the KG read the film of the last tag. */
function filmStatus(result: ExtractResult): string {
  if (!result.film) return '';
  return result.film.id ? ` · film ${result.film.name} (${result.film.id})` : ` · film "${result.film.value}" not in the KG: tagged without it`;
}

/** Tag the text: request, then draw the text view (and lay the graph out). */
async function tag(): Promise<void> {
  showError(null);
  const status = byId('status');
  status.textContent = '';
  const ticket = tagging.start();
  try {
    const t0 = performance.now();
    const body = request();
    const result = await busy({ buttons: ['run'], progress: byId('tag-progress'), label: 'tagging', dim: byId('view-text') }, () => api<ExtractResult>('/api/extract', body));
    if (!tagging.current(ticket)) return; // the input changed meanwhile
    const t1 = performance.now();
    lastText = body.text as string;
    renderText(lastText, result, { openEntity: (id) => void jumpToEntity(id) });
    const tText = performance.now();
    graphView.set(result);
    const tLayout = performance.now();
    if (current === 'graph') await drawGraph();
    else await new Promise((r) => requestAnimationFrame(() => r(null)));
    const t2 = performance.now();
    page.result = result;
    page.lastTag = { requestMs: t1 - t0, textMs: tText - t1, layoutMs: tLayout - tText, drawMs: t2 - tLayout, totalMs: t2 - t0 };
    status.textContent = `${result.keywords.length} keywords · ${result.nodes.length} words, ${result.edges.length} edges · extraction ${result.ms.toFixed(1)} ms, in all ${(t2 - t0).toFixed(0)} ms${filmStatus(result)}`;
    if (current === 'compare') await compare();
  } catch (err) {
    if (!tagging.current(ticket)) return;
    status.textContent = '';
    showError(err);
  }
}

async function compare(): Promise<void> {
  showError(null);
  const ticket = comparing.start();
  try {
    const body = request();
    const gold = byId<HTMLInputElement>('gold')
      .value.split(/[,，、\s]+/u)
      .map((s) => s.trim())
      .filter(Boolean);
    const presets = ['a', 'b', 'c', 'd'].map((x) => byId<HTMLSelectElement>(`preset-${x}`).value).filter((p) => p !== '');
    const label = `comparing ${presets.length} presets`;
    await busy({ buttons: ['compare', 'ladder', 'run'], progress: byId('compare-progress'), label, dim: byId('compare-out') }, () =>
      runCompare({ text: body.text, topK: body.topK, options: body.options, film: body.film, title: body.title, presets, gold: gold.length ? gold : undefined }, () => comparing.current(ticket)),
    );
  } catch (err) {
    if (comparing.current(ticket)) showError(err);
  }
}

async function jumpToEntity(id: string): Promise<void> {
  show('kg');
  showError(null);
  try {
    await openEntity(id);
  } catch (err) {
    showError(err);
  }
}

function fillSelect(id: string, values: string[], selected: string): void {
  const sel = byId<HTMLSelectElement>(id);
  sel.replaceChildren(...values.map((v) => new Option(v, v, v === selected, v === selected)));
}

async function init(): Promise<void> {
  renderGlossary();
  for (const b of document.querySelectorAll<HTMLButtonElement>('#tabs button')) b.addEventListener('click', () => show(b.dataset.view as View));
  byId('run').addEventListener('click', () => void tag());
  byId('text').addEventListener('input', () => newInput(null, null, 'typed'));
  byId('text').addEventListener('keydown', (ev) => {
    if ((ev as KeyboardEvent).key === 'Enter' && ((ev as KeyboardEvent).ctrlKey || (ev as KeyboardEvent).metaKey)) void tag();
  });
  byId('compare').addEventListener('click', () => void compare());
  byId('film').addEventListener('input', () => void suggestFilms().catch(showError));
  byId('ladder').addEventListener('click', () => {
    ['textrank', 'textrank+w', 'textrank+w+g', 'textrank+w+g+r'].forEach((p, i) => (byId<HTMLSelectElement>(`preset-${'abcd'[i]}`).value = p));
    void compare();
  });
  byId('kg-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    showError(null);
    searchKg(byId<HTMLInputElement>('kg-query').value.trim()).catch(showError);
  });
  byId<HTMLInputElement>('upload').addEventListener('change', async (ev) => {
    const file = (ev.target as HTMLInputElement).files?.[0];
    if (!file) return;
    newInput(await file.text(), null, 'file');
    void tag();
  });
  try {
    const [info, samples] = await Promise.all([api<Info>('/api/info'), api<Sample[]>('/api/samples')]);
    fillSelect('preset', info.presets, info.preset);
    fillSelect('preset-a', info.presets, 'textrank');
    fillSelect('preset-b', info.presets, info.preset);
    for (const x of ['c', 'd']) {
      fillSelect(`preset-${x}`, info.presets, '');
      byId<HTMLSelectElement>(`preset-${x}`).prepend(new Option('—', '', true, true));
    }
    byId<HTMLInputElement>('topk').value = String(info.topK);
    byId('kg-label').textContent = `KG: ${info.kg.label} · ${info.kg.entities.toLocaleString()} entities, ${info.kg.relations.toLocaleString()} relations`;
    const sampleSel = byId<HTMLSelectElement>('sample');
    for (const s of samples) sampleSel.append(new Option(`${s.id}${s.title ? ` ${s.title}` : ''}`, s.id));
    sampleSel.addEventListener('change', () => {
      const s = samples.find((x) => x.id === sampleSel.value);
      if (!s) return;
      newInput(s.text, s.tag ?? [], 'sample');
      byId<HTMLInputElement>('doc-title').value = s.title ?? '';
      void tag();
    });
    fillSelect('batch-file', info.batch.map((b) => String(b.index)), '0');
    const fileSel = byId<HTMLSelectElement>('batch-file');
    info.batch.forEach((b, i) => (fileSel.options[i].text = `${b.name} (${b.records})`));
    if (info.batch.length > 0) batchView.run(0);
    else byId('batch-count').textContent = 'no tag output given: start the viewer with --files tags.jsonl';
  } catch (err) {
    showError(err);
  }
  page.ready = true;
}

void init();
