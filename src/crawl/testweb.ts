/**
 * The local test web (crawl-test-web.md §4): real saved pages at their original URLs with their real
 * links, plus film / person / genre pages rendered from real KG records at their real Douban URLs, plus
 * off-topic portal and "tunnel" pages on reserved `.example` hosts. Every generated page carries
 * `<meta name="filmkw-generated">` and is `generated` in the manifest and the gold; the crawler's
 * relevance model never reads that marker (test/crawl/relevance.test.ts).
 *
 * {@link buildTestWeb} is a pure function of its inputs (pages, KG data, film facts, seed) → files;
 * {@link loadTestWebInputs} reads them from a shared data folder (html/MANIFEST.tsv, kg/*).
 * Output: manifest.tsv (url, file, label), gold.tsv (url, relevant, grade, provenance, kind),
 * seeds.tsv (set, url), graph.tsv (from, to, kind), pages under real/ and gen/.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { inputError } from '../errors.js';
import { mulberry32 } from '../util/random.js';
import type { KgData } from '../kg/model.js';
import { htmlBytesToRecord } from '../html/index.js';
import { normalizeUrl, pageFileName, urlHash } from './url.js';

/** One real saved page. */
export interface RealPage {
  /** Absolute path of the saved file. */
  path: string;
  /** Original URL; absent when the source did not keep it (the page is then served on an archive host). */
  url?: string;
  /** Page type as described by the data's manifest. */
  pageType: string;
}

/** Facts about a film not kept in the KG store (summary, year, countries), by Douban subject id. */
export interface FilmFacts {
  summary?: string;
  year?: string;
  countries?: string;
}

export interface TestWebInputs {
  pages: RealPage[];
  kg: KgData;
  facts: Map<string, FilmFacts>;
}

export interface TestWebOptions {
  /** PRNG seed of every random choice. @default 20260524 */
  seed: number;
  /** Probability that a portal list entry links into the film region (crawl-test-web.md §4.1: q). @default 0.05 */
  filmLinkRate: number;
  /** Films listed per genre page (Douban: 20). @default 20 */
  perGenrePage: number;
  /** Number of off-topic articles of the generated news site that reaches films only via a tunnel. @default 120 */
  tunnelSiteArticles: number;
  /** Depth of the tunnel chain (off-topic pages between the news site and the first film page). @default 2 */
  tunnelDepth: number;
  /** Pages of the portal's endless-looking pagination. @default 60 */
  portalPages: number;
  /** Douban user pages (off-topic) that film pages link to through their short comments. @default 4000 */
  users: number;
  /** Douban group discussion pages (off-topic) that user pages link to. @default 300 */
  groups: number;
  /** Short comments (each linking its user) per film page. @default 8 */
  commentsPerFilm: number;
  /**
   * Keyword-stuffed "影视大全" aggregator pages (004's fake-keyword pages: full of film words, their links
   * lead to ads, a merchandise shop and each other; one link per page to the film's Douban page). @default 60
   */
  aggregatorPages: number;
  /** Ad landing pages the aggregators link to (anchors name films; the page repeats the bait title). @default 240 */
  adPages: number;
  /** Merchandise shop item pages the aggregators link to. @default 60 */
  shopPages: number;
  /** The tunnel news site's articles advertise the aggregator site too. @default false */
  newsSiteAds: boolean;
  /** Posts of a personal blog (modest-looking: diary text, few film words) each linking 4 Douban film pages. @default 40 */
  blogPosts: number;
}

export const TESTWEB_DEFAULTS: Readonly<TestWebOptions> = Object.freeze({
  seed: 20260524,
  filmLinkRate: 0.05,
  perGenrePage: 20,
  tunnelSiteArticles: 120,
  tunnelDepth: 2,
  portalPages: 60,
  users: 4000,
  groups: 300,
  commentsPerFilm: 8,
  aggregatorPages: 60,
  adPages: 240,
  shopPages: 60,
  blogPosts: 40,
  newsSiteAds: false,
});

/** Page types of the shared data's MANIFEST that are film pages (relevant). */
const FILM_PAGE_TYPE = /douban subject page|FILM NEWS|douban movie REVIEW|Top250|short-comments list|letterboxd film page|film person/u;

export function isFilmPageType(pageType: string): boolean {
  return FILM_PAGE_TYPE.test(pageType) && !/not film/u.test(pageType);
}

export interface GoldRow {
  url: string;
  relevant: 0 | 1;
  grade: number;
  provenance: 'real' | 'generated';
  kind: string;
}

export interface TestWebResult {
  pages: number;
  real: number;
  generated: number;
  relevant: number;
  edges: number;
  seeds: Record<string, string[]>;
}

export const PORTAL = 'http://www.newsportal.example/';
export const CITY = 'http://www.citynews.example/';
export const ARCHIVE_HOST = 'http://pages.archive.example/';
export const AGGREGATOR = 'http://www.yingshidaquan.example/';
export const AD_HOST = 'http://lp.adclick.example/';
export const SHOP = 'http://shop.zhoubian.example/';
export const BLOG = 'http://blog.xiaoying.example/';
export const DIRECTORY = 'http://www.yule-daohang.example/';
export const SEED_SETS = ['on-topic', 'mixed-portal', 'off-topic-tunnel', 'fake-keywords'] as const;

