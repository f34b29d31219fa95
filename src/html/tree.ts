/**
 * The pruned tag tree of a page (step 2.1 of Chen, Chen & Wu 2012, "基于信息量衰减幅度的网页正文提取",
 * 计算机工程与设计 33(7) — seed 000).
 *
 * Parsing is done by htmlparser2's streaming Parser (its implied-close rules repair unbalanced markup, the
 * paper's "HTML编码清理" step; entities are decoded, the paper's rule 3). While the tree is built:
 * - rule 2: the subtrees of script, style, select, option, iframe, textarea, object and input are dropped
 *   ({@link TREE_DEFAULTS.pruneTags}; noscript, template, svg and math are added because they never hold
 *   the visible body text);
 * - rule 1: comments are dropped, and after parsing every element with no text below it is removed
 *   (except `br`, `hr`, kept as paragraph breaks);
 * - the head is not part of the tree; its title, meta tags and JSON-LD blocks are collected in
 *   {@link PageHead} for the metadata fields.
 * Every node carries `text` (non-whitespace characters below it) and `link` (those inside `<a>`), so
 * "non-link text" is `text - link` — the Lc() of the paper.
 *
 * Depth is handled without recursion (malformed pages nest thousands of unclosed tags), and the parser
 * builds at most {@link TreeOptions.maxDepth} levels (src/html/depth.ts: deeper start tags are dropped
 * before they reach it, their text kept), so a page of any nesting is parsed in linear time.
 *
 * Speed: the text of pruned script and style elements is cut out before parsing (src/html/rawtext.ts),
 * with a check against the parser's events and a fallback to the whole page, so the tree is the same.
 */
import { cappedParser, checkMaxDepth, NESTING_DEFAULTS, type DepthCapStats } from './depth.js';
import { CUT_PROBE, CUTTABLE, cutRawText, type RawTextCut } from './rawtext.js';

/** Options of {@link parseTree}. */
export interface TreeOptions {
  /**
   * Elements whose whole subtree is removed (paper rule 2, plus noscript/template/svg/math).
   * @default ['script', 'style', 'select', 'option', 'iframe', 'textarea', 'object', 'input', 'noscript', 'template', 'svg', 'math', 'head']
   */
  pruneTags?: readonly string[];
  /** Also drop elements the page hides (`hidden` attribute, inline `display:none` / `visibility:hidden`). @default true */
  pruneHidden?: boolean;
  /**
   * Cut pruned script/style text out before parsing (src/html/rawtext.ts; checked against the parse,
   * which falls back to the whole page). `false` parses the whole page. Same tree either way. @default true
   */
  cutRawText?: boolean;
  /**
   * Cut only when script/style text is at least this share of the page. Below it the gain does not pay
   * for the scan and for parsing the page in pieces (measured on the real pages: eval/html/results.md).
   * @default 0.5
   */
  cutMinShare?: number;
  /**
   * Deepest nesting built; start tags below it are dropped and their text kept in the element at this
   * depth (src/html/depth.ts). Range 8 to 100,000. @default 512
   */
  maxDepth?: number;
}

/** Defaults (frozen). */
export const TREE_DEFAULTS = Object.freeze({
  pruneHidden: true,
  cutRawText: true,
  /** Share of the page script/style text must hold for the pre-scan to cut it (src/html/rawtext.ts). */
  cutMinShare: 0.5,
  /** {@link TreeOptions.maxDepth} */
  maxDepth: NESTING_DEFAULTS.maxDepth,
  pruneTags: Object.freeze(['script', 'style', 'select', 'option', 'iframe', 'textarea', 'object', 'input', 'noscript', 'template', 'svg', 'math', 'head']) as readonly string[],
});

export interface TElem {
  type: 'el';
  tag: string;
  attrs: Record<string, string>;
  children: TNode[];
  parent: TElem | null;
  /** Non-whitespace characters of text below this node. */
  text: number;
  /** Of those, characters inside `<a>` elements. */
  link: number;
  /** Number of `<a>` elements below (and including) this node. */
  anchors: number;
}

export interface TText {
  type: 'text';
  value: string;
  parent: TElem;
  text: number;
  link: number;
  anchors: 0;
}

export type TNode = TElem | TText;

/** What the page states about itself in its head (and JSON-LD anywhere). */
export interface PageHead {
  /** Text of the first `<title>`. */
  title: string;
  /** Every `<meta>` tag's attributes, in page order. */
  metas: Record<string, string>[];
  /** Raw contents of `<script type="application/ld+json">` blocks. */
  jsonLd: string[];
  /** `<link rel="canonical">` href, if any. */
  canonical?: string;
  /** For the old-corpus `<text id="URL" title="…">` wrapper: its id and title attributes. */
  wrapper?: { id?: string; title?: string };
}

const nonWs = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x20 && c !== 0xa0 && c !== 0x3000 && c !== 0x200b && c !== 0xfeff) n++;
  }
  return n;
};

