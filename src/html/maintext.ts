/**
 * Main-text extraction by the decay of non-link text ("information-decay" subtree).
 *
 * Source: 陈阳, 陈兴蜀, 吴麒, 基于信息量衰减幅度的网页正文提取, 计算机工程与设计 33(7), 2012 (seed 000).
 * 1. Tag tree, pruned (src/html/tree.ts, paper §2.1).
 * 2. Topic subtree (paper §2.2, algorithm 1 FindMT): from the body, descend into the child whose subtree
 *    has the most non-link text (Lc); a node with a single child is passed through; stop when the
 *    decay r = (Lc(cur) − Lc(MT)) / Lc(cur) exceeds T (default 0.34, the paper's best value in its
 *    0.2–0.5 sweep).
 *    Which node is returned at the stop is ambiguous: the printed pseudo-code returns MT (the child at
 *    which the decay happened), while the paper's reasoning (case 1: "the body paragraphs are siblings;
 *    keeping only the largest loses the others", case 2: "a single text node has no children") says the
 *    decay is the sign that `cur` is the parent of the body paragraphs — the topic subtree. Tested on the
 *    real pages (eval/html/results.md, `stopAt` rows): returning `cur` is right, returning the child keeps
 *    one paragraph of a multi-paragraph article and fails on nearly every page. Default `stopAt: 'current'`;
 *    `'child'` reproduces the printed pseudo-code.
 * 3. Link blocks inside the topic subtree are removed by link density (paper §2.3, algorithm 2 CleanTree):
 *    DL = link text / text > DLmax (0.65, from the paper's ref. [7]). Definition 1 says a link node holds
 *    several `<a>` elements, so an element is a link block only with ≥ {@link MAINTEXT_DEFAULTS.minAnchors}
 *    anchors (a paragraph with one inline link is body text; an `<a>` itself is never removed alone).
 * 4. The text of what remains, with paragraph breaks (block boundaries and `<br>`).
 *
 * Metadata the page states (title, author, date) are separate fields (src/html/meta.ts); the paper
 * excludes them from the body.
 */
import { inputError } from '../errors.js';
import { decodeHtml } from './decode.js';
import { pageMeta, type PageMetaFields } from './meta.js';
import { findFirst, parseTree, textWithBreaks, TREE_DEFAULTS, type TElem, type TNode, type TreeOptions } from './tree.js';

/** Options of {@link extractMainText}. */
export interface MainTextOptions extends TreeOptions {
  /** Decay threshold T: stop descending when (Lc(cur) − Lc(child)) / Lc(cur) > T. @default 0.34 */
  decay?: number;
  /** At the stop, return the current node (paper's reasoning) or the child (printed pseudo-code). @default 'current' */
  stopAt?: 'current' | 'child';
  /** Link-density threshold DLmax of CleanTree. @default 0.65 */
  maxLinkDensity?: number;
  /** Fewest `<a>` elements an element must hold to be removed as a link block (Definition 1: "多个"). @default 2 */
  minAnchors?: number;
  /**
   * Drop metadata lines at the start and end of the body (title repeats, bylines, date lines, the
   * author's name, "责任编辑：…"): the paper counts title/author/date as metadata, not body. Our
   * extension; `false` keeps them. @default true
   */
  trimMetaLines?: boolean;
}

/** Defaults (frozen). */
export const MAINTEXT_DEFAULTS = Object.freeze({
  decay: 0.34,
  stopAt: 'current' as 'current' | 'child',
  maxLinkDensity: 0.65,
  minAnchors: 2,
  trimMetaLines: true,
  /** Longest line {@link trimMetaLines} may drop (characters). */
  maxMetaLineChars: 80,
});

