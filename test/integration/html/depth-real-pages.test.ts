/**
 * The nesting cap (src/html/depth.ts) on every real page of ../shared/data/html (or $FILMKW_DATA/html;
 * skipped with a message when absent): no page reaches the cap, and each parses to the same tree as with
 * htmlparser2 alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'htmlparser2';
import render from 'dom-serializer';
import { NESTING_DEFAULTS } from '../../../src/html/depth.js';
import { parseHtmlCapped } from '../../../src/html/structural.js';

const HTML_DIR = join(process.env.FILMKW_DATA ?? join(fileURLToPath(new URL('../../../', import.meta.url)), '..', 'shared', 'data'), 'html');
const realPages = (): string[] => {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(d).sort()) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.html?$/i.test(f)) out.push(p);
    }
  };
  walk(HTML_DIR);
  return out;
};

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
