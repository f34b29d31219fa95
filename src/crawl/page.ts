/**
 * A fetched page as 003's tag-block node model (§1.2; crawler-spec.md §3.1): blocks with their text,
 * key-tag count, enclosing block and type (title, heading, content, anchor, navigation, other), plus the
 * page's out-links with anchor text and the type of the block they sit in. One streaming pass of
 * htmlparser2 over the decoded HTML. `<head>` is read for `<title>` and `<base href>` only: no meta tag
 * (the test web's generated marker included) reaches the relevance model.
 */
import { Parser } from 'htmlparser2';
import type { BlockType } from './options.js';

export interface Block {
  type: BlockType;
  text: string;
  /** 003 KeyTagSet size: strong, b, em, i, h1–h6, title tags in the block. */
  keyTags: number;
  /** Index of the enclosing block, −1 for none. */
  parent: number;
  /** Characters of the block's text inside links. */
  linkChars: number;
}

export interface PageLink {
  href: string;
  anchor: string;
  /** Type of the block the link sits in. */
  blockType: BlockType;
  /** Text of that block (context for the link prior), capped. */
  context: string;
}

export interface ParsedPage {
  title: string;
  blocks: Block[];
  links: PageLink[];
  base?: string;
}

const BLOCK_TAGS = new Set(['body', 'div', 'p', 'section', 'article', 'main', 'li', 'ul', 'ol', 'dl', 'dd', 'dt', 'td', 'th', 'tr', 'table', 'nav', 'header', 'footer', 'aside', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'form', 'blockquote', 'pre', 'figure', 'figcaption']);
const SKIP_TAGS = new Set(['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'canvas', 'select', 'option', 'textarea']);
const KEY_TAGS = new Set(['strong', 'b', 'em', 'i', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const NAV_TAGS = new Set(['nav', 'header', 'footer']);
const NAV_ATTR = /(^|[\s_-])(nav|navbar|menu|footer|copyright|breadcrumb|global-nav|topbar|sidebar-nav)([\s_-]|$)/iu;
const MAX_DEPTH = 400;
const MAX_CONTEXT = 200;

interface Open {
  name: string;
  block: number;
  nav: boolean;
  skip: boolean;
}

/** Parses decoded HTML into blocks and links (see module header). Never throws on malformed markup. */
export function parsePage(html: string): ParsedPage {
  const blocks: (Block & { parts: string[]; nav: boolean; tag: string })[] = [];
  const links: (PageLink & { block: number; parts: string[] })[] = [];
  const stack: Open[] = [];
  let titleParts: string[] | null = null;
  let title = '';
  let base: string | undefined;
  let openLink: (typeof links)[number] | null = null;
  let inHead = false;
  const top = (): Open | undefined => stack[stack.length - 1];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const t = top();
        const skip = (t?.skip ?? false) || SKIP_TAGS.has(name);
        if (name === 'head') inHead = true;
        if (name === 'title' && !skip && titleParts === null && title === '') titleParts = [];
        if (name === 'base' && attribs.href && base === undefined) base = attribs.href;
        let block = t?.block ?? -1;
        const nav = (t?.nav ?? false) || NAV_TAGS.has(name) || NAV_ATTR.test(`${attribs.class ?? ''} ${attribs.id ?? ''}`);
        if (!skip && !inHead && stack.length < MAX_DEPTH && BLOCK_TAGS.has(name)) {
          blocks.push({ type: 'other', text: '', keyTags: 0, parent: block, linkChars: 0, parts: [], nav, tag: name });
          block = blocks.length - 1;
        }
        if (!skip && block >= 0 && KEY_TAGS.has(name)) blocks[block]!.keyTags++;
        if (!skip && name === 'a' && attribs.href !== undefined && openLink === null) {
          openLink = { href: attribs.href, anchor: '', blockType: 'other', context: '', block, parts: [] };
          links.push(openLink);
        }
        stack.push({ name, block, nav, skip });
      },
      ontext(text) {
        if (titleParts) {
          titleParts.push(text);
          return;
        }
        const t = top();
        if (!t || t.skip || inHead || t.block < 0) return;
        const b = blocks[t.block]!;
        b.parts.push(text);
        if (openLink) {
          openLink.parts.push(text);
          b.linkChars += text.trim().length;
        }
      },
      onclosetag(name) {
        if (name === 'title' && titleParts) {
          title = titleParts.join('').replace(/\s+/gu, ' ').trim();
          titleParts = null;
        }
        if (name === 'head') inHead = false;
        if (name === 'a') openLink = null;
        // htmlparser2 closes implied elements itself, so the stack top is the element being closed
        stack.pop();
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  for (const b of blocks) {
    b.text = b.parts.join('').replace(/\s+/gu, ' ').trim();
    b.type = blockType(b, b.tag, b.nav);
  }
  const outBlocks: Block[] = blocks.map((b) => ({ type: b.type, text: b.text, keyTags: b.keyTags, parent: b.parent, linkChars: b.linkChars }));
  if (title) outBlocks.push({ type: 'title', text: title, keyTags: 1, parent: -1, linkChars: 0 });
  const outLinks: PageLink[] = links.map((l) => ({
    href: l.href,
    anchor: l.parts.join('').replace(/\s+/gu, ' ').trim(),
    blockType: l.block >= 0 ? outBlocks[l.block]!.type : 'other',
    context: l.block >= 0 ? outBlocks[l.block]!.text.slice(0, MAX_CONTEXT) : '',
  }));
  return { title, blocks: outBlocks, links: outLinks, ...(base !== undefined ? { base } : {}) };
}

/** Block type by the spec's rules (crawler-spec.md §3.1, option `blockClassifier`). */
function blockType(b: { text: string; linkChars: number }, tag: string, nav: boolean): BlockType {
  if (tag === 'h1') return 'title';
  if (/^h[2-6]$/u.test(tag)) return 'heading';
  if (nav) return 'navigation';
  const len = b.text.replace(/\s/gu, '').length;
  if (len > 0 && b.linkChars / len > 0.5) return 'anchor';
  if (len >= 20) return 'content';
  return 'other';
}
