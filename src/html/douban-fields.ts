/**
 * Film fields of Douban pages.
 *
 *   - List records (Top250 `div.item`, and the same markup in other Douban lists): subject id (from a
 *     `/subject/<id>/` link), title, other titles, rating, directors, actors, year, countries, genres.
 *     The `bd` paragraph reads "导演: A / B   主演: C / D /..." then "1994 / 美国 / 犯罪 剧情"; Douban cuts
 *     it with "..." — a cut name keeps only its complete Chinese part, a bare "..." is dropped.
 *   - Subject pages: the `#info` block (导演/编剧/主演/类型/制片国家/地区/又名/上映日期) and the page's own
 *     `application/ld+json`, so one can be checked against the other.
 */
import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import { elementChildren, textOf } from './structural.js';

export interface FilmRecord {
  subjectId?: string;
  url?: string;
  title?: string;
  otherTitles: string[];
  rating?: number;
  directors: string[];
  actors: string[];
  year?: number;
  countries: string[];
  genres: string[];
}

function* walkEls(n: AnyNode): Generator<Element> {
  if (isTag(n)) yield n;
  if ('children' in n) for (const c of (n as Element).children) yield* walkEls(c);
}

const hasClass = (e: Element, c: string): boolean => (e.attribs.class ?? '').split(/\s+/).includes(c);
const find = (root: AnyNode, pred: (e: Element) => boolean): Element | undefined => {
  for (const e of walkEls(root)) if (pred(e)) return e;
  return undefined;
};
const findAll = (root: AnyNode, pred: (e: Element) => boolean): Element[] => [...walkEls(root)].filter(pred);

const clean = (s: string): string => s.replace(/[\s\u00a0\u3000]+/g, ' ').trim();

/** Douban subject id from an href, or undefined. */
export function subjectIdOf(href: string | undefined): string | undefined {
  const m = /(?:^|\/\/(?:movie\.)?douban\.com|^)\/subject\/(\d+)/.exec(href ?? '');
  return m ? m[1] : /^https?:\/\/[^/]*douban\.com\/subject\/(\d+)/.exec(href ?? '')?.[1];
}

/** Splits a "A / B / C" list, handling Douban's "..." cuts. */
export function splitNames(s: string): string[] {
  const out: string[] = [];
  for (let raw of s.split(/\s+\/\s*|\s*\/\s+/)) {
    raw = clean(raw);
    if (raw === '' || /^\.{2,}$|^…+$/.test(raw)) continue;
    if (/(\.{2,}|…)$/.test(raw)) {
      // cut name: keep the complete Chinese part before the first space, if any
      const m = /^([^\sA-Za-z]+)\s/.exec(raw);
      if (m && !/(\.{2,}|…)$/.test(m[1])) out.push(m[1]);
      continue;
    }
    out.push(raw);
  }
  return out;
}

/** Fields of one Douban list record (null when the element holds no subject link). */
export function doubanListRecord(rec: Element): FilmRecord | null {
  const link = find(rec, (e) => e.name === 'a' && subjectIdOf(e.attribs.href) !== undefined);
  if (!link) return null;
  const r: FilmRecord = { otherTitles: [], directors: [], actors: [], countries: [], genres: [] };
  r.subjectId = subjectIdOf(link.attribs.href);
  r.url = link.attribs.href;
  const titles = findAll(rec, (e) => e.name === 'span' && hasClass(e, 'title')).map((e) => clean(textOf(e)).replace(/^\/\s*/, '').trim());
  if (titles.length) {
    r.title = titles[0];
    r.otherTitles.push(...titles.slice(1).filter((t) => t !== ''));
  } else {
    const img = find(rec, (e) => e.name === 'img' && !!e.attribs.alt);
    const t = clean(textOf(link)) || img?.attribs.alt;
    if (t) r.title = t;
  }
  const other = find(rec, (e) => e.name === 'span' && hasClass(e, 'other'));
  if (other) r.otherTitles.push(...clean(textOf(other)).split(/\s*\/\s*/).map(clean).filter((t) => t !== ''));
  const rn = find(rec, (e) => hasClass(e, 'rating_num'));
  const rating = rn ? Number(clean(textOf(rn))) : NaN;
  if (Number.isFinite(rating) && rating > 0) r.rating = rating;
  const bd = find(rec, (e) => hasClass(e, 'bd'));
  const p = bd ? find(bd, (e) => e.name === 'p' && !hasClass(e, 'quote')) : undefined;
  if (p) {
    const lines = linesAtBr(p);
    Object.assign(r, parseBd(lines[0] ?? '', lines.slice(1).join(' ')));
  }
  return r;
}

