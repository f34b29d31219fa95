/**
 * Visual record finding on a rendered layout (seed 002: 孙璐, 陈军华, 廉德胜, 一种基于视觉特征的Deep Web
 * 信息抽取方法, 2016, after VIPS, Cai et al.). Pure: works on the layout nodes that src/html/render.ts
 * collects from headless Chromium, so it is tested on hand-made layouts.
 *
 * Our reading of the paper (its step 1 formula was an image and is missing from the text):
 *   1. Denoise (§2.1): rule 1, a region whose element nodes are links for ≥ 95 % is noise; rule 2, a
 *      `position: fixed` node holding img/object/iframe is noise; rule 3, a block whose text is shorter
 *      than the copyright line is noise — applied to candidate record blocks, not to single text nodes
 *      (which would delete every short field inside the records).
 *   2. Visual blocks (§2.2): a node with width, height and text below it is a block; a node is divided
 *      into its child blocks, a single child block passes through (VIPS's "one valid child"), and a
 *      child with another background colour is always its own block.
 *   3. Base block (§2.3 step 1): the leaf block whose centre is nearest the page centre; while it has
 *      fewer than `minRecords − 1` similar siblings we move to its parent block (our reading: the
 *      paper's base block VB2_2_3 is a whole record, not a text fragment). With `baseCandidates` > 1
 *      the next-nearest leaves give further base blocks, and the one whose records (after step 5) score
 *      highest wins (record text × log2(1 + records): many similar blocks beat a few big menus); 1 is the paper's single base block.
 *   4. Similar siblings (step 2): same tag, width within `widthTolerance`, height ratio ≥
 *      `minHeightRatio`, same background colour and font size.
 *   5. Up and across (steps 3–4): from the common parent of the target pool go up one level, search
 *      the other children of that ancestor (to `acrossDepth`) for blocks similar to the base block, add
 *      them, and repeat from the new level while a level adds something (a wrapper with one child does
 *      not count as a level).
 *   6. Step 4's recursion into the found blocks ("递归地对相似视觉块做以上同样的操作"): when most chosen
 *      blocks are containers whose similar child blocks hold ≥ `descendShare` of their text (boxes of
 *      table rows), the child blocks are the records — the same step as the structural mode's descend.
 */

/** One element of the rendered page, as collected in the browser (document order). */
export interface LayoutNode {
  /** Index of the parent in the node array, -1 for the root (body). */
  parent: number;
  tag: string;
  /** First class name, '' if none. */
  cls: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** Computed background colour (`rgba(0, 0, 0, 0)` when transparent). */
  bg: string;
  /** Computed font size, px. */
  font: number;
  /** Computed `position`. */
  position: string;
  /** Computed `display`. */
  display: string;
  /** Characters of the element's own text nodes (whitespace ignored). */
  ownText: number;
}

export interface VisualOptions {
  /** Rule 1 share of link element nodes. @default 0.95 */
  linkNodeRatio: number;
  /** Rule 1 applies to regions of at least this many element nodes. @default 5 */
  linkRegionMinNodes: number;
  /** Rule 3 on candidate record blocks ('record') or not at all ('off'). @default 'record' */
  copyrightRule: 'record' | 'off';
  /** Cap on the rule-3 threshold, characters. @default 30 */
  copyrightCap: number;
  /** Smallest number of similar blocks that make records. @default 3 */
  minRecords: number;
  /** Largest relative width difference of similar blocks. @default 0.1 */
  widthTolerance: number;
  /** Smallest height ratio (lower / higher) of similar blocks. @default 0.3 */
  minHeightRatio: number;
  /** Levels climbed when walking up and across. @default 4 */
  maxClimb: number;
  /** Depth searched below an ancestor's other children. @default 6 */
  acrossDepth: number;
  /**
   * Base blocks tried, nearest the page centre first; the best (record text × log2(1 + records)) wins.
   * 1 is the paper's single base block; more guards against a navigation bar at the centre.
   * @default 8
   */
  baseCandidates: number;
  /**
   * Step 4's recursion into the found blocks: when most chosen blocks are containers in which a group of
   * ≥ `minRecords` similar child blocks (within 3 block levels) holds at least this share of the
   * container's text (boxes of table rows), those child blocks are the records; 0 turns it off.
   * @default 0.8
   */
  descendShare: number;
}

