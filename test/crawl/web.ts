/**
 * Small webs for the crawler tests: pages written to a temporary folder with a replay manifest, served
 * on 127.0.0.1 by the real replay server. Film pages use the film vocabulary of the static library
 * (src/crawl/topic.ts), so they are relevant without any KG; off-topic pages use none of it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReplay, type ReplayOptions, type ReplayServer } from '../../src/crawl/replay.js';
import { resolveCrawlOptions, type CrawlOptions } from '../../src/crawl/options.js';
import type { CrawlResources } from '../../src/crawl/crawler.js';

export interface WebPage {
  url: string;
  /** Page bytes or HTML; absent with `special` (redirect:…, status:…). */
  body?: string | Uint8Array;
  special?: string;
  contentType?: string;
}

export const filmPage = (title: string, links: string[], extra = ''): string =>
  `<html><head><title>${title} 电影</title><meta name="filmkw-generated" content="x"></head><body><div id="nav" class="nav"><a href="/">首页</a></div>` +
  `<h1>${title}</h1><div class="info">导演: 某人 主演: 某人 类型: 剧情 上映日期: 2020 片长: 120分钟 又名: ${title}</div>` +
  `<div class="summary"><p>这部电影的剧情简介：影片讲述了一个故事，导演和编剧合作，主演表演出色，票房很好，影评很多，豆瓣评分很高。${extra}</p></div>` +
  `<ul class="links">${links.map((l, i) => `<li><a href="${l}">${title}相关电影${i}</a></li>`).join('')}</ul></body></html>`;

export const offPage = (title: string, links: string[]): string =>
  `<html><head><title>${title}</title></head><body><h1>${title}</h1><div class="article"><p>今天的天气很好，市场上的蔬菜价格平稳，居民出行方便，公园里有很多人散步，城市交通运行正常。</p></div>` +
  `<ul>${links.map((l, i) => `<li><a href="${l}">新闻${i}</a></li>`).join('')}</ul></body></html>`;

export function writeWeb(pages: readonly WebPage[]): { dir: string; manifest: string } {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-web-'));
  const lines = ['url\tfile\tlabel\tcontent_type'];
  pages.forEach((p, i) => {
    let file = p.special;
    if (!file) {
      file = `p${i}.html`;
      writeFileSync(join(dir, file), p.body ?? '');
    }
    lines.push(`${p.url}\t${file}\ttest\t${p.contentType ?? ''}`);
  });
  writeFileSync(join(dir, 'manifest.tsv'), `${lines.join('\n')}\n`);
  return { dir, manifest: join(dir, 'manifest.tsv') };
}

/**
 * Serves `pages` with the replay server. With `front`, the crawler talks to a server the test controls in
 * front of it, which never closes an idle keep-alive connection and forwards each request on a connection
 * of its own: a crawler process that pauses longer than the replay server's keep-alive timeout (a DTFL
 * update on a loaded machine) would otherwise send its next request on a socket the server is closing and
 * get a connection reset, and a test comparing two crawls of the same web needs every fetch to succeed.
 */
export async function serveWeb(pages: readonly WebPage[], opts: { front?: boolean; replay?: ReplayOptions } = {}): Promise<ReplayServer & { dir: string }> {
  const { dir, manifest } = writeWeb(pages);
  const s = await startReplay([manifest], opts.replay);
  if (!opts.front) return Object.assign(s, { dir, close: s.close });
  const f = await frontServer(s.port);
  const closeReplay = s.close;
  return Object.assign(s, { dir, port: f.port, url: f.url, close: async () => (await f.close(), await closeReplay()) });
}

/** A forwarding HTTP server on 127.0.0.1 without idle timeout (see {@link serveWeb}). */
async function frontServer(targetPort: number): Promise<{ port: number; url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const headers = { ...req.headers };
    delete headers.connection;
    delete headers['keep-alive'];
    const up = request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers, agent: false }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  server.keepAliveTimeout = 0; // idle connections stay open until the client closes them
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Resources without KG: the hand lists only; IDF off; DTFL keywords = the longest Han words of the text. */
export const plainResources: CrawlResources = {
  kg: null,
  idf: () => 1,
  keywords: (text, k) => [...new Set(text.match(/\p{Script=Han}{4}/gu) ?? [])].slice(0, k),
};

/** Options of the small-web tests: no IDF, η 0.1, and the sequential order (concurrency 1) unless a test asks for more. */
export const opts = (o: Partial<CrawlOptions>): Readonly<CrawlOptions> => resolveCrawlOptions({ idfSource: 'none', threshold: 0.1, concurrency: 1, ...o });

/** A chain web: a film hub with `n` film pages and `m` off-topic pages, all linked from the hub. */
export function hubWeb(n: number, m: number, host = 'films.example'): WebPage[] {
  const films = [...Array(n).keys()].map((i) => `http://${host}/film/${i}`);
  const offs = [...Array(m).keys()].map((i) => `http://news.example/a/${i}`);
  return [
    { url: `http://${host}/`, body: filmPage('首页', [...films, ...offs]) },
    ...films.map((u, i) => ({ url: u, body: filmPage(`影片${i}`, [films[(i + 1) % n]!, offs[i % Math.max(1, m)] ?? films[0]!]) })),
    ...offs.map((u, i) => ({ url: u, body: offPage(`新闻${i}`, [offs[(i + 1) % m]!]) })),
  ];
}

/** `hosts` sites of `pages` pages each: film pages linking the next pages of their site and one page of the next site. */
export function manyHostWeb(hosts: number, pages: number, offEvery = 0): WebPage[] {
  const url = (h: number, p: number) => `http://h${h}.example/${p === 0 ? '' : `p/${p}`}`;
  const out: WebPage[] = [];
  for (let h = 0; h < hosts; h++) {
    for (let p = 0; p < pages; p++) {
      const links = [url(h, (p + 1) % pages), url(h, (p + 2) % pages), url((h + 1) % hosts, (p + 3) % pages)];
      const off = offEvery > 0 && (h * pages + p) % offEvery === offEvery - 1;
      out.push({ url: url(h, p), body: off ? offPage(`站点${h}新闻${p}`, links) : filmPage(`站点${h}影片${p}号`, links) });
    }
  }
  return out;
}
