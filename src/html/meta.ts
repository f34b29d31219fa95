/**
 * The metadata a page states about itself: title, author, publication date, URL.
 *
 * Only what the page says is used, in this order of trust:
 * 1. JSON-LD (`datePublished`, `author.name`, `headline`/`name`, `url`);
 * 2. meta tags (`og:title`, `author`, `article:author`, `dc.creator`, `article:published_time`, `pubdate`,
 *    `publishdate`, `dc.date`, `weibo:article:create_at`, …) and elements carrying
 *    `itemprop="datePublished"`/`"author"`, Douban's `span.main-meta`;
 * 3. byline patterns in the page text before the end of the first part of the main text: `作者：X`, `文/X`,
 *    `记者 X`, `发布时间：…`, and the first full date (`2005-5-7 21:23:57`, `2022年02月13日 07:48`).
 * Dates are returned as `YYYY-MM-DD` with ` HH:MM[:SS]` when stated. Nothing is guessed from the URL.
 */
import { findFirst, textWithBreaks, type PageHead, type TElem } from './tree.js';

/** Fields of {@link pageMeta}. */
export interface PageMetaFields {
  title: string;
  url?: string;
  author?: string;
  date?: string;
}

const pad = (s: string | undefined): string => (s ?? '').padStart(2, '0');

/** Normalises a stated date to `YYYY-MM-DD[ HH:MM[:SS]]`; null when the string holds no full date. */
export function normalizeDate(s: string): string | null {
  const m = /((?:19|20)\d\d)\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?(?:\s*T?\s*(\d{1,2})[:：](\d{2})(?:[:：](\d{2}))?)?/.exec(s);
  if (!m) return null;
  const [, y, mo, d, h, mi, se] = m;
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31) return null;
  let out = `${y}-${pad(mo)}-${pad(d)}`;
  if (h !== undefined && Number(h) < 24) out += ` ${pad(h)}:${mi}${se !== undefined ? `:${se}` : ''}`;
  return out;
}

const clean = (s: string | undefined): string | undefined => {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t ? t : undefined;
};

function walkJson(v: unknown, visit: (o: Record<string, unknown>) => void, depth = 0): void {
  if (depth > 6 || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const x of v) walkJson(x, visit, depth + 1);
    return;
  }
  const o = v as Record<string, unknown>;
  visit(o);
  if (Array.isArray(o['@graph'])) walkJson(o['@graph'], visit, depth + 1);
}

const nameOf = (a: unknown): string | undefined => {
  if (typeof a === 'string') return clean(a);
  if (Array.isArray(a)) {
    const names = a.map(nameOf).filter((x): x is string => !!x);
    return names.length ? names.join(' ') : undefined;
  }
  if (a && typeof a === 'object' && typeof (a as { name?: unknown }).name === 'string') return clean((a as { name: string }).name);
  return undefined;
};

/** Reads the JSON-LD blocks (lenient: control characters inside strings are tolerated). */
function jsonLdFields(blocks: string[]): { author?: string; date?: string; title?: string; url?: string } {
  const out: { author?: string; date?: string; title?: string; url?: string } = {};
  for (const raw of blocks) {
    let v: unknown;
    try {
      v = JSON.parse(raw.replace(/[\u0000-\u001f]+/g, ' '));
    } catch {
      continue;
    }
    walkJson(v, (o) => {
      const t = String(o['@type'] ?? '');
      if (/Organization|WebSite|BreadcrumbList/i.test(t)) return;
      if (!out.date && typeof o.datePublished === 'string') out.date = normalizeDate(o.datePublished) ?? undefined;
      if (!out.author && o.author !== undefined) out.author = nameOf(o.author);
      if (!out.title && typeof o.headline === 'string') out.title = clean(o.headline);
      if (!out.url && typeof o.url === 'string' && /^https?:/.test(o.url) && /Article|Review|Posting|WebPage/i.test(t)) out.url = o.url;
    });
  }
  return out;
}

const metaValue = (head: PageHead, keys: string[]): string | undefined => {
  for (const k of keys) {
    for (const m of head.metas) {
      const key = (m.name ?? m.property ?? m.itemprop ?? m['http-equiv'] ?? '').toLowerCase();
      const val = m.content ?? m.value; // `value`: pages re-serialised by cheerio
      if (key === k && clean(val)) return clean(val);
    }
  }
  return undefined;
};