const META_LINE = /^[\s\-—(（【\[]*(?:作\s*者|责任编辑|编辑|来源|记者|执笔人?|发表于|发布时间|发表时间|时间|日期|原标题|译者?|本报记者|本报实习生|本报讯|trackback|分享|阅读|浏览|点击)\s*[:：]?/i;
const DATE_IN_LINE = /(?:19|20)\d\d\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}/;
/** At the end of the body only these are dropped: editor/source lines are body in some ground truths. */
const TAIL_META_LINE = /^[\s\-—(（【\[]*(?:作\s*者|记者|执笔人?|trackback|分享|阅读|浏览|点击)\s*[:：]?/i;

/** Removes metadata lines from both ends of the body text (see {@link MainTextOptions.trimMetaLines}). */
export function trimMetaLines(text: string, meta: { title?: string; author?: string }): string {
  const lines = text.split('\n');
  const norm = (s: string): string => s.replace(/[\s()（）【】\[\]\-—]+/g, '');
  const title = norm(meta.title ?? '');
  const author = norm(meta.author ?? '');
  const isMeta = (l: string, tail = false): boolean => {
    if (l.length > MAINTEXT_DEFAULTS.maxMetaLineChars) return false;
    const n = norm(l);
    if (!n) return true;
    if (title && (n === title || (n.length >= 4 && title.includes(n)))) return true;
    if (author && (n === author || n.replace(/^(?:作者|责任编辑|编辑)[:：]?/, '') === author)) return true;
    if ((tail ? TAIL_META_LINE : META_LINE).test(l)) return true;
    return l.length <= 40 && DATE_IN_LINE.test(l) && !/[。！？]$/.test(l);
  };
  let a = 0;
  let b = lines.length;
  while (a < b - 1 && isMeta(lines[a]!)) a++;
  while (b - 1 > a && isMeta(lines[b - 1]!, true)) b--;
  return lines.slice(a, b).join('\n');
}

/** Extraction result of one page. */
export interface MainText extends PageMetaFields {
  /** Main text, paragraphs separated by "\n". */
  text: string;
  meta: {
    /** Tag path of the topic subtree root, e.g. `body>div#main>div.article`. */
    topic: string;
    /** Depth of the descent. */
    steps: number;
    /** Characters of non-link text in the topic subtree before / after removing link blocks. */
    topicChars: number;
    textChars: number;
    /** Link blocks removed. */
    linkBlocksRemoved: number;
    /** Start tags dropped below the nesting cap ({@link TreeOptions.maxDepth}; 0 on ordinary pages). */
    nestingDropped: number;
  };
}

/** Non-link text length Lc of a node. */
export const clearText = (n: TNode): number => n.text - n.link;

const describe = (e: TElem): string => {
  const id = e.attrs.id ? `#${e.attrs.id}` : '';
  const cls = e.attrs.class ? `.${e.attrs.class.trim().split(/\s+/).join('.')}` : '';
  return `${e.tag}${id}${cls}`;
};

/** Tag path from the document root to `e`. */
export function tagPath(e: TElem): string {
  const parts: string[] = [];
  for (let n: TElem | null = e; n && n.tag !== '#root'; n = n.parent) parts.push(describe(n));
  return parts.reverse().join('>');
}

/**
 * FindMT (algorithm 1): the topic subtree below `start`. Returns the chosen element and the number of
 * descent steps. Text-node children take part in the comparison (case 2 of the paper).
 */
export function findTopic(start: TElem, opts: { decay?: number; stopAt?: 'current' | 'child' } = {}): { node: TNode; steps: number } {
  const T = opts.decay ?? MAINTEXT_DEFAULTS.decay;
  const stopAt = opts.stopAt ?? MAINTEXT_DEFAULTS.stopAt;
  let cur: TNode = start;
  let steps = 0;
  for (;;) {
    if (cur.type === 'text') return { node: cur, steps };
    const kids: TNode[] = cur.children.filter((c) => c.text > 0);
    if (kids.length === 0) return { node: cur, steps };
    if (kids.length === 1) {
      cur = kids[0]!;
      steps++;
      continue;
    }
    const clen = clearText(cur);
    let mt = kids[0]!;
    for (const k of kids) if (clearText(k) > clearText(mt)) mt = k;
    const mlen = clearText(mt);
    if (clen <= 0) return { node: cur, steps };
    const r = (clen - mlen) / clen;
    if (r > T) return { node: stopAt === 'child' ? mt : cur, steps };
    cur = mt;
    steps++;
  }
}

/** CleanTree (algorithm 2) as a predicate: is this element a link block to drop? */
export function isLinkBlock(e: TElem, opts: { maxLinkDensity?: number; minAnchors?: number } = {}): boolean {
  const dl = opts.maxLinkDensity ?? MAINTEXT_DEFAULTS.maxLinkDensity;
  const minA = opts.minAnchors ?? MAINTEXT_DEFAULTS.minAnchors;
  if (e.text === 0 || e.tag === 'a') return false;
  return e.anchors >= minA && e.link / e.text > dl;
}

/** Extracts title, main text and stated metadata from a decoded page. Throws INPUT when no main text is found. */
export function extractMainText(html: string, opts: MainTextOptions & { path?: string; truncated?: boolean } = {}): MainText {
  const o = { ...MAINTEXT_DEFAULTS, ...opts };
  const { root, head, depth } = parseTree(html, opts);
  const body = findFirst(root, (e) => e.tag === 'body') ?? root;
  const { node, steps } = findTopic(body, o);
  let removed = 0;
  let text = textWithBreaks(node, (e) => {
    const drop = isLinkBlock(e, o);
    if (drop) removed++;
    return drop;
  });
  const topicEl = node.type === 'el' ? node : node.parent;
  const fields = pageMeta(head, root, body, text);
  // the title is metadata, not body (paper §2.3): drop a first line that repeats it
  const nl = text.indexOf('\n');
  const first = (nl < 0 ? text : text.slice(0, nl)).replace(/\s+/g, '');
  if (nl > 0 && first && (first === fields.title.replace(/\s+/g, '') || first === head.title.replace(/\s+/g, ''))) text = text.slice(nl + 1);
  if (o.trimMetaLines) text = trimMetaLines(text, { title: fields.title, author: fields.author });
  if (!text.trim() || clearText(node) === 0) {
    const where = `html text: ${opts.path ?? '<input>'}`;
    throw inputError(`${where}: no main text found${opts.truncated ? ' (the page looks truncated: no </body> or </html>)' : ''}`);
  }
  return {
    ...fields,
    text,
    meta: {
      topic: tagPath(topicEl),
      steps,
      topicChars: clearText(node),
      textChars: text.replace(/\s+/g, '').length,
      linkBlocksRemoved: removed,
      nestingDropped: depth.dropped,
    },
  };
}

/** Decodes page bytes and extracts the main text (one call for readers). */
export function mainTextOfBytes(bytes: Uint8Array, opts: MainTextOptions & { path?: string } = {}): MainText & { encoding: string; warnings: string[] } {
  const d = decodeHtml(bytes, { path: opts.path });
  const truncated = d.warnings.some((w) => /truncated/.test(w));
  const r = extractMainText(d.html, { ...opts, truncated });
  const warnings = [...d.warnings];
  if (r.meta.nestingDropped > 0) {
    const cap = opts.maxDepth ?? TREE_DEFAULTS.maxDepth;
    warnings.push(`html: ${opts.path ?? '<input>'}: elements nested deeper than ${cap} levels: ${r.meta.nestingDropped} start tag(s) below that depth ignored, their text kept`);
  }
  return { ...r, encoding: d.encoding, warnings };
}
