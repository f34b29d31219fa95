/**
 * The crawl's output writers (Scrapy's item pipeline): the journal and index.jsonl lines, the WARC 1.1
 * response records (warcio), texts.jsonl (main text of the saved pages), pages/ (their HTML) and the
 * staged bodies of pages whose save waits for their two-step score (.state/pending/). The four
 * append-only files stay open for the whole crawl (one open per file, not one per page: opening per page
 * was a sizeable share of a crawl's CPU time, bench/README.md "Figures behind code comments"); each write is unbuffered write(2) calls, so a kill loses at most the line being
 * written, which the resume cuts off (journal.ts).
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { dirname, join } from 'node:path';
import { WARCRecord, WARCSerializer } from 'warcio';
import { htmlBytesToRecord } from '../html/index.js';
import { indexLine, type CrawlPaths, type JournalEvent } from './journal.js';
import { pageFileName, urlHash } from './url.js';

/** The empty outputs of a new crawl: metadata, empty journal / index / texts, a WARC with its warcinfo record. */
export async function createOutputs(p: CrawlPaths, meta: Record<string, unknown>): Promise<void> {
  writeFileSync(p.meta, `${JSON.stringify(meta, null, 2)}\n`);
  for (const f of [p.journal, p.index, p.texts]) writeFileSync(f, '');
  writeFileSync(p.warc, await WARCSerializer.serialize(WARCRecord.createWARCInfo({ filename: 'crawl.warc.gz', warcVersion: 'WARC/1.1' }, { software: 'filmkw crawl', format: 'WARC File Format 1.1' }), { gzip: true }));
}

/** An append-only file kept open; `write` appends all of `data` or throws. */
class Appender {
  private fd = -1;
  constructor(private readonly path: string) {}
  write(data: string | Uint8Array): void {
    if (this.fd < 0) this.fd = openSync(this.path, 'a');
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    for (let off = 0; off < buf.length; ) off += writeSync(this.fd, buf, off, buf.length - off);
  }
  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

export class CrawlOutputs {
  private readonly journal: Appender;
  private readonly index: Appender;
  private readonly texts: Appender;
  private readonly warc: Appender;
  /** Bytes in crawl.warc.gz and texts.jsonl (journalled with each fetch and save event). */
  warcSize: number;
  textsSize: number;

  constructor(private readonly p: CrawlPaths) {
    this.journal = new Appender(p.journal);
    this.index = new Appender(p.index);
    this.texts = new Appender(p.texts);
    this.warc = new Appender(p.warc);
    this.warcSize = statSync(p.warc).size;
    this.textsSize = existsSync(p.texts) ? statSync(p.texts).size : 0;
  }

  /** A journal line (and, for a fetch, its index line). */
  event(e: JournalEvent): void {
    this.journal.write(`${JSON.stringify(e)}\n`);
    if (e.t === 'fetch') this.index.write(`${indexLine(e)}\n`);
  }

  /** A WARC response record of a fetched body. */
  async response(url: string, status: number, headers: Record<string, string>, body: Uint8Array): Promise<void> {
    const rec = WARCRecord.create({ url, date: new Date().toISOString(), type: 'response', warcVersion: 'WARC/1.1', httpHeaders: headers, statusline: `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}` }, [body]);
    const bytes = await WARCSerializer.serialize(rec, { gzip: true, preferPako: true });
    this.warc.write(bytes);
    this.warcSize += bytes.length;
  }

  /** Main text of a saved page → texts.jsonl; returns it (the DTFL buffer takes it too), null when the page has none. */
  text(url: string, body: Uint8Array): { title: string; text: string } | null {
    const text = htmlBytesToRecord(body, url);
    if ('error' in text) return null;
    const line = `${JSON.stringify({ id: url, url, title: text.title, text: text.text })}\n`;
    this.texts.write(line);
    this.textsSize += Buffer.byteLength(line);
    return text;
  }

  /** A saved page's file under pages/ (its folder created). */
  private pageFile(url: string): string {
    const file = join(this.p.pages, pageFileName(url));
    mkdirSync(dirname(file), { recursive: true });
    return file;
  }

  page(url: string, body: Uint8Array): void {
    writeFileSync(this.pageFile(url), body);
  }

  private stagedPath(url: string): string {
    return join(this.p.pending, `${urlHash(url)}.html`);
  }

  /** Keeps the body of a page whose save waits for its two-step score. */
  stage(url: string, body: Uint8Array): void {
    writeFileSync(this.stagedPath(url), body);
  }

  /**
   * The staged page is saved: its text written, the staged file renamed to the page file (not a second
   * file written). A kill after the rename and before the save line: the page file holds the body.
   */
  keepStaged(url: string): void {
    const staged = this.stagedPath(url);
    const file = this.pageFile(url);
    if (existsSync(staged)) {
      this.text(url, readFileSync(staged));
      renameSync(staged, file);
    } else if (existsSync(file)) this.text(url, readFileSync(file));
  }

  dropStaged(url: string): void {
    rmSync(this.stagedPath(url), { force: true });
  }

  close(): void {
    for (const a of [this.journal, this.index, this.texts, this.warc]) a.close();
  }
}