/** Parses the two lines of a list record's `bd` paragraph (credits; year / countries / genres). */
export function parseBd(creditLine: string, metaLine: string): Pick<FilmRecord, 'directors' | 'actors' | 'countries' | 'genres' | 'year'> {
  const r: Pick<FilmRecord, 'directors' | 'actors' | 'countries' | 'genres' | 'year'> = { directors: [], actors: [], countries: [], genres: [] };
  const credits = clean(creditLine);
  const di = credits.search(/导演\s*[:：]/);
  const ai = credits.search(/主演\s*[:：]/);
  if (di >= 0) {
    let d = credits.slice(di).replace(/^导演\s*[:：]\s*/, '');
    if (ai > di) d = credits.slice(di, ai).replace(/^导演\s*[:：]\s*/, '');
    else d = d.replace(/\s+主(?:演)?\s*(?:\.{2,}|…)?$/, ''); // "…   主..." cut before the actors
    r.directors = splitNames(d);
  }
  if (ai >= 0) r.actors = splitNames(credits.slice(ai).replace(/^主演\s*[:：]\s*/, ''));
  const meta = clean(metaLine);
  if (meta) {
    const parts = meta.split(/\s*\/\s*/);
    // year part(s) first ("1961(中国大陆) / 1964 / 1978(...)"), then countries, then genres
    let i = 0;
    const years: number[] = [];
    while (i < parts.length && /^\d{4}/.test(parts[i])) years.push(Number(parts[i++].slice(0, 4)));
    if (years.length) r.year = years[0];
    if (i < parts.length) r.countries = parts[i++].split(' ').filter((x) => x !== '');
    if (i < parts.length) r.genres = parts.slice(i).join(' ').split(' ').filter((x) => x !== '');
  }
  return r;
}

/**
 * One line of a Python `repr` list as written by a crawler (`['a', '\\xa0b', ['c'], 'd']`): strings,
 * nested lists. Returns null when the line is not such a list.
 */
export function parsePyList(line: string): unknown[] | null {
  let i = 0;
  const ws = () => {
    while (i < line.length && /\s/.test(line[i])) i++;
  };
  const str = (): string => {
    const q = line[i++];
    let out = '';
    while (i < line.length && line[i] !== q) {
      if (line[i] === '\\') {
        const c = line[i + 1];
        if (c === 'x') {
          out += String.fromCharCode(parseInt(line.slice(i + 2, i + 4), 16));
          i += 4;
        } else if (c === 'u') {
          out += String.fromCharCode(parseInt(line.slice(i + 2, i + 6), 16));
          i += 6;
        } else {
          out += c === 'n' ? '\n' : c === 't' ? '\t' : c;
          i += 2;
        }
      } else out += line[i++];
    }
    if (line[i] !== q) throw new Error('unterminated string');
    i++;
    return out;
  };
  const val = (): unknown => {
    ws();
    if (line[i] === '[') return list();
    if (line[i] === "'" || line[i] === '"') return str();
    const m = /^[^,\]]+/.exec(line.slice(i));
    if (!m) throw new Error('bad value');
    i += m[0].length;
    return m[0].trim();
  };
  const list = (): unknown[] => {
    i++;
    const out: unknown[] = [];
    ws();
    if (line[i] === ']') {
      i++;
      return out;
    }
    for (;;) {
      out.push(val());
      ws();
      if (line[i] === ',') {
        i++;
        continue;
      }
      if (line[i] === ']') {
        i++;
        return out;
      }
      throw new Error('bad list');
    }
  };
  try {
    ws();
    if (line[i] !== '[') return null;
    return list();
  } catch {
    return null;
  }
}

