/**
 * src/html/vips.ts on hand-made layouts (no browser); src/html/render.ts in chromium:
 * test/browser/html-rendered.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findRecordsVisual, type LayoutNode } from '../../src/html/vips.js';

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

test('walk up and across (steps 3–4): cousin lists join level by level; a list of other width does not', () => {
  // body > [main > [sec1 > [ul1, ul2], sec2 > [ul3]], aside > ul > narrower li]; 3 li per list
  const n: LayoutNode[] = [];
  const add = (parent: number, tag: string, x: number, y: number, w: number, h: number, ownText: number): number => {
    n.push({ parent, tag, cls: '', x, y, w, h, bg: NONE, font: 14, position: 'static', display: 'block', ownText });
    return n.length - 1;
  };
  const list = (parent: number, x: number, y: number, w: number): number[] => {
    const ul = add(parent, 'ul', x, y, w, 260, 0);
    return [0, 1, 2].map((i) => add(ul, 'li', x, y + 90 * i, w, 80, 40));
  };
  const body = add(-1, 'body', 0, 0, 1000, 1100, 0);
  const main = add(body, 'div', 0, 0, 800, 1100, 0);
  const sec1 = add(main, 'div', 0, 240, 800, 540, 0);
  const ul1 = list(sec1, 0, 240, 800); // its last item is the block nearest the page centre
  const ul2 = list(sec1, 0, 520, 800);
  const sec2 = add(main, 'div', 0, 800, 800, 260, 0);
  const ul3 = list(sec2, 0, 800, 800);
  const aside = add(body, 'div', 820, 0, 180, 300, 0);
  list(aside, 820, 0, 180);
  const r = findRecordsVisual(n, { width: 1000, height: 1000 }, 0);
  assert.equal(r.base?.index, ul1[2]);
  assert.equal(r.base?.siblings, 2);
  assert.deepEqual(r.records, [...ul1, ...ul2, ...ul3]);
  // the paper's single base block climbing one level only: ul3 (a level further up) is not reached
  assert.deepEqual(findRecordsVisual(n, { width: 1000, height: 1000 }, 0, { maxClimb: 1, baseCandidates: 1 }).records, [...ul1, ...ul2]);
});

test('step 4 recursion: boxes of table rows give way to their rows (rows narrower in one box)', () => {
  // body > area > 3 × box [h2, table > tbody > (header row, rows)]; box 3 holds one row
  const n: LayoutNode[] = [];
  const add = (parent: number, tag: string, y: number, w: number, h: number, ownText: number, extra: Partial<LayoutNode> = {}): number => {
    n.push({ parent, tag, cls: '', x: 10, y, w, h, bg: NONE, font: 16, position: 'static', display: 'block', ownText, ...extra });
    return n.length - 1;
  };
  const body = add(-1, 'body', 0, 1280, 800, 0, { bg: WHITE });
  const area = add(body, 'div', 40, 1264, 480, 0);
  let y = 40;
  const rows: number[] = [];
  for (const [count, width] of [[5, 118], [4, 134], [1, 134]] as const) {
    const box = add(area, 'div', y, 1264, 60 + 22 * count, 0);
    add(box, 'h2', y, 1264, 27, 3, { font: 24 });
    const table = add(box, 'table', y + 30, width, 22 * (count + 1), 0, { display: 'table' });
    const tbody = add(table, 'tbody', y + 30, width, 22 * (count + 1), 0, { display: 'table-row-group' });
    add(tbody, 'tr', y + 30, width, 20, 4, { display: 'table-row' }); // header row: shorter than the copyright line
    for (let i = 0; i < count; i++) rows.push(add(tbody, 'tr', y + 52 + 22 * i, width, 20, 17, { display: 'table-row' }));
    y += 80 + 22 * count;
  }
  const r = findRecordsVisual(n, { width: 1280, height: 800 }, 10);
  assert.deepEqual(r.records, rows);
  const boxes = findRecordsVisual(n, { width: 1280, height: 800 }, 10, { descendShare: 0 });
  assert.deepEqual(boxes.records.map((i) => n[i].tag), ['div', 'div', 'div']);
});