export const VISUAL_DEFAULTS: Readonly<VisualOptions> = Object.freeze({
  linkNodeRatio: 0.95,
  linkRegionMinNodes: 5,
  copyrightRule: 'record',
  copyrightCap: 30,
  minRecords: 3,
  widthTolerance: 0.1,
  minHeightRatio: 0.3,
  maxClimb: 4,
  acrossDepth: 6,
  baseCandidates: 8,
  descendShare: 0.8,
});

const MEDIA = new Set(['img', 'object', 'iframe', 'embed']);

export interface VisualResult {
  /** Indices of the record blocks, document order. */
  records: number[];
  /** The base block and how many similar siblings it had. */
  base: { index: number; siblings: number } | null;
  noise: { rule1: number; rule2: number };
}

/** What the steps share: the layout, the options, subtree text, the block tree and the similarity test. */
interface VisualContext {
  readonly nodes: readonly LayoutNode[];
  readonly o: VisualOptions;
  /** Characters of text in each node's subtree. */
  readonly text: readonly number[];
  /** Child blocks of a block (step 2). */
  bk(i: number): number[];
  /** Parent block of a block, -1 for the root. */
  readonly blockParent: readonly number[];
  /** Similar visual blocks (step 4's test). */
  similar(a: number, b: number): boolean;
  /** Large enough to be a record (rule 3 of step 1). */
  okRecord(i: number): boolean;
}

/**
 * Finds the record blocks. `copyrightText` is the character count of the copyright line (0 if none);
 * `page` the document size (its centre is the reference point). Steps as numbered in the module header.
 */
export function findRecordsVisual(nodes: readonly LayoutNode[], page: { width: number; height: number }, copyrightText: number, options: Partial<VisualOptions> = {}): VisualResult {
  const o = { ...VISUAL_DEFAULTS, ...options };
  const { kids, text, els, links, media } = subtreeAggregates(nodes);
  const { dead, noise } = denoise(nodes, els, links, media, o); // 1, rules 1 and 2
  const root = nodes.findIndex((x) => x.parent < 0);
  if (root < 0) return { records: [], base: null, noise };
  const { bk, blockParent, leaves } = visualBlocks(nodes, kids, dead, text, root); // 2
  const minText = o.copyrightRule === 'record' ? Math.min(copyrightText, o.copyrightCap) : 0; // 1, rule 3
  const ctx: VisualContext = {
    nodes,
    o,
    text,
    bk,
    blockParent,
    similar: (a, b) => similarBlocks(nodes[a], nodes[b], o), // 4
    okRecord: (i) => text[i] >= Math.max(1, minText),
  };
  const best = bestRecordGroup(ctx, leaves, root, page); // 3, 4, 5
  if (!best) return { records: [], base: null, noise };
  const chosen = o.descendShare > 0 ? descendIntoContainers(ctx, best.chosen) : best.chosen; // 6
  return { records: [...chosen].sort((a, b) => a - b), base: { index: best.base, siblings: best.sibs }, noise };
}

/** Each node's children and its subtree's text length, element count, link count and media presence. */
function subtreeAggregates(nodes: readonly LayoutNode[]): { kids: number[][]; text: number[]; els: number[]; links: number[]; media: boolean[] } {
  const n = nodes.length;
  const kids: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) if (nodes[i].parent >= 0) kids[nodes[i].parent].push(i);
  // subtree aggregates (children come after parents in document order)
  const text = nodes.map((x) => x.ownText);
  const els = new Array<number>(n).fill(1);
  const links = nodes.map((x) => (x.tag === 'a' ? 1 : 0));
  const media = nodes.map((x) => MEDIA.has(x.tag));
  for (let i = n - 1; i >= 0; i--) {
    const p = nodes[i].parent;
    if (p < 0) continue;
    text[p] += text[i];
    els[p] += els[i];
    links[p] += links[i];
    media[p] ||= media[i];
  }
  return { kids, text, els, links, media };
}

