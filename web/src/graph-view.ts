// Word graph view: the document's word graph drawn by sigma.js from a graphology graph. Edge colour
// tells the kind (co-occurrence grey, KG orange, semantic violet; an edge with a KG part is drawn as
// KG), node size the rank score, top-K nodes ringed and always labelled. Drag, zoom, pan; clicking a
// node lists its neighbours with the edge weights.
import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import Sigma from 'sigma';
import type { EdgeDisplayData, NodeDisplayData } from 'sigma/types';
import { byId, chip, clear, fmt, h, kindOf, KIND_COLOURS } from './dom.js';
import type { ExtractResult, ViewEdge } from './types.js';

/**
 * Camera ratio below which every word is labelled. At the first view only the top K are: each new CJK
 * character of a label costs sigma a glyph in its text atlas, which was most of the drawing time of a
 * 2,000-character review (bench/serve.ts).
 */
const ZOOM_LABELS = 0.6;

const EDGE_COLOURS = { cooc: '#c3c8d1', kg: '#f08c00', sem: '#7950f2' } as const;
type EdgeKind = keyof typeof EDGE_COLOURS;

interface NodeAttrs {
  x: number;
  y: number;
  size: number;
  color: string;
  /** Only the top K carry a label attribute; other words get theirs from the reducer (see ZOOM_LABELS). */
  label: string | null;
  word: string;
  index: number;
  top: boolean;
}
interface EdgeAttrs {
  size: number;
  color: string;
  kind: EdgeKind;
  edge: ViewEdge;
}

/**
 * The laid-out graphology graph of a result, deterministic: nodes start on a sunflower spiral (top K
 * in the middle, then the other words in order of first occurrence, so that co-occurring words start
 * close), then a fixed number of ForceAtlas2 iterations, fewer on large graphs (the exact repulsion
 * costs n² per iteration; Barnes-Hut only pays off on much larger graphs than a review's).
 */
export function buildGraph(result: ExtractResult): Graph<NodeAttrs, EdgeAttrs> {
  const g = new Graph<NodeAttrs, EdgeAttrs>({ type: 'undirected', multi: false });
  const n = result.nodes.length;
  const ranks = result.nodes.map((x) => x.rank);
  const min = Math.min(...ranks);
  const span = Math.max(1e-12, Math.max(...ranks) - min);
  const order = result.nodes.map((_, i) => i).sort((a, b) => (result.nodes[a].keyword ?? Infinity) - (result.nodes[b].keyword ?? Infinity) || a - b);
  const slot = new Int32Array(n);
  order.forEach((node, k) => (slot[node] = k));
  result.nodes.forEach((node, i) => {
    const kind = kindOf(node);
    const angle = slot[i] * 2.39996; // the golden angle
    const radius = Math.sqrt(slot[i] + 0.5);
    g.addNode(String(i), {
      x: Math.cos(angle) * radius,
      y: Math.sin(angle) * radius,
      size: 4 + 14 * ((node.rank - min) / span),
      color: KIND_COLOURS[kind] ?? KIND_COLOURS.word,
      label: node.keyword !== undefined ? node.word : null,
      word: node.word,
      index: i,
      top: node.keyword !== undefined,
    });
  });
  const maxW = Math.max(1e-9, ...result.edges.map((e) => e.weight));
  for (const e of result.edges) {
    const kind: EdgeKind = e.kinds.includes('kg') ? 'kg' : e.kinds.includes('sem') ? 'sem' : 'cooc';
    g.addEdge(String(e.source), String(e.target), { size: 0.6 + 3.4 * Math.sqrt(Math.max(0, e.weight) / maxW), color: EDGE_COLOURS[kind], kind, edge: e });
  }
  if (n > 1) {
    const iterations = n <= 120 ? 150 : n <= 250 ? 80 : n <= 500 ? 45 : 25;
    forceAtlas2.assign(g, { iterations, settings: { ...forceAtlas2.inferSettings(g), strongGravityMode: true, gravity: 0.4, scalingRatio: 4, slowDown: 1, barnesHutOptimize: n > 2000 } });
  }
  return g;
}

