/**
 * The raw-text cut (src/html/rawtext.ts) on every real page of ../shared/data/html (or $FILMKW_DATA/html;
 * skipped with a message when absent): same tree, head and extraction (text, title, author, date,
 * warnings) with and without the cut, no fallback.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { parseTree } from '../../../src/html/tree.js';
import { decodeHtml } from '../../../src/html/decode.js';
import { mainTextOfBytes } from '../../../src/html/maintext.js';
import { same } from '../../html/same-parse.js';
import { HTML_DIR, realPages } from './real-pages.js';

test('real pages: same tree, head and extraction with and without the cut (by default and on every page); no fallback', { skip: !existsSync(HTML_DIR) && 'needs ../shared/data/html' }, () => {
  const pages = realPages();
  assert.ok(pages.length >= 190, `${pages.length} pages`);
  let cutPages = 0;
  let sharePages = 0;
  for (const p of pages) {
    const bytes = readFileSync(p);
    const run = (cutRawText: boolean): unknown => {
      try {
        const r = mainTextOfBytes(bytes, { path: p, cutRawText });
        return { text: r.text, title: r.title, author: r.author, date: r.date, warnings: r.warnings, encoding: r.encoding, meta: r.meta };
      } catch (e) {
        return { error: (e as Error).message };
      }
    };
    assert.deepEqual(run(true), run(false), p);
    let html: string;
    try {
      html = decodeHtml(bytes, { path: p }).html;
    } catch {
      continue; // bad pages: the error record above is the same
    }
    const c = same(html, p); // cut whatever the share
    assert.equal(c.fallback, false, `${p}: fell back to the uncut parse`);
    if (c.cuts) cutPages++;
    if (parseTree(html).cut.cuts) sharePages++;
  }
  assert.ok(cutPages >= 150, `${cutPages} pages cut`);
  assert.ok(sharePages >= 20 && sharePages < cutPages, `${sharePages} pages cut by default (script/style ≥ half the page)`);
});
