/**
 * src/html/vips.ts on hand-made layouts (no browser), and src/html/render.ts on the fixture pages
 * (skipped without Debian's chromium at /usr/bin/chromium).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findRecordsVisual, type LayoutNode } from '../../src/html/vips.js';
import { recordsOfFile } from '../../src/html/records.js';

const FIX = fileURLToPath(new URL('../fixtures/html/records/', import.meta.url));
const noChromium = !existsSync('/usr/bin/chromium') && 'needs Debian chromium at /usr/bin/chromium (apt-get install chromium)';

const WHITE = 'rgb(255, 255, 255)';
const NONE = 'rgba(0, 0, 0, 0)';
/** A page: body > [nav (6 links), list (n rows), side box, fixed ad with an image]. */
function layout(rows: number, opts: { rowBg?: (i: number) => string; rowH?: (i: number) => number } = {}): LayoutNode[] {
  const n: LayoutNode[] = [];
  const add = (parent: number, tag: string, x: number, y: number, w: number, h: number, ownText: number, extra: Partial<LayoutNode> = {}): number => {
    n.push({ parent, tag, cls: '', x, y, w, h, bg: NONE, font: 14, position: 'static', display: 'block', ownText, ...extra });
    return n.length - 1;
  };
  const body = add(-1, 'body', 0, 0, 1000, 2000, 0, { bg: WHITE });
  const nav = add(body, 'div', 0, 0, 1000, 40, 0);
  for (let i = 0; i < 6; i++) add(nav, 'a', i * 80, 0, 70, 40, 4, { display: 'inline' });
  const list = add(body, 'ul', 100, 100, 600, rows * 100, 0);
  for (let i = 0; i < rows; i++) {
    const li = add(list, 'li', 100, 100 + i * 100, 600, opts.rowH ? opts.rowH(i) : 90, 0, { bg: opts.rowBg ? opts.rowBg(i) : NONE });
    add(li, 'a', 100, 100 + i * 100, 300, 20, 12, { display: 'inline' });
    add(li, 'p', 100, 130 + i * 100, 600, 40, 40);
  }
  const side = add(body, 'div', 750, 100, 200, 300, 0);
  for (let i = 0; i < 3; i++) add(side, 'p', 750, 100 + i * 30, 200, 20, 6);
  const ad = add(body, 'div', 900, 900, 100, 100, 10, { position: 'fixed' });
  add(ad, 'img', 900, 900, 100, 80, 0);
  return n;
}

test('base block near the centre, its similar siblings are the records', () => {
  const nodes = layout(8);
  const r = findRecordsVisual(nodes, { width: 1000, height: 2000 }, 0);
  assert.equal(r.records.length, 8);
  assert.ok(r.records.every((i) => nodes[i].tag === 'li'));
  assert.equal(r.base?.siblings, 7);
  assert.equal(r.noise.rule2, 1);
});

test('rule 1: a bar of links only is noise', () => {
  const nodes = layout(3);
  // make the nav 5 links inside a div of links only: 6 elements, 5 links → 83 %, kept; drop the div → 100 %
  const r = findRecordsVisual(nodes, { width: 1000, height: 2000 }, 0);
  assert.equal(r.noise.rule1, 0);
  const links: LayoutNode[] = [{ parent: -1, tag: 'body', cls: '', x: 0, y: 0, w: 1000, h: 500, bg: WHITE, font: 14, position: 'static', display: 'block', ownText: 0 }];
  for (let i = 0; i < 20; i++) links.push({ parent: 0, tag: 'a', cls: '', x: 0, y: i * 20, w: 300, h: 20, bg: NONE, font: 14, position: 'static', display: 'block', ownText: 8 });
  // the body is never removed, but a links-only region below it is
  const wrapped: LayoutNode[] = [links[0], { ...links[0], parent: 0, tag: 'div' }, ...links.slice(1).map((l) => ({ ...l, parent: 1 }))];
  const w = findRecordsVisual(wrapped, { width: 1000, height: 500 }, 0);
  assert.equal(w.noise.rule1, 1);
  assert.deepEqual(w.records, []);
});

test('similarity: other background colours or very different heights are not similar', () => {
  const striped = layout(6, { rowBg: (i) => (i === 2 ? 'rgb(255, 0, 0)' : NONE) });
  assert.equal(findRecordsVisual(striped, { width: 1000, height: 2000 }, 0).records.length, 5);
  const tall = layout(6, { rowH: (i) => (i === 0 ? 900 : 90) });
  assert.equal(findRecordsVisual(tall, { width: 1000, height: 2000 }, 0).records.length, 5);
});

test('rule 3: blocks shorter than the copyright line are not records', () => {
  const nodes = layout(5);
  assert.equal(findRecordsVisual(nodes, { width: 1000, height: 2000 }, 20).records.length, 5); // rows hold 52 chars
  assert.equal(findRecordsVisual(nodes, { width: 1000, height: 2000 }, 60, { copyrightCap: 60 }).records.length, 0);
});

test('rendered mode on the fixture pages (chromium)', { skip: noChromium }, async () => {
  const { createRecordRenderer } = await import('../../src/html/render.js');
  const r = await createRecordRenderer();
  try {
    const page = await recordsOfFile(`${FIX}douban-list.html`, 'douban-list.html', { renderer: r });
    assert.equal(page.mode, 'rendered');
    assert.deepEqual(page.lines.map((l) => ('subjectId' in l ? l.subjectId : '?')), ['1000001', '1000002', '1000003', '1000004']);
    assert.ok(page.lines.every((l) => 'mode' in l && l.mode === 'rendered'));
    const bad = await recordsOfFile(`${FIX}empty.html`, 'empty.html', { renderer: r });
    assert.ok('error' in bad.lines[0]);
    // the page cannot reach the network: a remote image must not delay or break the load
    assert.match(readFileSync(`${FIX}douban-list.html`, 'utf8'), /ad\.gif/);
  } finally {
    await r.close();
  }
});