const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;
const isHidden = (a: Record<string, string>): boolean => a.hidden !== undefined || (a.style !== undefined && HIDDEN_STYLE.test(a.style));

/** What the raw-text pre-scan did on a page ({@link parseTree}). */
export interface CutInfo {
  /** Script/style contents cut out. */
  cuts: number;
  /** Characters they held. */
  chars: number;
  /** A check failed and the page was parsed again uncut (the cuts were not used). */
  fallback: boolean;
}

/**
 * Parses a decoded page into its pruned tag tree (rooted at a synthetic `#root` element) and head info.
 *
 * When pruned script and style text is at least {@link TreeOptions.cutMinShare} of the page, it is first
 * cut out (src/html/rawtext.ts: htmlparser2 scans raw text character by character, and served pages can
 * be mostly inline script). The parse of the cut page checks every cut against the parser's own events; if
 * one does not hold, the page is parsed again uncut, so the result is always the tree of the whole page.
 */
export function parseTree(html: string, opts: TreeOptions = {}): { root: TElem; head: PageHead; cut: CutInfo; depth: DepthCapStats } {
  const prune = new Set(opts.pruneTags ?? TREE_DEFAULTS.pruneTags);
  const cuttable = new Set([...CUTTABLE].filter((t) => prune.has(t)));
  if ((opts.cutRawText ?? TREE_DEFAULTS.cutRawText) !== false && cuttable.size) {
    const cut = cutRawText(html, cuttable, opts.cutMinShare ?? TREE_DEFAULTS.cutMinShare);
    if (cut.cuts.length) {
      const info = { cuts: cut.cuts.length, chars: cut.chars, fallback: false };
      const r = buildTree(cut.parts, prune, opts, cut.cuts);
      if (r) return { ...r, cut: info };
      return { ...buildTree([html], prune, opts, null)!, cut: { ...info, fallback: true } };
    }
  }
  return { ...buildTree([html], prune, opts, null)!, cut: { cuts: 0, chars: 0, fallback: false } };
}

/**
 * One htmlparser2 pass. With `cuts`, also checks each cut (see src/html/rawtext.ts): the parser must
 * report a start tag of the cut element ending right before the probe, read the probe as that element's
 * text, then close the element, and that text must be text the tree ignores. Returns null when a check
 * fails.
 */