/** Fields of a Douban subject page: `#info` and the JSON-LD block. */
export interface SubjectPage {
  subjectId?: string;
  title?: string;
  info: { directors: string[]; writers: string[]; actors: string[]; genres: string[]; countries: string[]; otherTitles: string[]; year?: number };
  jsonld: { name?: string; directors: string[]; writers: string[]; actors: string[]; genres: string[]; datePublished?: string } | null;
}

/** The text of an element's children split into lines at each `<br>` (at any depth), unnormalised. */
function linesAtBr(el: Element): string[] {
  const lines: string[] = [''];
  const walk = (n: AnyNode): void => {
    if (isText(n)) lines[lines.length - 1] += n.data;
    else if (isTag(n)) {
      if (n.name === 'br') lines.push('');
      else for (const c of n.children) walk(c);
    }
  };
  for (const c of el.children) walk(c);
  return lines;
}

/** Reads a Douban subject page (null when it has no `#info`). */
export function doubanSubjectPage(root: AnyNode): SubjectPage | null {
  const info = find(root, (e) => e.attribs.id === 'info');
  if (!info) return null;
  // #info: "<span class=pl>导演</span>: <span class=attrs><a>..</a> / <a>..</a></span><br>" — one line per <br>
  const lines = linesAtBr(info);
  const field = (label: RegExp): string | undefined => {
    for (const l of lines) {
      const t = clean(l);
      const m = new RegExp(`^(?:${label.source})\\s*[:：]\\s*(.*)$`).exec(t);
      if (m) return m[1];
    }
    return undefined;
  };
  const list = (label: RegExp): string[] => (field(label) ?? '').split(/\s*\/\s*/).map(clean).filter((x) => x !== '');
  const page: SubjectPage = {
    info: {
      directors: list(/导演/),
      writers: list(/编剧/),
      actors: list(/主演/),
      genres: list(/类型/),
      countries: list(/制片国家\/地区/),
      otherTitles: list(/又名/),
    },
    jsonld: null,
  };
  const date = field(/上映日期|首播/);
  if (date && /^\d{4}/.test(date)) page.info.year = Number(date.slice(0, 4));
  const titleEl = find(root, (e) => e.attribs.property === 'v:itemreviewed');
  if (titleEl) page.title = clean(textOf(titleEl));
  const canon = find(root, (e) => e.name === 'link' && e.attribs.rel === 'canonical') ?? find(root, (e) => e.name === 'meta' && e.attribs.property === 'og:url');
  page.subjectId = subjectIdOf(canon?.attribs.href ?? canon?.attribs.content);
  const ld = find(root, (e) => e.name === 'script' && (e.attribs.type ?? '').includes('ld+json'));
  if (ld) {
    const raw = ld.children.map((c) => (isText(c) ? c.data : '')).join('');
    try {
      // Douban's JSON-LD may contain raw newlines inside strings
      const j = JSON.parse(raw.replace(/[\r\n\t]+/g, ' ')) as Record<string, unknown>;
      const names = (v: unknown): string[] => (Array.isArray(v) ? v : v ? [v] : []).map((x) => clean(String((x as { name?: unknown }).name ?? ''))).filter((x) => x !== '');
      page.jsonld = {
        directors: names(j.director),
        writers: names(j.author),
        actors: names(j.actor),
        genres: (Array.isArray(j.genre) ? j.genre : j.genre ? [j.genre] : []).map((g) => clean(String(g))),
      };
      if (typeof j.name === 'string') page.jsonld.name = clean(j.name);
      if (typeof j.datePublished === 'string') page.jsonld.datePublished = j.datePublished;
      if (!page.subjectId && typeof j.url === 'string') page.subjectId = subjectIdOf(j.url);
    } catch {
      page.jsonld = null;
    }
  }
  return page;
}

export { elementChildren };
