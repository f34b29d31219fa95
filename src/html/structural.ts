/**
 * Record extraction from result / list pages WITHOUT rendering: the structural fallback of seed 002
 * (孙璐, 陈军华, 廉德胜, 一种基于视觉特征的Deep Web信息抽取方法, 2016) used when no browser is available.
 *
 * The paper works on visual blocks of the rendered page. Without a layout we keep its pipeline and swap
 * the visual similarity for DOM similarity of sibling subtrees:
 *   1. Denoise with the paper's three rules, as far as they can be read from the markup:
 *      rule 1: a region whose element nodes are links for at least `linkNodeRatio` (95 %) is noise;
 *      rule 2: an element with an inline `position: fixed` style holding img/object/iframe is noise;
 *      rule 3: a candidate record whose text is shorter than the copyright line is noise. The paper
 *              says "text node"; applied to single text nodes it would delete every short field (titles,
 *              ratings) inside the records, so we apply it to whole candidate records (our reading).
 *   2. Group the element children of every node by signature (tag + first class) and subtree shape
 *      (the set of relative tag paths below it, depth ≤ `shapeDepth`); a group of ≥ `minRecords`
 *      siblings whose shapes have Jaccard similarity ≥ `similarity` with the group's first member is a
 *      candidate record group ("similar siblings", step 2 of the paper).
 *   3. The base group is the candidate with the most record text (no page centre without a layout).
 *   4. Walk up and across (steps 3–4): from the group's parent climb one level, search the subtrees of
 *      the other children of the new ancestor for groups similar to the base record, add them, and keep
 *      climbing while a level adds something (at most `maxClimb` levels).
 */
import { DomHandler, Element, type AnyNode, type Document, isTag, isText } from 'domhandler';
import { cappedParser, NESTING_DEFAULTS, type DepthCapStats } from './depth.js';

/** Options of the structural record finder. Defaults in STRUCTURAL_DEFAULTS. */
export interface StructuralOptions {
  /** Rule 1: a region whose element nodes are `<a>` for at least this share is noise. @default 0.95 */
  linkNodeRatio: number;
  /** Rule 1 applies only to regions with at least this many element nodes. @default 5 */
  linkRegionMinNodes: number;
  /**
   * Rule 3: drop candidate records whose text is shorter than the copyright line (capped at
   * `copyrightCap` characters so that a long legal footer does not delete everything); 'off' disables.
   * @default 'record'
   */
  copyrightRule: 'record' | 'off';
  /** Cap on the rule-3 threshold, characters. @default 30 */
  copyrightCap: number;
  /** Smallest number of similar siblings that form a record group. @default 3 */
  minRecords: number;
  /** Jaccard similarity of subtree shapes for two blocks to be "similar". @default 0.5 */
  similarity: number;
  /** Depth of the relative tag paths in a shape. @default 4 */
  shapeDepth: number;
  /** Levels climbed when walking up and across. @default 4 */
  maxClimb: number;
  /** Depth searched below the other children of an ancestor when walking across. @default 6 */
  acrossDepth: number;
  /**
   * When every chosen block holds a group of similar children with at least this share of its text,
   * those children are the records instead (a table of rows, a list box of items); 0 disables.
   * @default 0.8
   */
  descendShare: number;
}

export const STRUCTURAL_DEFAULTS: Readonly<StructuralOptions> = Object.freeze({
  linkNodeRatio: 0.95,
  linkRegionMinNodes: 5,
  copyrightRule: 'record',
  copyrightCap: 30,
  minRecords: 3,
  similarity: 0.5,
  shapeDepth: 4,
  maxClimb: 4,
  acrossDepth: 6,
  descendShare: 0.8,
});

/** Subtrees removed before anything else (never visible content). */
export const PRUNED_TAGS: ReadonlySet<string> = new Set([
  'script', 'style', 'noscript', 'template', 'head', 'select', 'option', 'textarea', 'input', 'button', 'svg', 'iframe', 'object', 'embed', 'link', 'meta',
]);

/**
 * Parses HTML (htmlparser2; nodes carry `startIndex` for file:line locations) into a tree at most
 * `maxDepth` levels deep (src/html/depth.ts: deeper start tags are dropped, their text kept), in time
 * linear in the page; `depth` says how many tags were dropped.
 */
export function parseHtmlCapped(html: string, maxDepth: number = NESTING_DEFAULTS.maxDepth): { doc: Document; depth: DepthCapStats } {
  const options = { decodeEntities: true, withStartIndices: true };
  const handler = new DomHandler(undefined, options);
  const { parser, stats } = cappedParser(handler, options, maxDepth);
  parser.end(html);
  return { doc: handler.root, depth: stats };
}

/** {@link parseHtmlCapped} with the default cap, the tree only. */
export const parseHtml = (html: string): Document => parseHtmlCapped(html).doc;

export const elementChildren = (n: AnyNode): Element[] =>
  'children' in n ? (n.children as AnyNode[]).filter((c): c is Element => isTag(c)) : [];