/** What each node colour means, in plain words (the kinds of dom.ts KIND_COLOURS). */
export const NODE_KIND_WORDS: Readonly<Record<string, string>> = Object.freeze({
  Movie: 'film (KG)',
  Person: 'person (KG)',
  Character: 'character (KG)',
  Genre: 'genre (KG)',
  phrase: 'keyphrase',
  word: 'other word',
});

/** The legend of node colours: the kinds present in this graph, then what size and ring mean. */
function renderNodeLegend(result: ExtractResult): void {
  const kinds = new Set(result.nodes.map((n) => kindOf(n)));
  const items = Object.keys(NODE_KIND_WORDS)
    .filter((k) => kinds.has(k))
    .map((k) => {
      const dot = h('i', { class: 'dot' });
      dot.style.background = KIND_COLOURS[k]; // through the CSSOM: the page's CSP allows no style attribute
      return h('span', { class: 'node-kind', 'data-kind': k }, dot, NODE_KIND_WORDS[k]);
    });
  byId('node-legend').replaceChildren(h('b', {}, 'Node colour: '), ...items);
}

export class GraphView {
  private sigma: Sigma<NodeAttrs, EdgeAttrs> | null = null;
  private graph: Graph<NodeAttrs, EdgeAttrs> | null = null;
  private result: ExtractResult | null = null;
  private selected: string | null = null;
  private readonly shown = new Set<EdgeKind>(['cooc', 'kg', 'sem']);

  constructor(private readonly openEntity: (id: string) => void) {
    for (const box of document.querySelectorAll<HTMLInputElement>('.edge-kinds input')) {
      box.addEventListener('change', () => {
        const kind = box.dataset.kind as EdgeKind;
        if (box.checked) this.shown.add(kind);
        else this.shown.delete(kind);
        this.sigma?.refresh();
      });
    }
  }

  private drawn: Graph<NodeAttrs, EdgeAttrs> | null = null;
  private zoomedIn = false;

  /** Forget the result (a new text, not tagged yet): the canvas and the node panel are emptied. */
  clear(): void {
    this.result = null;
    this.graph = null;
    this.drawn = null;
    this.selected = null;
    this.sigma?.kill();
    this.sigma = null;
    clear(byId('sigma'));
    clear(byId('node-info'));
    clear(byId('node-legend'));
  }

  /** Keep the result; the graph is laid out now and drawn when the view is visible. */
  set(result: ExtractResult): void {
    this.result = result;
    this.graph = buildGraph(result);
    this.selected = null;
    clear(byId('node-info'));
    renderNodeLegend(result);
  }

