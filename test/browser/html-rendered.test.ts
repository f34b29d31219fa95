/**
 * src/html/render.ts in Debian's chromium (./chromium.ts): the rendered mode of `filmkw html records` on
 * the fixture pages and on the real Top250 page of the shared data (vips on hand-made layouts:
 * test/html/vips.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { recordsOfFile } from '../../src/html/records.js';
import { chromiumSkip } from './chromium.js';

const FIX = fileURLToPath(new URL('../fixtures/html/records/', import.meta.url));
const TOP250 = fileURLToPath(new URL('../../../shared/data/html/helloxizhao+douban/top250.html', import.meta.url));
const noChromium = chromiumSkip();

test('rendered mode on the fixture pages (chromium)', { skip: noChromium }, async () => {
  const { createRecordRenderer } = await import('../../src/html/render.js');
  const r = await createRecordRenderer();
  try {
    const page = await recordsOfFile(`${FIX}douban-list.html`, 'douban-list.html', { renderer: r });
    assert.equal(page.mode, 'rendered');
    assert.deepEqual(page.lines.map((l) => ('subjectId' in l ? l.subjectId : '?')), ['1000001', '1000002', '1000003', '1000004']);
    assert.ok(page.lines.every((l) => 'mode' in l && l.mode === 'rendered'));
    // boxes of table rows: the rows are the records (header rows are shorter than the copyright line)
    const news = await recordsOfFile(`${FIX}news-tables.html`, 'news-tables.html', { renderer: r });
    assert.deepEqual(news.lines.map((l) => ('url' in l ? l.url : '?')), ['/n/1', '/n/2', '/n/3', '/n/4', '/n/5', '/n/11', '/n/12', '/n/13', '/n/14', '/n/21']);
    const gbk = await recordsOfFile(`${FIX}gbk-list.html`, 'gbk-list.html', { renderer: r });
    assert.equal(gbk.records, 5);
    assert.equal((gbk.lines[0] as { title: string }).title, '第1条公告：基金净值披露说明');
    const cut = await recordsOfFile(`${FIX}truncated.html`, 'truncated.html', { renderer: r });
    assert.deepEqual(cut.lines.map((l) => ('title' in l ? l.title : '?')), ['山间来信', '海上灯塔', '夏日列车']);
    assert.ok(cut.lines.every((l) => 'warning' in l && /truncated/.test(l.warning!)));
    for (const name of ['not-html.html', 'wrong-encoding.html']) {
      const b = await recordsOfFile(`${FIX}${name}`, name, { renderer: r });
      assert.ok('error' in b.lines[0] && b.lines[0].id === name && typeof b.lines[0].error === 'string', name);
    }
    const bad = await recordsOfFile(`${FIX}empty.html`, 'empty.html', { renderer: r });
    assert.ok('error' in bad.lines[0]);
    // the page cannot reach the network: a remote image must not delay or break the load
    assert.match(readFileSync(`${FIX}douban-list.html`, 'utf8'), /ad\.gif/);
  } finally {
    await r.close();
  }
});

test('rendered mode on the real Top250 page 1: the 25 films, the same records as the structural mode (chromium)', { skip: noChromium || (!existsSync(TOP250) && 'needs ../shared/data/html') }, async () => {
  const { createRecordRenderer } = await import('../../src/html/render.js');
  const r = await createRecordRenderer();
  try {
    const page = await recordsOfFile(TOP250, 'top250.html', { renderer: r });
    const structural = await recordsOfFile(TOP250, 'top250.html', { mode: 'structural' });
    assert.equal(page.records, 25);
    const fields = (x: typeof page) => x.lines.map((l) => ('subjectId' in l ? JSON.stringify([l.subjectId, l.title, l.rating, l.directors, l.actors, l.year, l.countries, l.genres]) : '?'));
    assert.deepEqual(fields(page), fields(structural));
    assert.equal((page.lines[0] as { title: string }).title, '肖申克的救赎');
  } finally {
    await r.close();
  }
});