const esc = (s: string): string => s.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;').replace(/"/gu, '&quot;');

const GENERATED_META = '<meta name="filmkw-generated" content="rendered from a real record or synthetic; see gold.tsv">';

/** Draws from one PRNG: an element of a list, and a 160-character passage of a text at a random start. */
function draws(rnd: () => number): { pick: <T>(xs: readonly T[]) => T; blurb: (t: { text: string }) => string } {
  return {
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!,
    blurb: (t) => {
      const start = Math.floor(rnd() * Math.max(1, t.text.length - 160));
      return t.text.slice(start, start + 160);
    },
  };
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>\n<html lang="zh-CN"><head><meta charset="utf-8">${GENERATED_META}<title>${esc(title)}</title></head>\n<body>\n${body}\n</body></html>\n`;
}

interface Film {
  sid: string;
  name: string;
  aliases: string[];
  directors: string[];
  writers: string[];
  actors: string[];
  genres: string[];
}

interface Person {
  cid: string;
  name: string;
  roles: Set<string>;
  films: string[];
}

const DOUBAN = 'https://movie.douban.com';
const userUrl = (n: number) => `https://www.douban.com/people/u${n}/`;
const groupUrl = (n: number) => `https://www.douban.com/group/topic/${100000 + n}/`;
/** Douban's global navigation (real section front pages; off-topic stubs in the test web). */
const DOUBAN_NAV: readonly [string, string][] = [
  ['https://www.douban.com/', '豆瓣'],
  ['https://book.douban.com/', '读书'],
  ['https://music.douban.com/', '音乐'],
  ['https://www.douban.com/location/', '同城'],
  ['https://www.douban.com/group/', '小组'],
  ['https://read.douban.com/', '阅读'],
  ['https://www.douban.com/game/', '游戏'],
  ['https://market.douban.com/', '豆品'],
];
const DOUBAN_FOOTER: readonly [string, string][] = [
  ['https://www.douban.com/about', '关于豆瓣'],
  ['https://jobs.douban.com/', '在豆瓣工作'],
  ['https://www.douban.com/about/legal', '法律声明'],
  ['https://help.douban.com/', '帮助中心'],
];
const globalNav = `<div id="db-global-nav" class="global-nav">${DOUBAN_NAV.map(([u, t]) => `<a href="${u}">${t}</a>`).join(' ')}</div>`;
const footer = `<div id="footer"><span class="fleft gray-link">© 2005－2026 douban.com, all rights reserved</span> ${DOUBAN_FOOTER.map(([u, t]) => `<a href="${u}">${t}</a>`).join(' · ')}</div>`;
const subjectUrl = (sid: string) => `${DOUBAN}/subject/${sid}/`;
const celebrityUrl = (cid: string) => `${DOUBAN}/celebrity/${cid}/`;
const genreUrl = (g: string, start: number) => `${DOUBAN}/tag/${encodeURIComponent(g)}${start > 0 ? `?start=${start}` : ''}`;

/** Films, people and genres with Douban ids, from the KG data (ids movie/douban/N, person/douban/N). */
function kgIndex(kg: KgData): { films: Map<string, Film>; people: Map<string, Person>; genres: Map<string, string[]> } {
  const films = new Map<string, Film>();
  const people = new Map<string, Person>();
  const byId = new Map(kg.entities.map((e) => [e.id, e]));
  for (const e of kg.entities) {
    let m = /^movie\/douban\/(\d+)$/u.exec(e.id);
    if (m) films.set(e.id, { sid: m[1], name: e.name, aliases: e.aliases.slice(0, 5), directors: [], writers: [], actors: [], genres: [] });
    m = /^person\/douban\/(\d+)$/u.exec(e.id);
    if (m) people.set(e.id, { cid: m[1], name: e.name, roles: new Set(), films: [] });
  }
  const genres = new Map<string, string[]>();
  const rels = [...kg.relations].sort((a, b) => (a.from + a.kind + a.to < b.from + b.kind + b.to ? -1 : 1));
  for (const r of rels) {
    if (r.kind === 'HAS_GENRE') {
      const f = films.get(r.from);
      const g = byId.get(r.to)?.name;
      if (f && g) {
        f.genres.push(g);
        if (!genres.has(g)) genres.set(g, []);
        genres.get(g)!.push(f.sid);
      }
    } else if (r.kind === 'DIRECTED' || r.kind === 'WROTE' || r.kind === 'ACTED_IN') {
      const f = films.get(r.to);
      const p = byId.get(r.from);
      if (!f || !p) continue;
      const list = r.kind === 'DIRECTED' ? f.directors : r.kind === 'WROTE' ? f.writers : f.actors;
      list.push(r.from);
      const person = people.get(r.from);
      if (person) {
        person.roles.add(r.kind === 'DIRECTED' ? '导演' : r.kind === 'WROTE' ? '编剧' : '演员');
        person.films.push(f.sid);
      }
    }
  }
  return { films, people, genres };
}

/** Builds the test web into `out` (see module header). */
export function buildTestWeb(inputs: TestWebInputs, out: string, partial: Partial<TestWebOptions> = {}): TestWebResult {
  const o = { ...TESTWEB_DEFAULTS, ...partial };
  mkdirSync(out, { recursive: true });
  const rnd = mulberry32(o.seed);
  const manifest: string[] = ['url\tfile\tlabel'];
  const gold: GoldRow[] = [];
  const edges: string[] = ['from\tto\tkind'];
  const served = new Set<string>();
  const write = (url: string, html: string, provenance: 'real' | 'generated', relevant: 0 | 1, kind: string, links: string[]) => {
    if (served.has(url)) return; // a real page at this URL wins over a rendered one
    const rel = join('gen', pageFileName(url));
    mkdirSync(dirname(join(out, rel)), { recursive: true });
    writeFileSync(join(out, rel), html);
    manifest.push(`${url}\t${rel}\t${provenance}`);
    gold.push({ url, relevant, grade: relevant, provenance, kind });
    served.add(url);
    for (const l of links) edges.push(`${url}\t${l}\t${provenance === 'real' ? 'real' : kind}`);
  };
  const { films, people, genres } = kgIndex(inputs.kg);
  const nameOf = new Map(inputs.kg.entities.map((e) => [e.id, e.name]));

  // 1. real pages, copied with their bytes, at their URLs (or an archive host when the URL is unknown)
  const realTexts: { url: string; title: string; text: string }[] = [];
  const realFilmUrls: string[] = [];
  for (const p of inputs.pages) {
    let url: string;
    if (p.url && !p.url.includes('..')) {
      const n = normalizeUrl(p.url);
      if ('error' in n) continue;
      url = n.url;
    } else url = `${ARCHIVE_HOST}${urlHash(p.path, 12)}.html`;
    if (served.has(url)) continue;
    const rel = join('real', pageFileName(url));
    mkdirSync(dirname(join(out, rel)), { recursive: true });
    copyFileSync(p.path, join(out, rel));
    manifest.push(`${url}\t${rel}\treal`);
    const relevant = isFilmPageType(p.pageType) ? 1 : 0;
    gold.push({ url, relevant, grade: relevant, provenance: 'real', kind: relevant ? 'real-film' : 'real-offtopic' });
    served.add(url);
    if (relevant) realFilmUrls.push(url);
    else {
      const rec = htmlBytesToRecord(new Uint8Array(readFileSync(p.path)), url);
      if (!('error' in rec) && rec.text.length > 200) realTexts.push({ url, title: rec.title || url, text: rec.text });
    }
  }

  // 2. KG-rendered film, person and genre pages at their Douban URLs
  const filmList = [...films.values()].sort((a, b) => Number(a.sid) - Number(b.sid));
  const filmBySid = new Map(filmList.map((f) => [f.sid, f]));
  const personLink = (id: string) => {
    const p = people.get(id);
    const name = esc(nameOf.get(id) ?? '');
    return p ? `<a href="/celebrity/${p.cid}/">${name}</a>` : name;
  };
  for (const f of filmList) {
    const facts = inputs.facts.get(f.sid) ?? {};
    const related = new Set<string>();
    for (const pid of [...f.directors, ...f.actors.slice(0, 3)]) for (const sid of people.get(pid)?.films ?? []) if (sid !== f.sid && related.size < 6) related.add(sid);
    const sameGenre = genres.get(f.genres[0] ?? '') ?? [];
    for (let i = 0; i < sameGenre.length && related.size < 10; i += Math.max(1, Math.floor(sameGenre.length / 10))) if (sameGenre[i] !== f.sid) related.add(sameGenre[i]);
    const users = [...Array(o.commentsPerFilm).keys()].map((k) => parseInt(urlHash(`${f.sid}/${k}`, 8), 16) % o.users);
    const links = [
      ...DOUBAN_NAV.map(([u]) => u),
      ...[...f.directors, ...f.writers, ...f.actors].filter((id) => people.has(id)).map((id) => celebrityUrl(people.get(id)!.cid)),
      ...f.genres.map((g) => genreUrl(g, 0)),
      ...[...related].map(subjectUrl),
      ...users.map(userUrl),
      ...DOUBAN_FOOTER.map(([u]) => u),
    ];
    const body = [
      globalNav,
      `<div id="content"><h1><span property="v:itemreviewed">${esc(f.name)}</span>${facts.year ? ` <span class="year">(${esc(facts.year)})</span>` : ''}</h1>`,
      '<div id="info">',
      f.directors.length ? `<span class="pl">导演</span>: ${f.directors.map(personLink).join(' / ')}<br>` : '',
      f.writers.length ? `<span class="pl">编剧</span>: ${f.writers.map(personLink).join(' / ')}<br>` : '',
      f.actors.length ? `<span class="pl">主演</span>: ${f.actors.slice(0, 12).map(personLink).join(' / ')}<br>` : '',
      f.genres.length ? `<span class="pl">类型:</span> ${f.genres.map((g) => `<span property="v:genre">${esc(g)}</span>`).join(' / ')}<br>` : '',
      facts.countries ? `<span class="pl">制片国家/地区:</span> ${esc(facts.countries)}<br>` : '',
      f.aliases.length ? `<span class="pl">又名:</span> ${f.aliases.map(esc).join(' / ')}<br>` : '',
      '</div>',
      facts.summary ? `<div class="related-info"><h2>${esc(f.name)}的剧情简介</h2><span property="v:summary">${esc(facts.summary)}</span></div>` : '',
      `<div class="recommendations"><h2>喜欢这部电影的人也喜欢</h2><dl>${[...related].map((sid) => `<dd><a href="${subjectUrl(sid)}">${esc(filmBySid.get(sid)?.name ?? sid)}</a></dd>`).join('')}</dl></div>`,
      `<div class="tags-body">${f.genres.map((g) => `<a href="/tag/${encodeURIComponent(g)}">${esc(g)}</a>`).join(' ')}</div>`,
      `<div id="comments-section"><h2>短评</h2>${users.map((u) => `<div class="comment-item"><span class="comment-info"><a href="${userUrl(u)}">用户${u}</a> 看过</span></div>`).join('')}</div>`,
      `</div>${footer}`,
    ].join('\n');
    write(subjectUrl(f.sid), page(`${f.name} (豆瓣)`, body), 'generated', 1, 'kg-film', links);
  }
  for (const p of [...people.values()].sort((a, b) => Number(a.cid) - Number(b.cid))) {
    if (p.films.length === 0) continue;
    const filmsOf = [...new Set(p.films)].slice(0, 30);
    const body = [
      globalNav,
      `<div id="content"><h1>${esc(p.name)}</h1><div class="info"><span class="pl">职业</span>: ${[...p.roles].sort().join(' / ')}</div>`,
      `<div id="best_movies"><h2>${esc(p.name)}的作品</h2><ul>${filmsOf.map((sid) => `<li><a href="${subjectUrl(sid)}">${esc(filmBySid.get(sid)?.name ?? sid)}</a></li>`).join('')}</ul></div></div>`,
    ].join('\n');
    write(celebrityUrl(p.cid), page(`${p.name} (豆瓣)`, `${body}\n${footer}`), 'generated', 1, 'kg-person', [...DOUBAN_NAV.map(([u]) => u), ...filmsOf.map(subjectUrl), ...DOUBAN_FOOTER.map(([u]) => u)]);
  }
  for (const [g, sids] of [...genres.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    for (let start = 0; start < sids.length; start += o.perGenrePage) {
      const slice = sids.slice(start, start + o.perGenrePage);
      const next = start + o.perGenrePage < sids.length ? genreUrl(g, start + o.perGenrePage) : undefined;
      const body = [
        `<div id="content"><h1>豆瓣电影标签: ${esc(g)}</h1><div class="article">`,
        ...slice.map((sid) => {
          const f = filmBySid.get(sid)!;
          return `<div class="item"><a class="nbg" href="${subjectUrl(sid)}">${esc(f.name)}</a><p class="pl">${f.directors.slice(0, 1).map((id) => esc(nameOf.get(id) ?? '')).join('')} / ${f.genres.map(esc).join(' ')}</p></div>`;
        }),
        next ? `<div class="paginator"><a href="${next}">后页&gt;</a></div>` : '',
        '</div></div>',
      ].join('\n');
      write(genreUrl(g, start), page(`${g} 电影标签 (豆瓣)`, body), 'generated', 1, 'kg-genre', [...slice.map(subjectUrl), ...(next ? [next] : [])]);
    }
  }

  // 3. off-topic portal (links to real off-topic pages, rarely to film pages) and a news site whose only
  //    way to film pages is a tunnel of off-topic pages
  const filmTargets = [...realFilmUrls, ...filmList.map((f) => subjectUrl(f.sid))];
  const { pick, blurb } = draws(rnd);
  if (realTexts.length === 0) throw inputError('crawl testweb: no off-topic real page with main text; the html data folder looks empty');
  // the fake-keyword region (section 5 below) has its own PRNG, so the pages drawn before it are the
  // same as in a web built without it; the portal and the news site link into it by index
  const aggUrl = (n: number) => (n === 0 ? AGGREGATOR : `${AGGREGATOR}movie/${n}.html`);
  const blogUrl = (n: number) => `${BLOG}post/${n}.html`;
  const promo = (n: number) => `<li class="promo"><a href="${aggUrl(n)}">2026最新电影免费在线看</a><p>热门电影 高清电影 免费下载 最新电视剧 抢先看</p></li>`;
  for (let i = 0; i < o.portalPages; i++) {
    const url = i === 0 ? PORTAL : `${PORTAL}list?page=${i}`;
    const items: string[] = [];
    const links: string[] = [];
    for (let k = 0; k < 12; k++) {
      const t = pick(realTexts);
      if (rnd() < o.filmLinkRate) {
        const f = pick(filmTargets);
        items.push(`<li><a href="${f}">${esc(t.title.slice(0, 30))}</a><p>${esc(blurb(t))}</p></li>`);
        links.push(f);
      } else {
        items.push(`<li><a href="${t.url}">${esc(t.title.slice(0, 40))}</a><p>${esc(blurb(t))}</p></li>`);
        links.push(t.url);
      }
    }
    if (o.aggregatorPages > 0) {
      // an ad slot on every list page, a blog entry on every third
      items.push(promo((i * 7) % o.aggregatorPages));
      links.push(aggUrl((i * 7) % o.aggregatorPages));
    }
    if (o.blogPosts > 0 && i % 3 === 1) {
      items.push(`<li><a href="${blogUrl(i % o.blogPosts)}">小影的日常 · 第${(i % o.blogPosts) + 1}篇</a><p>一个普通人的周末记录</p></li>`);
      links.push(blogUrl(i % o.blogPosts));
    }
    const nav = [`${PORTAL}`, `${PORTAL}list?page=${i + 1}`, `${CITY}`, ...(i === 0 ? [`${PORTAL}private/report.html`] : [])];
    if (i === 0) {
      // the portal's entertainment corner: the mixed seed set starts here
      const films = [realFilmUrls[0], ...filmList.slice(0, 3).map((f) => subjectUrl(f.sid))].filter((x): x is string => !!x);
      items.push(`<li class="ent"><h3>娱乐</h3>${films.map((f) => `<a href="${f}">${esc(nameOfUrl(f, filmBySid))}</a>`).join(' ')}</li>`);
      links.push(...films);
    }
    const body = `<div class="nav"><a href="${PORTAL}">首页</a> <a href="${PORTAL}list?page=${i + 1}">下一页</a> <a href="${CITY}">城市新闻</a>${i === 0 ? ` <a href="${PORTAL}private/report.html">内部报告</a>` : ''}</div>\n<ul class="list">${items.join('\n')}</ul>`;
    write(url, page(`新闻门户 第${i + 1}页`, body), 'generated', 0, 'portal', [...links, ...nav]);
  }
  // Douban's off-topic neighbourhood of the film pages: users (linked from short comments), their
  // groups, the section front pages of the global navigation and the footer pages
  const realOff = realTexts.map((t) => t.url);
  for (let u = 0; u < o.users; u++) {
    const links = [groupUrl(u % o.groups), groupUrl((u * 13 + 5) % o.groups), userUrl((u * 31 + 7) % o.users), pick(realOff)];
    const t = pick(realTexts);
    const body = `${globalNav}\n<div id="content"><h1>用户${u}</h1><div class="user-intro">${esc(blurb(t))}</div><div class="groups"><h2>常去的小组</h2>${links.map((l) => `<a href="${l}">${esc(pick(realTexts).title.slice(0, 20))}</a>`).join(' ')}</div></div>\n${footer}`;
    write(userUrl(u), page(`用户${u}`, body), 'generated', 0, 'douban-user', [...DOUBAN_NAV.map(([x]) => x), ...links, ...DOUBAN_FOOTER.map(([x]) => x)]);
  }
  for (let g = 0; g < o.groups; g++) {
    const t = pick(realTexts);
    const links = [userUrl((g * 17 + 1) % o.users), userUrl((g * 29 + 3) % o.users), groupUrl((g + 1) % o.groups), pick(realOff)];
    const body = `${globalNav}\n<div id="content"><h1>${esc(t.title.slice(0, 40))}</h1><div class="topic-content"><p>${esc(blurb(t))}</p><p>${esc(blurb(t))}</p></div><div class="replies">${links.map((l) => `<a href="${l}">回应</a>`).join(' ')}</div></div>\n${footer}`;
    write(groupUrl(g), page(t.title.slice(0, 40), body), 'generated', 0, 'douban-group', [...DOUBAN_NAV.map(([x]) => x), ...links, ...DOUBAN_FOOTER.map(([x]) => x)]);
  }
  for (const [u, title] of [...DOUBAN_NAV, ...DOUBAN_FOOTER]) {
    if (served.has(u)) continue;
    const links = [...Array(10).keys()].map(() => (rnd() < 0.5 ? groupUrl(Math.floor(rnd() * o.groups)) : pick(realOff)));
    write(u, page(`豆瓣${title}`, `${globalNav}\n<div id="content"><h1>${title}</h1><ul>${links.map((l) => `<li><a href="${l}">${esc(pick(realTexts).title.slice(0, 30))}</a></li>`).join('')}</ul></div>\n${footer}`), 'generated', 0, 'douban-section', [...DOUBAN_NAV.map(([x]) => x), ...links]);
  }

  // the news site: front page → articles (off-topic, real text) → a few tunnel chains → a film page
  const articleUrl = (n: number) => `${CITY}article/${n}.html`;
  const tunnelUrl = (chain: number, step: number) => `${CITY}column/${chain}/${step}.html`;
  const chains = Math.max(1, Math.floor(o.tunnelSiteArticles / 40));
  for (let n = 0; n < o.tunnelSiteArticles; n++) {
    const t = pick(realTexts);
    const links = [articleUrl((n + 1) % o.tunnelSiteArticles), articleUrl((n * 7 + 3) % o.tunnelSiteArticles), t.url];
    if (n % 40 === 39) links.push(tunnelUrl(Math.floor(n / 40) % chains, 0));
    // every tenth article carries an ad of the aggregator site (off by default: the aggregator's Douban
    // links would be a road around the tunnel this site exists to test; eval/crawl/ANALYSIS.md)
    const ad = o.newsSiteAds && o.aggregatorPages > 0 && n % 10 === 5 ? aggUrl((n * 3) % o.aggregatorPages) : undefined;
    const body = `<div class="nav"><a href="${CITY}">首页</a></div><div class="article"><h1>${esc(t.title.slice(0, 40))}</h1><p>${esc(blurb(t))}</p><p>${esc(blurb(t))}</p></div><div class="more">${links.map((l) => `<a href="${l}">相关阅读</a>`).join(' ')}</div>${ad ? `<div class="promo"><a href="${ad}">热门电影免费在线观看</a></div>` : ''}`;
    if (ad) links.push(ad);
    write(articleUrl(n), page(t.title.slice(0, 40), body), 'generated', 0, 'tunnel-site', links);
  }
  for (let c = 0; c < chains; c++) {
    for (let s = 0; s < o.tunnelDepth; s++) {
      const t = pick(realTexts);
      const last = s + 1 >= o.tunnelDepth;
      const next = last ? [pick(filmTargets), pick(filmTargets), realFilmUrls[c % Math.max(1, realFilmUrls.length)] ?? pick(filmTargets)] : [tunnelUrl(c, s + 1)];
      // the last tunnel page names the films it links to (anchor text), as a culture column would
      const anchor = (l: string) => (last ? `《${esc(nameOfUrl(l, filmBySid))}》` : '延伸阅读');
      const body = `<div class="article"><h1>${esc(t.title.slice(0, 40))}</h1><p>${esc(blurb(t))}</p></div><div class="more">${next.map((l) => `<a href="${l}">${anchor(l)}</a>`).join(' ')}</div>`;
      write(tunnelUrl(c, s), page(t.title.slice(0, 40), body), 'generated', 0, 'tunnel', next);
    }
  }
  const front = [...[...Array(Math.min(20, o.tunnelSiteArticles)).keys()].map(articleUrl), ...[...Array(chains).keys()].map((c) => tunnelUrl(c, 0))];
  write(CITY, page('城市新闻网', `<div class="nav"><a href="${CITY}">首页</a></div><ul>${front.map((u, i) => `<li><a href="${u}">要闻${i + 1}</a></li>`).join('')}</ul>`), 'generated', 0, 'tunnel-site', front);

  // 5. 004's fake-keyword pages and modest pages (crawl-test-web.md has no such part; added for 004's claim):
  //    an aggregator site whose pages are stuffed with film words and whose links lead to ads, a
  //    merchandise shop and each other (and once per page to the film's Douban page, as such sites cite
  //    their rating source); a personal blog whose diary posts have few film words but link to films;
  //    a link directory listing both (the fake-keywords seed set). All off-topic in the gold.
  const rnd2 = mulberry32(o.seed + 1);
  const { pick: pick2, blurb: blurb2 } = draws(rnd2);
  const adUrl = (k: number) => `${AD_HOST}lp/${k}.html`;
  const shopUrl = (k: number) => `${SHOP}item/${k}.html`;
  const filmName = () => pick2(filmList).name;
  const STUFFING = '最新电影 热门电影 高清电影 免费电影 电影下载 在线观看 电影 影片 导演 主演 编剧 上映 票房 剧情 影评 预告片 豆瓣评分 动作片 喜剧片 爱情片 科幻片 恐怖片 电视剧 动画片 纪录片 院线 首映';
  if (o.aggregatorPages > 0 && filmList.length > 0) {
    for (let n = 0; n < o.aggregatorPages; n++) {
      const names = [...Array(12).keys()].map(filmName);
      const source = pick2(filmList);
      const ads = [...Array(12).keys()].map(() => Math.floor(rnd2() * Math.max(1, o.adPages)));
      const shops = [...Array(3).keys()].map(() => Math.floor(rnd2() * Math.max(1, o.shopPages)));
      const farm = [1, 2, 3].map((d) => (n * 5 + d * 11) % o.aggregatorPages).filter((m) => m !== n);
      const items = [
        ...(o.adPages > 0 ? ads.map((k, i) => `<li><a href="${adUrl(k)}">《${esc(names[i]!)}》高清下载</a><p>${esc(names[i]!)}完整版 免费在线观看 导演 主演 剧情 高清资源 无删减</p></li>`) : []),
        ...(o.shopPages > 0 ? shops.map((k) => `<li><a href="${shopUrl(k)}">${esc(pick2(names))}同款周边</a><p>电影海报 手办 T恤 限时特价</p></li>`) : []),
        ...farm.map((m) => `<li><a href="${aggUrl(m)}">${esc(filmName())}在线观看</a><p>最新电影 高清免费 抢先看</p></li>`),
        `<li><a href="${subjectUrl(source.sid)}">${esc(source.name)} 豆瓣评分</a></li>`,
      ];
      const links = [...(o.adPages > 0 ? ads.map(adUrl) : []), ...(o.shopPages > 0 ? shops.map(shopUrl) : []), ...farm.map(aggUrl), subjectUrl(source.sid)];
      const body = `<div class="keywords"><p>${STUFFING} ${names.map(esc).join(' ')}</p></div>\n<h1>${esc(names[0]!)}在线观看 高清电影免费下载</h1>\n<ul class="list">${items.join('\n')}</ul>`;
      write(aggUrl(n), page(`${names[0]}在线观看_${names[1]}高清下载_最新电影免费看 - 影视大全`, body), 'generated', 0, 'fake-keyword-aggregator', links);
    }
    for (let k = 0; k < o.adPages; k++) {
      const t = pick2(realTexts);
      const links = [adUrl((k * 13 + 1) % o.adPages), adUrl((k * 7 + 2) % o.adPages), ...(o.shopPages > 0 ? [shopUrl(k % o.shopPages)] : []), AGGREGATOR];
      const body = `<h1>《${esc(filmName())}》高清资源 请下载APP观看</h1><div class="lp"><p>注册即送会员 新人礼包 点击领取 限时免费 手机扫码下载 充值返现</p><p>${esc(blurb2(t))}</p></div><div class="more">${links.map((l) => `<a href="${l}">立即领取</a>`).join(' ')}</div>`;
      write(adUrl(k), page('点击领取 新人礼包 - 推广', body), 'generated', 0, 'fake-keyword-ad', links);
    }
    for (let k = 0; k < o.shopPages; k++) {
      const t = pick2(realTexts);
      const links = [shopUrl((k + 1) % o.shopPages), shopUrl((k * 7 + 3) % o.shopPages), SHOP];
      const body = `<h1>${esc(filmName())}同款 海报 T恤</h1><div class="item"><p>商品详情 价格 ¥59 包邮 加入购物车 尺码 颜色 销量 累计评价 正品保证 七天无理由退货</p><p>${esc(blurb2(t))}</p></div><div class="more">${links.map((l) => `<a href="${l}">看看别的</a>`).join(' ')}</div>`;
      write(shopUrl(k), page('周边商城 - 商品详情', body), 'generated', 0, 'fake-keyword-shop', links);
    }
    const shopFront = [...Array(Math.min(20, o.shopPages)).keys()].map(shopUrl);
    if (o.shopPages > 0) write(SHOP, page('周边商城', `<ul>${shopFront.map((u, i) => `<li><a href="${u}">商品${i + 1}</a></li>`).join('')}</ul>`), 'generated', 0, 'fake-keyword-shop', shopFront);
  }
  if (o.blogPosts > 0 && filmList.length > 0) {
    const anchors = ['这一部', '还有这部', '朋友推荐的', '豆瓣链接'];
    for (let n = 0; n < o.blogPosts; n++) {
      const t = pick2(realTexts);
      const films = anchors.map(() => subjectUrl(pick2(filmList).sid));
      const links = [...films, blogUrl((n + 1) % o.blogPosts), BLOG];
      const body = `<div class="post"><h1>小影的日常 · 第${n + 1}篇</h1><p>${esc(blurb2(t))}</p><p>${esc(blurb2(t))}</p><p>这周末在家，顺手记下看过的几部：${films.map((f, i) => `<a href="${f}">${anchors[i]}</a>`).join('，')}。</p></div><div class="more"><a href="${blogUrl((n + 1) % o.blogPosts)}">下一篇</a> <a href="${BLOG}">博客首页</a></div>`;
      write(blogUrl(n), page(`小影的日常 · 第${n + 1}篇`, body), 'generated', 0, 'modest-blog', links);
    }
    const posts = [...Array(o.blogPosts).keys()].map(blogUrl);
    write(BLOG, page('小影的日常', `<ul>${posts.map((u, i) => `<li><a href="${u}">第${i + 1}篇</a></li>`).join('')}</ul>`), 'generated', 0, 'modest-blog', posts);
  }
  if (o.aggregatorPages > 0 || o.blogPosts > 0) {
    // a link directory (hao123 style): the fake-keywords seed set starts here
    const entries: { url: string; text: string }[] = [];
    for (let i = 0; i < 10; i++) {
      if (o.aggregatorPages > 0) entries.push({ url: aggUrl((i * 6) % o.aggregatorPages), text: `影视大全${i + 1}：最新电影 高清电影 免费在线观看 热门电视剧` });
      if (o.blogPosts > 0) entries.push({ url: blogUrl((i * 4) % o.blogPosts), text: `小影的日常 · 第${((i * 4) % o.blogPosts) + 1}篇：一个普通人的周末记录` });
      entries.push({ url: pick2(realOff), text: pick2(realTexts).title.slice(0, 30) });
    }
    const uniq = [...new Map(entries.map((e) => [e.url, e])).values()];
    write(DIRECTORY, page('娱乐导航', `<h1>娱乐导航</h1><ul class="list">${uniq.map((e) => `<li><a href="${e.url}">${esc(e.text.split('：')[0]!)}</a><p>${esc(e.text)}</p></li>`).join('\n')}</ul>`), 'generated', 0, 'directory', uniq.map((e) => e.url));
  }

  // 4. manners: robots.txt, a redirect, an error page, a slow page
  const robots = (host: string, text: string) => {
    const rel = join('gen', host, 'robots.txt');
    mkdirSync(dirname(join(out, rel)), { recursive: true });
    writeFileSync(join(out, rel), text);
    manifest.push(`http://${host}/robots.txt\t${rel}\tgenerated`);
  };
  robots('movie.douban.com', 'User-agent: *\nDisallow: /subject/*/comments\nDisallow: /search\n');
  robots('www.newsportal.example', 'User-agent: *\nDisallow: /private/\n');
  manifest.push(`${DOUBAN}/top250?start=0\tredirect:${DOUBAN}/top250\tgenerated`);
  write(`${PORTAL}private/report.html`, page('内部报告', '<p>robots.txt 不允许抓取本页。</p>'), 'generated', 0, 'robots-disallowed', []);
  manifest.push(`${CITY}broken.html\tstatus:500\tgenerated`);

  const firstFilm = filmList[0] ? subjectUrl(filmList[0].sid) : undefined;
  const seeds: Record<string, string[]> = {
    'on-topic': [realFilmUrls.find((u) => /top250/u.test(u)) ?? realFilmUrls[0] ?? firstFilm, realFilmUrls.find((u) => /1905\.com/u.test(u))].filter((u): u is string => !!u),
    'mixed-portal': [PORTAL, realTexts.find((t) => /douban\.com\/note/u.test(t.url))?.url ?? realTexts[0]!.url],
    'off-topic-tunnel': [CITY],
    ...(o.aggregatorPages > 0 || o.blogPosts > 0 ? { 'fake-keywords': [DIRECTORY] } : {}),
  };
  writeFileSync(join(out, 'manifest.tsv'), `${manifest.join('\n')}\n`);
  writeFileSync(join(out, 'gold.tsv'), `url\trelevant\tgrade\tprovenance\tkind\n${gold.map((g) => `${g.url}\t${g.relevant}\t${g.grade}\t${g.provenance}\t${g.kind}`).join('\n')}\n`);
  writeFileSync(join(out, 'seeds.tsv'), `set\turl\n${Object.entries(seeds).flatMap(([k, us]) => us.map((u) => `${k}\t${u}`)).join('\n')}\n`);
  writeFileSync(join(out, 'graph.tsv'), `${edges.join('\n')}\n`);
  const real = gold.filter((g) => g.provenance === 'real').length;
  return { pages: gold.length, real, generated: gold.length - real, relevant: gold.filter((g) => g.relevant).length, edges: edges.length - 1, seeds };
}

function nameOfUrl(url: string, films: Map<string, Film>): string {
  const m = /\/subject\/(\d+)\//u.exec(url);
  return (m && films.get(m[1])?.name) || '电影';
}

/** Reads the shared data folder: html/MANIFEST.tsv pages, the three KG sources, film facts. */
export async function loadTestWebInputs(dataDir: string, onProgress?: (m: string) => void): Promise<TestWebInputs> {
  const htmlDir = join(dataDir, 'html');
  let manifest: string;
  try {
    manifest = readFileSync(join(htmlDir, 'MANIFEST.tsv'), 'utf8');
  } catch (err) {
    throw inputError(`crawl testweb: ${join(htmlDir, 'MANIFEST.tsv')}: cannot read (${(err as Error).message}); pass --data <folder with html/ and kg/>`, err);
  }
  const lines = manifest.split(/\r?\n/u);
  const head = lines[0]!.split('\t');
  const col = (name: string) => {
    const i = head.indexOf(name);
    if (i < 0) throw inputError(`crawl testweb: ${join(htmlDir, 'MANIFEST.tsv')}:1: no column ${name}`);
    return i;
  };
  const [cPath, cType, cUrl] = [col('path'), col('page_type'), col('url_or_note')];
  const pages: RealPage[] = [];
  for (const line of lines.slice(1)) {
    if (!line.trim()) continue;
    const f = line.split('\t');
    const url = /^https?:\/\//u.test(f[cUrl] ?? '') ? f[cUrl] : undefined;
    pages.push({ path: join(htmlDir, f[cPath]!), pageType: f[cType] ?? '', ...(url ? { url } : {}) });
  }
  const kgDir = join(dataDir, 'kg');
  onProgress?.('crawl testweb: importing the KG (douban-movies-2065, douban-kgqa-small, openkg-douban-movie)');
  const { importSources } = await import('../kg/import.js');
  const { data } = await importSources(
    [`douban-csv:${join(kgDir, 'douban-movies-2065')}`, `kgqa:${join(kgDir, 'douban-kgqa-small')}`, `openkg:${join(kgDir, 'openkg-douban-movie')}`],
    { builder: { minePlayed: false }, tagger: null },
  );
  const facts = new Map<string, FilmFacts>();
  const csv = parseCsv(readFileSync(join(kgDir, 'douban-movies-2065', 'douban_all_movies.csv')), { columns: true, bom: true, relax_column_count: true }) as Record<string, string>[];
  for (const r of csv) {
    if (!/^\d+$/u.test(r.movie_id ?? '')) continue;
    facts.set(r.movie_id!, { summary: r.summary || undefined, year: /^\d{4}/u.exec(r.release_date ?? '')?.[0], countries: r.countries || undefined });
  }
  for (const line of readFileSync(join(kgDir, 'douban-kgqa-small', 'small_movie_info.txt'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as { id?: string; summary?: string };
      if (r.id && r.summary && !facts.get(r.id)?.summary) facts.set(r.id, { ...facts.get(r.id), summary: r.summary.trim() });
    } catch {
      // a bad line of the source: the KG import already reported it; the page is rendered without summary
    }
  }
  return { pages, kg: data, facts };
}