function buildTree(parts: readonly string[], prune: ReadonlySet<string>, opts: TreeOptions, cuts: readonly RawTextCut[] | null): { root: TElem; head: PageHead; depth: DepthCapStats } | null {
  const pruneHidden = opts.pruneHidden ?? TREE_DEFAULTS.pruneHidden;
  const root: TElem = { type: 'el', tag: '#root', attrs: {}, children: [], parent: null, text: 0, link: 0, anchors: 0 };
  const head: PageHead = { title: '', metas: [], jsonLd: [] };
  let cur = root;
  let skip = 0; // depth inside a pruned subtree
  let skipTag = '';
  let inTitle = false;
  let titleDone = false;
  let jsonLd: string | null = null;
  // checking the cuts: next cut to meet, and where we are at it (0 before, 1 after its start tag, 2 after the probe)
  let next = 0;
  let at = 0;
  let want = cuts?.[0]?.at ?? -1; // index of that cut's probe in the cut page
  let failed = false;
  let ending = false; // inside parser.end()
  const fail = (): void => {
    failed = true;
    parser.pause(); // the page will be parsed again uncut
  };
  const { parser, stats: depth } = cappedParser(
    {
      onopentag(name, attribs) {
        if (name === 'meta') head.metas.push(attribs);
        else if (name === 'link' && /\bcanonical\b/i.test(attribs.rel ?? '') && attribs.href && !head.canonical) head.canonical = attribs.href;
        else if (name === 'title' && !titleDone) inTitle = true;
        else if (name === 'text' && !head.wrapper && cur === root) head.wrapper = { id: attribs.id, title: attribs.title };
        else if (name === 'script' && /ld\+json/i.test(attribs.type ?? '')) jsonLd = '';
        if (skip > 0 && name === 'body' && skipTag === 'head') skip = 0; // an unclosed <head>
        if (skip > 0) skip++;
        else if (prune.has(name) || (pruneHidden && isHidden(attribs))) {
          skip = 1;
          skipTag = name;
        } else {
          const el: TElem = { type: 'el', tag: name, attrs: attribs, children: [], parent: cur, text: 0, link: 0, anchors: 0 };
          cur.children.push(el);
          cur = el;
        }
        if (cuts) {
          if (at !== 0) fail();
          else if (parser.endIndex + 1 === want) {
            // the cut element's start tag, and its text would be ignored
            if (name === cuts[next]!.tag && skip > 0 && jsonLd === null && !inTitle) at = 1;
            else fail();
          }
        }
      },
      ontext(data) {
        // Text flushed by parser.end() (a page ending inside a tag or entity) is read back through the
        // written pieces, and at least one htmlparser2 path (an end tag cut off by the end of the page)
        // reads from position -1, which gives different text for one string than for pieces: parse uncut.
        if (cuts && ending) fail();
        if (cuts && at !== 0) {
          if (at === 1 && data === CUT_PROBE) at = 2;
          else fail();
        }
        if (inTitle) head.title += data;
        if (jsonLd !== null) jsonLd += data;
        if (skip > 0) return;
        const last = cur.children[cur.children.length - 1];
        if (last && last.type === 'text') last.value += data;
        else cur.children.push({ type: 'text', value: data, parent: cur, text: 0, link: 0, anchors: 0 });
      },
      onclosetag(name) {
        if (cuts && at !== 0) {
          if (at === 2 && name === cuts[next]!.tag) {
            at = 0;
            next++;
            want = next < cuts.length ? cuts[next]!.at : -1;
          } else fail();
        }
        if (name === 'title' && inTitle) {
          inTitle = false;
          titleDone = true;
        }
        if (name === 'script' && jsonLd !== null) {
          head.jsonLd.push(jsonLd);
          jsonLd = null;
        }
        if (skip > 0) {
          skip--;
          return;
        }
        if (cur.parent) cur = cur.parent;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
    checkMaxDepth(opts.maxDepth ?? TREE_DEFAULTS.maxDepth, 'html: maxDepth'),
  );
  // the cut page is written piece by piece (no copy); piece boundaries fall right after a start tag's
  // '>' and right before an end tag's '<', where the tokenizer has no pending text to split
  for (const part of parts) if (part && !failed) parser.write(part);
  ending = true;
  parser.end();
  if (cuts && (failed || next !== cuts.length)) return null;
  head.title = head.title.replace(/\s+/g, ' ').trim();
  computeStats(root);
  return { root, head, depth };
}

/** Post-order pass: fills text/link/anchors and removes elements without text (keeps br/hr). */
function computeStats(root: TElem): void {
  // iterative post-order
  const stack: [TElem, number][] = [[root, 0]];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    const [el, i] = top;
    if (i < el.children.length) {
      top[1]++;
      const c = el.children[i]!;
      if (c.type === 'el') stack.push([c, 0]);
      continue;
    }
    stack.pop();
    let text = 0;
    let link = 0;
    let anchors = el.tag === 'a' ? 1 : 0;
    const kept: TNode[] = [];
    for (const c of el.children) {
      if (c.type === 'text') {
        c.text = nonWs(c.value);
        if (c.text === 0 && !/\s/.test(c.value)) continue;
        text += c.text;
        kept.push(c);
      } else {
        if (c.text === 0 && c.tag !== 'br' && c.tag !== 'hr') continue;
        text += c.text;
        link += c.link;
        anchors += c.anchors;
        kept.push(c);
      }
    }
    el.children = kept;
    el.text = text;
    el.link = el.tag === 'a' ? text : link;
    el.anchors = anchors;
    for (const c of kept) if (c.type === 'text' && el.tag === 'a') c.link = c.text;
  }
}

/** First element with the given tag (document order), or null. */
export function findFirst(root: TElem, pred: (e: TElem) => boolean): TElem | null {
  const stack: TElem[] = [root];
  while (stack.length) {
    const e = stack.pop()!;
    if (pred(e)) return e;
    for (let i = e.children.length - 1; i >= 0; i--) {
      const c = e.children[i]!;
      if (c.type === 'el') stack.push(c);
    }
  }
  return null;
}

/** Block-level tags: their boundaries are paragraph breaks in the extracted text. */
export const BLOCK_TAGS: ReadonlySet<string> = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'center', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset',
  'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'li', 'main', 'nav',
  'ol', 'p', 'pre', 'section', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'td', 'th', 'ul', 'text', 'caption', 'summary',
]);

/**
 * Text of a subtree with paragraph breaks: block boundaries and `<br>` break lines, runs of white space
 * inside a line collapse to one space, empty lines are dropped. `skip` removes subtrees (link blocks).
 */
export function textWithBreaks(node: TNode, skip?: (e: TElem) => boolean): string {
  const lines: string[] = [];
  let line = '';
  const flush = (): void => {
    const t = line.replace(/[\s\u00a0\u3000]+/g, ' ').trim();
    if (t) lines.push(t);
    line = '';
  };
  // iterative walk with close markers
  const stack: (TNode | { close: string })[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if ('close' in n) {
      flush();
      continue;
    }
    if (n.type === 'text') {
      line += n.value;
      continue;
    }
    if (skip && n !== node && skip(n)) continue;
    if (n.tag === 'br' || n.tag === 'hr') {
      flush();
      continue;
    }
    const block = BLOCK_TAGS.has(n.tag);
    if (block) {
      flush();
      stack.push({ close: n.tag });
    }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  flush();
  return lines.join('\n');
}