const BYLINE_AUTHOR = /(?:作者|作\s+者|撰文|文\s*[/／]|记者|編輯|编辑|责任编辑|来源[:：]\s*\S+\s+作者)\s*[:：]?\s*([\u4e00-\u9fa5A-Za-z·・&][\u4e00-\u9fa5A-Za-z0-9·・&_\- ]{0,24}?)(?=\s*(?:$|\n|[|｜(（]|\s{2}|发布|发表|时间|日期|来源|出处|\d{4}))/m;
const BYLINE_DATE = /(?:发布时间|发表时间|发表于|更新时间|日期|时间|发布于)\s*[:：]?\s*((?:19|20)\d\d\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}\s*日?(?:\s*\d{1,2}[:：]\d{2}(?:[:：]\d{2})?)?)/;
const ANY_DATE = /(?:19|20)\d\d\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}\s*日?(?:\s*\d{1,2}[:：]\d{2}(?:[:：]\d{2})?)?/;

/**
 * Title, URL, author and date of a page. `mainText` is the extracted body: byline patterns are looked
 * for in the page text up to the start of the body (plus the body's first 200 characters).
 */
export function pageMeta(head: PageHead, root: TElem, body: TElem, mainText: string): PageMetaFields {
  const ld = jsonLdFields(head.jsonLd);
  // title
  const docTitle = head.title || clean(head.wrapper?.title) || '';
  let title = metaValue(head, ['og:title', 'twitter:title']) ?? ld.title;
  if (!title) {
    const h1 = findFirst(body, (e) => e.tag === 'h1' && e.text > 0);
    const h1t = h1 ? clean(textWithBreaks(h1).replace(/\n/g, ' ')) : undefined;
    if (h1t && docTitle.replace(/\s+/g, '').includes(h1t.replace(/\s+/g, ''))) title = h1t;
    else title = docTitle;
  }
  // url
  const url = ld.url ?? metaValue(head, ['og:url']) ?? head.canonical ?? (head.wrapper?.id && /^https?:/.test(head.wrapper.id) ? head.wrapper.id : undefined);
  // author
  let author = ld.author ?? metaValue(head, ['author', 'article:author', 'dc.creator', 'byl', 'sailthru.author', 'weibo:article:author']);
  const itemAuthor = findFirst(body, (e) => /\bauthor\b/i.test(e.attrs.itemprop ?? '') && e.text > 0);
  if (!author && itemAuthor) author = clean(textWithBreaks(itemAuthor).replace(/\n/g, ' '));
  // date
  let date = ld.date;
  if (!date) {
    const d = metaValue(head, ['article:published_time', 'og:article:published_time', 'pubdate', 'publishdate', 'publish_date', 'publication_date', 'dc.date', 'dc.date.issued', 'date', 'weibo:article:create_at', 'datepublished', 'og:release_date', 'sailthru.date']);
    if (d) date = normalizeDate(d) ?? undefined;
  }
  if (!date) {
    const el = findFirst(body, (e) => /datePublished/i.test(e.attrs.itemprop ?? '') || /\bmain-meta\b/.test(e.attrs.class ?? ''));
    if (el) date = normalizeDate(el.attrs.content ?? el.attrs.datetime ?? '') ?? normalizeDate(textWithBreaks(el)) ?? undefined;
  }
  if (!date || !author) {
    const full = textWithBreaks(body);
    const bodyStart = mainText ? full.indexOf(mainText.slice(0, 40)) : -1;
    const zone = bodyStart >= 0 ? full.slice(0, bodyStart + 200) : full.slice(0, 3000);
    if (!date) {
      const m = BYLINE_DATE.exec(zone) ?? ANY_DATE.exec(zone);
      const d = m ? normalizeDate(m[1] ?? m[0]) : null;
      if (d) date = d;
    }
    if (!author) {
      const m = BYLINE_AUTHOR.exec(zone);
      if (m) author = clean(m[1]);
    }
  }
  const out: PageMetaFields = { title: title ?? '' };
  if (url) out.url = url;
  if (author) out.author = author;
  if (date) out.date = date;
  return out;
}