/** Step 1 (§2.1), rules 1 and 2: link regions and fixed media are noise, with everything below them. */
function denoise(nodes: readonly LayoutNode[], els: readonly number[], links: readonly number[], media: readonly boolean[], o: VisualOptions): { dead: boolean[]; noise: VisualResult['noise'] } {
  const n = nodes.length;
  const noise = { rule1: 0, rule2: 0 };
  const dead = new Array<boolean>(n).fill(false);
  for (let i = 0; i < n; i++) {
    const p = nodes[i].parent;
    if (p >= 0 && dead[p]) {
      dead[i] = true;
      continue;
    }
    if (p >= 0 && els[i] >= o.linkRegionMinNodes && links[i] / els[i] >= o.linkNodeRatio) {
      dead[i] = true;
      noise.rule1++;
    } else if (nodes[i].position === 'fixed' && media[i]) {
      dead[i] = true;
      noise.rule2++;
    }
  }
  return { dead, noise };
}

/**
 * Step 2 (§2.2), visual blocks: a live node with width, height and text that is not inline is a block;
 * each block's child blocks pass through invalid or inline wrappers. The block tree from `root`.
 */
function visualBlocks(nodes: readonly LayoutNode[], kids: readonly number[][], dead: readonly boolean[], text: readonly number[], root: number): { bk: (i: number) => number[]; blockParent: number[]; leaves: number[] } {
  const valid = (i: number): boolean => !dead[i] && nodes[i].w > 0 && nodes[i].h > 0 && text[i] > 0 && nodes[i].display !== 'inline';
  const blockKids = (i: number): number[] => {
    const out: number[] = [];
    const walk = (j: number): void => {
      for (const c of kids[j]) {
        if (valid(c)) out.push(c);
        else if (!dead[c]) walk(c);
      }
    };
    walk(i);
    return out;
  };
  const bkCache = new Map<number, number[]>();
  const bk = (i: number): number[] => {
    let v = bkCache.get(i);
    if (!v) bkCache.set(i, (v = blockKids(i)));
    return v;
  };
  const blockParent = new Array<number>(nodes.length).fill(-1);
  const leaves: number[] = [];
  const build = (i: number): void => {
    const ch = bk(i);
    for (const c of ch) blockParent[c] = i;
    if (ch.length === 0) leaves.push(i);
    for (const c of ch) build(c);
  };
  build(root);
  return { bk, blockParent, leaves };
}

/** Step 4's similarity (§2.3 step 2): same tag, background and font; width within tolerance; height ratio. */
function similarBlocks(A: LayoutNode, B: LayoutNode, o: VisualOptions): boolean {
  if (A.tag !== B.tag || A.bg !== B.bg || A.font !== B.font) return false;
  if (Math.abs(A.w - B.w) > o.widthTolerance * Math.max(A.w, B.w)) return false;
  return Math.min(A.h, B.h) / Math.max(A.h, B.h) >= o.minHeightRatio;
}

/**
 * Step 3 (§2.3 step 1), base blocks: leaves by distance from the page centre, each climbed until it has
 * `minRecords − 1` similar siblings; each base block grown by step 5; the best of `baseCandidates`
 * groups (record text × log2(1 + records)).
 */
function bestRecordGroup(ctx: VisualContext, leaves: readonly number[], root: number, page: { width: number; height: number }): { base: number; sibs: number; chosen: Set<number> } | null {
  const { nodes, o, text, bk, blockParent, similar, okRecord } = ctx;
  const siblingsLike = (i: number): number[] => {
    const p = blockParent[i];
    if (p < 0) return [];
    return bk(p).filter((s) => s !== i && similar(s, i) && okRecord(s));
  };
  const cx = page.width / 2;
  const cy = page.height / 2;
  const dist = (i: number): number => Math.hypot(nodes[i].x + nodes[i].w / 2 - cx, nodes[i].y + nodes[i].h / 2 - cy);
  const order = [...leaves].sort((a, b) => dist(a) - dist(b));
  const tried = new Set<number>();
  let best: { base: number; sibs: number; chosen: Set<number>; text: number } | null = null;
  let candidates = 0;
  for (const leaf of order) {
    if (candidates >= o.baseCandidates) break;
    for (let b = leaf; b >= 0 && b !== root; b = blockParent[b]) {
      if (tried.has(b)) break;
      tried.add(b);
      if (!okRecord(b)) continue;
      const s = siblingsLike(b);
      if (s.length + 1 >= o.minRecords) {
        candidates++;
        const chosen = upAndAcross(ctx, b, s);
        let t = 0;
        for (const c of chosen) t += text[c];
        t *= Math.log2(1 + chosen.size);
        if (!best || t > best.text) best = { base: b, sibs: s.length, chosen, text: t };
        break;
      }
    }
  }
  return best;
}

