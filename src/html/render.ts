/**
 * Rendered mode of `filmkw html records`: Debian's chromium (/usr/bin/chromium, never a downloaded
 * browser) driven by playwright-core. Each page is loaded from its decoded text with every request
 * blocked but data: URLs and about:blank (no network, and no file: URL either: a saved page must not
 * read the local disk; below the router, every host name resolves to nothing, {@link NETWORK_BLOCK_ARGS},
 * and refresh elements are cut out, {@link withoutRefresh}), and scripts off, its layout is collected (box,
 * background colour, font size, position, display, own text of every element) and handed to the
 * visual record finder (src/html/vips.ts); the record blocks come back as outer HTML.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { Parser } from 'htmlparser2';
import { importOptional } from '../util/optional.js';
import { inputError } from '../errors.js';
import { CHROMIUM_PATH, type RecordRenderer } from './records.js';
import { findRecordsVisual, type LayoutNode, type VisualOptions } from './vips.js';

export interface RenderOptions {
  /** @default '/usr/bin/chromium' */
  executablePath: string;
  /** Viewport width, px (the page centre depends on it). @default 1280 */
  width: number;
  /** Viewport height, px. @default 800 */
  height: number;
  /** Run the page's own scripts (network stays blocked). @default false */
  javaScript: boolean;
  /** Per-page load timeout, ms. @default 15000 */
  timeoutMs: number;
  /** Overrides of the visual record finder's defaults (VISUAL_DEFAULTS, src/html/vips.ts). @default {} */
  visual: Partial<VisualOptions>;
}

export const RENDER_DEFAULTS: Readonly<RenderOptions> = Object.freeze({
  executablePath: CHROMIUM_PATH,
  width: 1280,
  height: 800,
  javaScript: false,
  timeoutMs: 15000,
  visual: Object.freeze({}),
});

/**
 * The network block under the request router (issue 26): every host name, IP literals included, resolves
 * to nothing, so no connection leaves chromium. Needed because the router (Playwright's `route`) does not
 * see every request: `<link rel="prefetch">` and speculation-rules prefetch / prerender are fetched by
 * the browser process and reached a local hit counter with the router alone; preconnect and dns-prefetch
 * open sockets or resolve names without a request at all.
 */
export const NETWORK_BLOCK_ARGS: readonly string[] = Object.freeze(['--host-resolver-rules=MAP * ~NOTFOUND']);

/** Chromium's switches shared with the viewer's browser tests (src/serve/browser.ts), which need the network. */
export const CHROMIUM_ARGS: readonly string[] = Object.freeze([
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]);

/**
 * Chromium's sandbox stays on, except as root: chromium refuses to start as root with its sandbox (it
 * needs an unprivileged user namespace or the setuid helper, which root cannot use), so then
 * `--no-sandbox` is added and {@link sandboxNote} says so on stderr. Pages are still isolated: scripts
 * are off and every request but data: is blocked.
 */
export function chromiumArgs(uid: number | undefined = process.getuid?.()): string[] {
  return [...CHROMIUM_ARGS, ...NETWORK_BLOCK_ARGS, ...(uid === 0 ? ['--no-sandbox'] : [])];
}

/** The stderr note when the sandbox is off, or undefined. */
export function sandboxNote(uid: number | undefined = process.getuid?.()): string | undefined {
  return uid === 0
    ? "html records: running as root, so chromium runs without its sandbox (--no-sandbox; chromium does not start as root otherwise); scripts stay off and every request but data: is blocked. Run as a normal user to keep the sandbox"
    : undefined;
}

/** Whether the rendered page may load a URL: only inline data and the blank page (no network, no file:). */
export const allowedUrl = (url: string): boolean => url.startsWith('data:') || url === 'about:blank';

/**
 * The page without its `<meta http-equiv="refresh">` elements (cut out at htmlparser2's offsets). A refresh
 * would replace the page while its layout is read (an error record, or the records of another page);
 * its request would be blocked anyway. Everything else is left byte for byte.
 */
export function withoutRefresh(html: string): string {
  const cuts: [number, number][] = [];
  const parser = new Parser({
    onopentag(name, attribs) {
      if (name === 'meta' && (attribs['http-equiv'] ?? '').trim().toLowerCase() === 'refresh') cuts.push([parser.startIndex, parser.endIndex + 1]);
    },
  }, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true });
  parser.end(html);
  if (cuts.length === 0) return html;
  let out = '';
  let at = 0;
  for (const [a, b] of cuts) {
    out += html.slice(at, a);
    at = b;
  }
  return out + html.slice(at);
}