/** Text below a node, whitespace collapsed. */
export function textOf(n: AnyNode): string {
  const parts: string[] = [];
  const walk = (x: AnyNode): void => {
    if (isText(x)) parts.push(x.data);
    else if (isTag(x)) {
      if (PRUNED_TAGS.has(x.name)) return;
      if (x.name === 'br' || x.name === 'p' || x.name === 'div' || x.name === 'li' || x.name === 'tr') parts.push(' ');
      for (const c of x.children) walk(c);
    } else if ('children' in x) for (const c of (x as Document).children) walk(c);
  };
  walk(n);
  return parts.join('').replace(/[\s\u00a0\u3000]+/g, ' ').trim();
}

/** Characters of text, ignoring whitespace. */
export const textLen = (s: string): number => s.replace(/\s+/g, '').length;

/** `tag` or `tag.firstclass`. */
export function signature(e: Element): string {
  const cls = (e.attribs.class ?? '').trim().split(/\s+/)[0];
  return cls ? `${e.name}.${cls}` : e.name;
}

/**
 * The set of relative tag paths below `e` (depth ≤ depth), e.g. `div>a>span` (`div.hd>a>span.title`
 * with classes: off by default, since rows often differ only by a class such as red/gray).
 */
export function shapeOf(e: Element, depth: number, withClasses = false): Set<string> {
  const out = new Set<string>();
  const walk = (x: Element, prefix: string, d: number): void => {
    if (d > depth) return;
    for (const c of elementChildren(x)) {
      const sig = withClasses ? signature(c) : c.name;
      const p = prefix ? `${prefix}>${sig}` : sig;
      out.add(p);
      walk(c, p, d + 1);
    }
  };
  walk(e, '', 1);
  return out;
}

export function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Removes pruned tags, comments, and (rules 1 and 2) noise regions. Returns the number of removed regions per rule. */
export function denoise(doc: Document, opts: StructuralOptions): { rule1: number; rule2: number } {
  const counts = { rule1: 0, rule2: 0 };
  const remove = (n: AnyNode): void => {
    const p = n.parent;
    if (!p) return;
    const i = p.children.indexOf(n as never);
    if (i >= 0) p.children.splice(i, 1);
    n.parent = null;
  };
  // bottom-up element counts for rule 1
  const walk = (n: AnyNode): { els: number; links: number } => {
    let els = 0;
    let links = 0;
    if (!('children' in n)) return { els, links };
    for (const c of [...(n as Element).children]) {
      if (c.type === 'comment' || c.type === 'directive') {
        if (c.type === 'comment') remove(c);
        continue;
      }
      if (!isTag(c)) continue;
      if (PRUNED_TAGS.has(c.name)) {
        remove(c);
        continue;
      }
      const style = (c.attribs.style ?? '').toLowerCase();
      if (/position\s*:\s*fixed/.test(style) && hasMedia(c)) {
        remove(c);
        counts.rule2++;
        continue;
      }
      const s = walk(c);
      const e = s.els + 1;
      const l = s.links + (c.name === 'a' ? 1 : 0);
      if (c.name !== 'body' && c.name !== 'html' && e >= opts.linkRegionMinNodes && l / e >= opts.linkNodeRatio) {
        remove(c);
        counts.rule1++;
        continue;
      }
      els += e;
      links += l;
    }
    return { els, links };
  };
  walk(doc);
  return counts;
}

function hasMedia(e: Element): boolean {
  for (const c of elementChildren(e)) {
    if (c.name === 'img' || c.name === 'object' || c.name === 'iframe' || c.name === 'embed') return true;
    if (hasMedia(c)) return true;
  }
  return false;
}

/** Length of the copyright line (rule 3 threshold), 0 when the page has none. */
export function copyrightLength(doc: Document): number {
  let best = 0;
  const walk = (n: AnyNode): void => {
    if (isText(n)) {
      const t = n.data.replace(/[\s\u00a0]+/g, ' ').trim();
      if (/©|&copy;|copyright|版权所有|版權所有|all rights reserved/i.test(t)) {
        // the whole line: the text of the parent block
        const line = n.parent ? textOf(n.parent) : t;
        best = Math.max(best, textLen(line.length < 400 ? line : t));
      }
    } else if ('children' in n) for (const c of (n as Element).children) walk(c);
  };
  walk(doc);
  return best;
}

/**
 * Base-group score: record text, weighted by how structured the records are (log2(2 + shape size)),
 * so that a bar of bare links loses against records with fields.
 */
const score = (g: Group): number => g.text * Math.log2(2 + g.shape.size);

interface Group {
  parent: Element;
  members: Element[];
  shape: Set<string>;
  sig: string;
  text: number;
}