/**
 * Step 5 (§2.3 steps 3–4), up and across: from the common parent go up one level, take the blocks of the
 * other children (to `acrossDepth`) that are similar to the base block, and repeat while a level adds
 * something (a wrapper with one child does not count as a level).
 */
function upAndAcross(ctx: VisualContext, base: number, sibs: readonly number[]): Set<number> {
  const { o, bk, blockParent, similar, okRecord } = ctx;
  const chosen = new Set<number>([base, ...sibs]);
  let from = blockParent[base];
  for (let level = 0, guard = 0; level < o.maxClimb && guard < 64; level++, guard++) {
    const up = blockParent[from];
    if (up < 0) break;
    let added = 0;
    const walk = (x: number, d: number): void => {
      if (d > o.acrossDepth) return;
      for (const c of bk(x)) {
        if (chosen.has(c)) continue;
        if (similar(c, base) && okRecord(c)) {
          chosen.add(c);
          added++;
        } else walk(c, d + 1);
      }
    };
    for (const s of bk(up)) {
      if (s === from) continue;
      if (similar(s, base) && okRecord(s)) {
        chosen.add(s);
        added++;
      } else walk(s, 1);
    }
    from = up;
    if (added === 0 && bk(up).length > 1) break;
    if (added === 0) level--;
  }
  return chosen;
}

/**
 * Step 6 (step 4's recursion): when most chosen blocks are containers whose similar child blocks hold
 * ≥ `descendShare` of their text (boxes of table rows), those child blocks are the records.
 */
function descendIntoContainers(ctx: VisualContext, start: Set<number>): Set<number> {
  const { o, text, bk, similar, okRecord } = ctx;
  let chosen = start;
  const groupsUnder = (x: number): number[][] => {
    const classes: number[][] = [];
    for (const c of bk(x)) {
      if (!okRecord(c)) continue;
      const k = classes.find((g) => similar(g[0], c));
      if (k) k.push(c);
      else classes.push([c]);
    }
    return classes.filter((g) => g.length >= o.minRecords);
  };
  const sum = (g: number[]): number => g.reduce((a, i) => a + text[i], 0);
  for (let round = 0; round < 3; round++) {
    const finer = new Set<number>();
    const failed: number[] = [];
    const reps: number[] = [];
    for (const e of chosen) {
      let g: number[] | undefined;
      const look = (x: number, d: number): void => {
        for (const cand of groupsUnder(x)) if (!g || sum(cand) > sum(g)) g = cand;
        if (d < 3) for (const c of bk(x)) look(c, d + 1);
      };
      look(e, 1);
      if (!g || sum(g) < o.descendShare * text[e]) failed.push(e);
      else {
        reps.push(...g);
        for (const m of g) finer.add(m);
      }
    }
    if (reps.length === 0 || failed.length * 2 > chosen.size) break;
    // in the other containers (a one-row table), blocks like the finer records are taken
    for (const e of failed) {
      let found = 0;
      const look = (x: number, d: number): void => {
        for (const c of bk(x)) {
          if (okRecord(c) && reps.some((r) => similar(r, c))) {
            finer.add(c);
            found++;
          } else if (d < 3) look(c, d + 1);
        }
      };
      look(e, 1);
      if (found === 0) finer.add(e);
    }
    chosen = finer;
  }
  return chosen;
}