/** Runs in the page (as a string, so no compiler helper leaks into it): layout of every element. */
const COLLECT = `(() => {
  const SKIP = new Set(['SCRIPT','STYLE','NOSCRIPT','TEMPLATE','HEAD','META','LINK','TITLE']);
  const nodes = [];
  const els = [];
  const sx = window.scrollX, sy = window.scrollY;
  const walk = (el, parent) => {
    if (SKIP.has(el.tagName)) return;
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden') return;
    const r = el.getBoundingClientRect();
    let own = 0;
    for (const c of el.childNodes) if (c.nodeType === 3) own += c.data.replace(/\\s+/g, '').length;
    const i = nodes.length;
    const cls = (typeof el.className === 'string' ? el.className : '').trim().split(/\\s+/)[0] || '';
    nodes.push({ parent, tag: el.tagName.toLowerCase(), cls, x: r.left + sx, y: r.top + sy, w: r.width, h: r.height,
      bg: cs.backgroundColor, font: parseFloat(cs.fontSize) || 0, position: cs.position, display: cs.display, ownText: own });
    els.push(el);
    for (const c of el.children) walk(c, i);
  };
  walk(document.body || document.documentElement, -1);
  window.__filmkwEls = els;
  let copyright = 0;
  const tw = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  for (let t = tw.nextNode(); t; t = tw.nextNode()) {
    if (/©|copyright|版权所有|版權所有|all rights reserved/i.test(t.data)) {
      const line = (t.parentElement ? t.parentElement.textContent : t.data) || '';
      copyright = Math.max(copyright, line.replace(/\\s+/g, '').length < 400 ? line.replace(/\\s+/g, '').length : t.data.replace(/\\s+/g, '').length);
    }
  }
  const de = document.documentElement;
  return { nodes, copyright, width: Math.max(de.scrollWidth, innerWidth), height: Math.max(de.scrollHeight, innerHeight) };
})()`;

interface Collected {
  nodes: LayoutNode[];
  copyright: number;
  width: number;
  height: number;
}

export class ChromiumRecordRenderer implements RecordRenderer {
  private constructor(
    private readonly browser: Browser,
    private readonly context: BrowserContext,
    readonly opts: RenderOptions,
  ) {}

  static async launch(options: Partial<RenderOptions> = {}): Promise<ChromiumRecordRenderer> {
    const opts = { ...RENDER_DEFAULTS, ...options };
    const { chromium } = await importOptional<typeof import('playwright-core')>('playwright-core', 'html records --mode rendered');
    let browser: Browser;
    try {
      // handleSIG*: false — the CLI owns the signals and closes the browser itself (html-records.ts)
      browser = await chromium.launch({ executablePath: opts.executablePath, args: chromiumArgs(), chromiumSandbox: process.getuid?.() !== 0, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
    } catch (err) {
      throw inputError(`html records: cannot start chromium at ${opts.executablePath}: ${(err as Error).message.split('\n')[0]}`, err);
    }
    try {
      const context = await browser.newContext({ viewport: { width: opts.width, height: opts.height }, javaScriptEnabled: opts.javaScript, serviceWorkers: 'block' });
      await context.route('**/*', (route) => {
        const url = route.request().url();
        return allowedUrl(url) ? route.continue() : route.abort('blockedbyclient');
      });
      return new ChromiumRecordRenderer(browser, context, opts);
    } catch (err) {
      await browser.close();
      throw err;
    }
  }

  /** Layout of a page (for tests and the bench). */
  async layout(html: string): Promise<Collected> {
    const page = await this.context.newPage();
    try {
      await page.setContent(withoutRefresh(html), { waitUntil: 'domcontentloaded', timeout: this.opts.timeoutMs });
      return (await page.evaluate(COLLECT)) as Collected;
    } finally {
      await page.close();
    }
  }

  async recordBlocks(html: string): Promise<string[]> {
    const page = await this.context.newPage();
    try {
      await page.setContent(withoutRefresh(html), { waitUntil: 'domcontentloaded', timeout: this.opts.timeoutMs });
      const c = (await page.evaluate(COLLECT)) as Collected;
      const r = findRecordsVisual(c.nodes, { width: c.width, height: c.height }, c.copyright, this.opts.visual);
      if (r.records.length === 0) return [];
      return (await page.evaluate(`(${JSON.stringify(r.records)}).map((i) => window.__filmkwEls[i].outerHTML)`)) as string[];
    } finally {
      await page.close();
    }
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
    await this.browser.close();
  }
}

/** The factory `filmkw html records` uses for the rendered mode. */
export const createRecordRenderer = (options: Partial<RenderOptions> = {}): Promise<RecordRenderer> => ChromiumRecordRenderer.launch(options);
