/**
 * The nesting cap (src/html/depth.ts) on every real page of ../shared/data/html (or $FILMKW_DATA/html;
 * skipped with a message when absent): no page reaches the cap, and each parses to the same tree as with
 * htmlparser2 alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { parseDocument } from 'htmlparser2';
import render from 'dom-serializer';
import { NESTING_DEFAULTS } from '../../../src/html/depth.js';
import { parseHtmlCapped } from '../../../src/html/structural.js';
import { HTML_DIR, realPages } from './real-pages.js';

test('real pages: none reaches the nesting cap, and each gives the same tree as htmlparser2 alone', { skip: !existsSync(HTML_DIR) && 'needs ../shared/data/html' }, () => {
  const pages = realPages();
  assert.ok(pages.length >= 100, `${pages.length} pages`);
  let deepest = 0;
  for (const p of pages) {
    const html = readFileSync(p, 'latin1');
    const { doc, depth } = parseHtmlCapped(html);
    assert.equal(depth.dropped, 0, p);
    deepest = Math.max(deepest, depth.maxDepth);
    assert.equal(render(doc), render(parseDocument(html, { decodeEntities: true, withStartIndices: true })), p);
  }
  assert.ok(deepest < NESTING_DEFAULTS.maxDepth / 4, `deepest real page: ${deepest} levels`);
});
