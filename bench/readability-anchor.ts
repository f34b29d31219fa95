/**
 * The reference extractor: Mozilla Readability (@mozilla/readability, the Firefox reader view) over a
 * linkedom DOM, on the same decoded pages as our extractor (src/html/maintext.ts). Used only for
 * measurement (eval/html/results.md, bench/html.ts); the product uses maintext.ts.
 *
 * Readability's `textContent` has no paragraph breaks, so the text is taken from its cleaned article
 * HTML with the same block/`<br>` line rules as ours (src/html/tree.ts textWithBreaks) — both extractors
 * are judged on text produced the same way.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { findFirst, parseTree, textWithBreaks } from '../src/html/tree.js';

/** Result of {@link readabilityExtract}; null fields when Readability finds no article. */
export interface AnchorResult {
  title: string;
  text: string;
  author?: string;
  date?: string;
}

/** Options passed to Readability. */
export interface AnchorOptions {
  /** Readability's charThreshold (minimum article length). @default 500 (Readability's own default) */
  charThreshold?: number;
}

/** Runs Readability on a decoded page. Returns null when it finds no article. */
export function readabilityExtract(html: string, opts: AnchorOptions = {}): AnchorResult | null {
  const { document } = parseHTML(html);
  const art = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { charThreshold: opts.charThreshold ?? 500 }).parse();
  if (!art || !art.content) return null;
  const { root } = parseTree(`<body>${art.content}</body>`);
  const body = findFirst(root, (e) => e.tag === 'body') ?? root;
  const out: AnchorResult = { title: art.title ?? '', text: textWithBreaks(body) };
  if (art.byline) out.author = art.byline;
  if (art.publishedTime) out.date = art.publishedTime;
  return out;
}
