/**
 * src/html/structural.ts: the paper's denoising rules as read from markup, sibling-group finding,
 * walking up and across, descending into containers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findRecordsStructural, parseHtml, shapeOf, jaccard, textOf, STRUCTURAL_DEFAULTS } from '../../src/html/structural.js';

const li = (i: number) => `<li><a href="/r/${i}">记录标题第${i}条内容</a><span class="d">2020-01-0${i}</span><p>摘要文字第${i}段，说明这条记录。</p></li>`;

test('rule 1: a region of bare links (≥ 95 % of its element nodes are <a>) is removed', () => {
  const links = Array.from({ length: 30 }, (_, i) => `<a href="/n${i}">导航链接名称${i}号栏目</a>`).join('');
  const doc = parseHtml(`<html><body><div id="nav">${links}</div><ul>${li(1)}${li(2)}${li(3)}</ul></body></html>`);
  const r = findRecordsStructural(doc);
  assert.equal(r.noise.rule1, 1);
  assert.equal(r.records.length, 3);
  assert.ok(r.records.every((e) => e.name === 'li'));
});

test('rule 2: position:fixed blocks holding an image are removed; without media they stay', () => {
  const ad = (i: number) => `<div class="ad" style="position: fixed; top:${i}px"><img src="a.gif"><span>广告位第${i}号招租热线请联系我们</span></div>`;
  const doc = parseHtml(`<html><body>${ad(1)}${ad(2)}${ad(3)}${ad(4)}<ul>${li(1)}${li(2)}${li(3)}</ul></body></html>`);
  const r = findRecordsStructural(doc);
  assert.equal(r.noise.rule2, 4);
  assert.deepEqual(r.records.map((e) => e.name), ['li', 'li', 'li']);
});

test('rule 3: candidate records shorter than the copyright line are noise', () => {
  const short = Array.from({ length: 6 }, (_, i) => `<div class="tag"><b>标${i}</b></div>`).join('');
  const page = `<html><body><div>${short}</div><ul>${li(1)}${li(2)}${li(3)}</ul><div>© 2024 示例网</div></body></html>`;
  assert.deepEqual(findRecordsStructural(parseHtml(page)).records.map((e) => e.name), ['li', 'li', 'li']);
  // with the rule off the six tag blocks (more of them, and structured) compete; the list still wins on text
  const off = findRecordsStructural(parseHtml(page), { copyrightRule: 'off' });
  assert.equal(off.records.length, 3);
  assert.ok(findRecordsStructural(parseHtml(page)).noise.copyrightLength >= 7);
});

test('walk up and across: similar blocks in cousin containers join the base group', () => {
  const page = `<html><body><div class="main"><div class="col"><ul>${li(1)}${li(2)}${li(3)}${li(4)}</ul></div><div class="col"><div><ul>${li(5)}${li(6)}</ul></div></div></div><div class="side"><p>别的内容</p></div></body></html>`;
  const r = findRecordsStructural(parseHtml(page));
  assert.deepEqual(r.records.map((e) => textOf(e).slice(0, 9)), [1, 2, 3, 4, 5, 6].map((i) => `记录标题第${i}条内容`));
  assert.equal(r.base?.count, 4);
  assert.equal(findRecordsStructural(parseHtml(page), { maxClimb: 0 }).records.length, 4);
});

test('descend: a group of tables becomes their rows; a one-row table contributes its row', () => {
  const row = (i: number, c: string) => `<tr><td class="${c}"><span>${i}</span><a href="/n/${i}">第${i}条新闻的标题文字</a></td><td>${100 - i}</td></tr>`;
  const table = (rows: number[]) => `<div class="box"><h2>榜单</h2><table><tr><th>标题</th><th>数</th></tr>${rows.map((i) => row(i, i < 2 ? 'red' : 'gray')).join('')}</table></div>`;
  const page = `<html><body><div class="area">${table([1, 2, 3, 4])}${table([5, 6, 7])}${table([8])}</div></body></html>`;
  const r = findRecordsStructural(parseHtml(page));
  assert.equal(r.records.length, 8);
  assert.ok(r.records.every((e) => e.name === 'tr'));
  assert.equal(findRecordsStructural(parseHtml(page), { descendShare: 0 }).records.length, 3);
});

test('no group of ≥ minRecords similar blocks: no records', () => {
  const r = findRecordsStructural(parseHtml('<html><body><h1>标题</h1><p>只有一段正文，没有列表。</p></body></html>'));
  assert.deepEqual(r.records, []);
  assert.equal(r.base, null);
});

test('shapes and similarity', () => {
  const d = parseHtml('<div><a><span></span></a><p></p></div>');
  const e = d.children[0] as never;
  assert.deepEqual([...shapeOf(e, 4)].sort(), ['a', 'a>span', 'p']);
  assert.equal(jaccard(new Set(['a', 'b']), new Set(['b', 'c'])), 1 / 3);
  assert.equal(Object.isFrozen(STRUCTURAL_DEFAULTS), true);
});