function groupsUnder(parent: Element, opts: StructuralOptions, minText: number): Group[] {
  const clusters: { sig: string; shape: Set<string>; members: Element[]; text: number }[] = [];
  for (const c of elementChildren(parent)) {
    const len = textLen(textOf(c));
    if (len === 0 || len < minText) continue;
    const sig = signature(c);
    const shape = shapeOf(c, opts.shapeDepth);
    const k = clusters.find((g) => g.sig === sig && jaccard(g.shape, shape) >= opts.similarity);
    if (k) {
      k.members.push(c);
      k.text += len;
    } else clusters.push({ sig, shape, members: [c], text: len });
  }
  return clusters.filter((g) => g.members.length >= opts.minRecords).map((g) => ({ ...g, parent }));
}

function allElements(root: AnyNode): Element[] {
  const out: Element[] = [];
  const walk = (n: AnyNode): void => {
    if (isTag(n)) out.push(n);
    if ('children' in n) for (const c of (n as Element).children) walk(c);
  };
  walk(root);
  return out;
}

export interface StructuralResult {
  /** Record elements in document order. */
  records: Element[];
  /** Base group: its parent's tag path and member signature. */
  base: { path: string; signature: string; count: number } | null;
  noise: { rule1: number; rule2: number; copyrightLength: number };
}

export function tagPath(e: Element): string {
  const parts: string[] = [];
  for (let x: Element | null = e; x && isTag(x); x = x.parent && isTag(x.parent) ? (x.parent as Element) : null) parts.unshift(signature(x));
  return parts.join('>');
}

/** Finds the record elements of a parsed page (see module header). Mutates `doc` (denoising). */
export function findRecordsStructural(doc: Document, options: Partial<StructuralOptions> = {}): StructuralResult {
  const opts = { ...STRUCTURAL_DEFAULTS, ...options };
  const cr = copyrightLength(doc);
  const noise = { ...denoise(doc, opts), copyrightLength: cr };
  const minText = opts.copyrightRule === 'record' ? Math.min(cr, opts.copyrightCap) : 0;
  let best: Group | null = null;
  for (const e of allElements(doc)) {
    for (const g of groupsUnder(e, opts, minText)) if (!best || score(g) > score(best)) best = g;
  }
  if (!best) return { records: [], base: null, noise };
  const chosen = new Set<Element>(best.members);
  const rep = best.members[0];
  const similar = (c: Element): boolean => signature(c) === best!.sig && jaccard(shapeOf(c, opts.shapeDepth), best!.shape) >= opts.similarity;
  // walk up and across
  let from: Element = best.parent;
  for (let level = 0, guard = 0; level < opts.maxClimb && guard < 64; level++, guard++) {
    const up = from.parent;
    if (!up || !isTag(up)) break;
    let added = 0;
    for (const sib of elementChildren(up)) {
      if (sib === from) continue;
      const walk = (x: Element, d: number): void => {
        if (d > opts.acrossDepth) return;
        for (const c of elementChildren(x)) {
          if (chosen.has(c)) continue;
          if (similar(c) && textLen(textOf(c)) >= Math.max(1, minText)) {
            chosen.add(c);
            added++;
          } else walk(c, d + 1);
        }
      };
      if (similar(sib) && textLen(textOf(sib)) >= Math.max(1, minText)) {
        chosen.add(sib);
        added++;
      } else walk(sib, 1);
    }
    from = up as Element;
    // a wrapper holding only this one block is not a level of its own: keep climbing
    if (added === 0 && elementChildren(up).length > 1) break;
    if (added === 0) level--;
  }
  void rep;
  // finer records: when the chosen blocks are containers (tables of rows, lists of items) whose similar
  // children hold most of their text, the children are the records
  if (opts.descendShare > 0) {
    for (let round = 0; round < 3; round++) {
      const finer = new Set<Element>();
      const failed: Element[] = [];
      let rep: Group | undefined;
      for (const e of chosen) {
        const total = textLen(textOf(e));
        let g: Group | undefined;
        const look = (x: Element, d: number): void => {
          for (const cand of groupsUnder(x, opts, minText)) if (cand.shape.size > 0 && (!g || cand.text > g.text)) g = cand;
          if (d < 3) for (const c of elementChildren(x)) look(c, d + 1);
        };
        look(e, 1);
        if (!g || g.text < opts.descendShare * total) failed.push(e);
        else {
          rep ??= g;
          for (const m of g.members) finer.add(m);
        }
      }
      // most blocks must be containers; in the others, blocks like the finer records are taken (a one-row table)
      if (!rep || failed.length * 2 > chosen.size) break;
      const r = rep;
      for (const e of failed) {
        let found = 0;
        const look = (x: Element, d: number): void => {
          for (const c of elementChildren(x)) {
            if (signature(c) === r.sig && jaccard(shapeOf(c, opts.shapeDepth), r.shape) >= opts.similarity && textLen(textOf(c)) >= Math.max(1, minText)) {
              finer.add(c);
              found++;
            } else if (d < 3) look(c, d + 1);
          }
        };
        look(e, 1);
        if (found === 0) finer.add(e);
      }
      chosen.clear();
      for (const m of finer) chosen.add(m);
    }
  }
  const records = allElements(doc).filter((e) => chosen.has(e));
  return { records, base: { path: tagPath(best.parent), signature: best.sig, count: best.members.length }, noise };
}