  /** Draw (the container must be visible); resolves after the first frame. One sigma instance is kept. */
  draw(): Promise<void> {
    if (!this.graph || this.drawn === this.graph) return Promise.resolve();
    this.drawn = this.graph;
    if (this.sigma) {
      this.sigma.setGraph(this.graph);
      this.sigma.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
      return new Promise((resolve) => requestAnimationFrame(() => resolve()));
    }
    const container = byId('sigma');
    const sigma = new Sigma<NodeAttrs, EdgeAttrs>(this.graph, container, {
      settings: { allowInvalidContainer: true, enableNodeDrag: true, itemSizesReference: 'screen', labelRenderedSizeThreshold: 6, minEdgeThickness: 0.8, enableCameraRotation: false },
      nodeReducer: (node, data, attrs, state) => {
        const out: Partial<NodeDisplayData> = { ...data };
        if (!attrs.top && (state.isHovered || this.zoomedIn || (this.selected !== null && (node === this.selected || this.drawn!.areNeighbors(node, this.selected))))) out.label = attrs.word;
        out.labelSize = attrs.top ? 15 : 12;
        out.labelFont = 'Noto Sans CJK SC, Noto Sans SC, sans-serif';
        if (attrs.top) {
          out.labelVisibility = 'visible';
          out.zIndex = 2;
          out.backdropVisibility = 'visible';
          out.backdropColor = '#ffffff';
          out.backdropBorderColor = '#1f2430';
          out.backdropBorderWidth = 2;
          out.backdropPadding = 2;
          out.backdropArea = 'node';
        }
        if (this.selected) {
          const near = node === this.selected || this.drawn!.areNeighbors(node, this.selected);
          if (!near) {
            out.color = '#dde1e7';
            out.label = null;
            out.zIndex = 0;
            out.backdropVisibility = 'hidden';
          } else {
            out.labelVisibility = 'visible';
            out.zIndex = 3;
          }
        }
        return out;
      },
      edgeReducer: (edge, data, attrs) => {
        const out: Partial<EdgeDisplayData> = { ...data };
        const visible = attrs.edge.kinds.some((k) => this.shown.has(k));
        if (!visible) out.visibility = 'hidden';
        else if (!this.shown.has(attrs.kind)) out.color = EDGE_COLOURS[attrs.edge.kinds.find((k) => this.shown.has(k))!];
        if (this.selected && !this.drawn!.hasExtremity(edge, this.selected)) out.visibility = 'hidden';
        return out;
      },
    });
    sigma.getCamera().on('updated', (camera) => {
      const zoomedIn = camera.ratio < ZOOM_LABELS;
      if (zoomedIn !== this.zoomedIn) {
        this.zoomedIn = zoomedIn;
        sigma.refresh();
      }
    });
    sigma.on('clickNode', ({ node }) => this.select(node));
    sigma.on('clickStage', () => this.select(null));
    this.sigma = sigma;
    return new Promise((resolve) => requestAnimationFrame(() => resolve()));
  }

  /** Page position of a word's node (for tests and the bench), or null when it is not drawn. */
  position(word: string): { x: number; y: number } | null {
    const i = this.result?.nodes.findIndex((n) => n.word === word) ?? -1;
    const d = i >= 0 ? this.sigma?.getNodeDisplayData(String(i)) : undefined;
    if (!this.sigma || !d) return null;
    const p = this.sigma.framedGraphToViewport(d);
    const box = byId('sigma').getBoundingClientRect();
    return { x: box.left + p.x, y: box.top + p.y };
  }

  /** Select a node (null: none) and list its neighbours with their edge weights. */
  select(node: string | null): void {
    this.selected = node;
    this.sigma?.refresh();
    const info = byId('node-info');
    clear(info);
    const graph = this.drawn;
    if (node === null || !graph || !this.result) return;
    const n = this.result.nodes[Number(node)];
    const kind = kindOf(n);
    info.append(h('h2', {}, n.word, ' ', chip(kind, kind)));
    info.append(h('div', { class: 'small' }, n.keyword ? `keyword #${n.keyword} · ` : '', `rank score ${fmt(n.rank)} · ${n.count}× in the text`));
    if (n.entityId) {
      const go = h('button', { class: 'link' }, `${n.entityId} in the KG →`);
      go.addEventListener('click', () => this.openEntity(n.entityId!));
      info.append(go);
    }
    const rows = graph
      .edges(node)
      .map((e) => ({ other: graph.opposite(node, e), edge: graph.getEdgeAttribute(e, 'edge') }))
      .sort((a, b) => b.edge.weight - a.edge.weight);
    const table = h('table', { class: 'neighbours' }, h('tr', {}, h('th', {}, `neighbours (${rows.length})`), h('th', {}, 'co-oc'), h('th', {}, 'KG'), h('th', {}, 'sem'), h('th', {}, 'weight')));
    for (const r of rows) {
      const tr = h('tr', {}, h('td', {}, this.result.nodes[Number(r.other)].word), h('td', {}, fmt(r.edge.cooc)), h('td', {}, fmt(r.edge.kg)), h('td', {}, fmt(r.edge.sem)), h('td', {}, fmt(r.edge.weight)));
      tr.addEventListener('click', () => this.select(r.other));
      table.append(tr);
    }
    info.append(h('div', { class: 'explain' }, table));
  }
}
