/**
 * src/html/maintext.ts (seed 000): one small page per rule (test/fixtures/html/maintext/), then the
 * real pages (skipped without ../shared/data/html): both Douban review pages come out whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractMainText, findTopic, isLinkBlock, mainTextOfBytes, MAINTEXT_DEFAULTS } from '../../src/html/maintext.js';
import { parseTree, findFirst, textWithBreaks } from '../../src/html/tree.js';
import { judgeBody } from '../../src/html/judge.js';
import { FilmkwError } from '../../src/errors.js';

const FIX = fileURLToPath(new URL('../fixtures/html/maintext/', import.meta.url));
const page = (f: string): string => readFileSync(join(FIX, f), 'utf8');

test('defaults are the paper values and frozen', () => {
  assert.equal(MAINTEXT_DEFAULTS.decay, 0.34);
  assert.equal(MAINTEXT_DEFAULTS.maxLinkDensity, 0.65);
  assert.equal(MAINTEXT_DEFAULTS.stopAt, 'current');
  assert.ok(Object.isFrozen(MAINTEXT_DEFAULTS));
});

test('pruning: script/style/select/option/textarea/iframe subtrees and comments never reach the text', () => {
  const r = extractMainText(page('decay.html'));
  for (const noise of ['这段脚本文字', 'color:red', '请选择评分', '五星', '评论框里的文字', '广告框架文字', '这是注释']) assert.ok(!r.text.includes(noise), noise);
  const { root } = parseTree('<body><div><p>有字</p><div><img src=x></div><span> </span></div></body>');
  const div = findFirst(root, (e) => e.tag === 'div')!;
  assert.equal(div.children.length, 1, 'elements without text below are removed');
});

test('decay: the topic subtree is the article (all paragraphs), not nav/side/footer; title line dropped', () => {
  const r = extractMainText(page('decay.html'));
  assert.equal(r.meta.topic, 'html>body>div#wrap>div.article');
  assert.deepEqual(r.text.split('\n'), [
    '《霸王别姬》由陈凯歌执导，张国荣、张丰毅、巩俐主演，讲述了两位京剧艺人半个世纪的悲欢离合。',
    '影片以程蝶衣和段小楼的人生为线索，从北洋时期一直写到文革之后，时代的巨变压在每个人身上。',
    '张国荣把程蝶衣的痴与执演得入木三分，张国荣的表演至今仍被反复讨论。',
    '电影的结尾回到了开头的戏台，一切归于寂静，也让人久久不能平静。',
  ]);
  assert.equal(r.title, '霸王别姬：一部关于时代的电影');
  assert.equal(r.author, '林小影');
  assert.equal(r.date, '2021-03-05 08:30:00');
  assert.equal(r.meta.linkBlocksRemoved, 1, 'the related-links block inside the article');
});

test("stopAt 'child' (printed pseudo-code) keeps only the largest paragraph; T=0.9 descends too far", () => {
  const child = extractMainText(page('decay.html'), { stopAt: 'child' });
  assert.equal(child.text.split('\n').length, 1);
  const { root } = parseTree(page('decay.html'));
  const body = findFirst(root, (e) => e.tag === 'body')!;
  const deep = findTopic(body, { decay: 0.9 });
  assert.ok(deep.node.text < 60, 'with a huge T the descent ends inside one paragraph');
});

test('single-child chains are passed through', () => {
  const r = extractMainText(page('single-child.html'));
  assert.equal(r.text, '只有一段文字的页面，文字在三层嵌套的容器里，也应完整取出。');
});

test('<br> breaks paragraphs; byline author/date from the page text', () => {
  const r = extractMainText(page('br-text.html'));
  const lines = r.text.split('\n');
  assert.equal(lines.length, 3, 'the byline line is metadata, trimmed');
  assert.match(lines[0]!, /^第一段/);
  assert.match(lines[2]!, /^第三段/);
  assert.equal(extractMainText(page('br-text.html'), { trimMetaLines: false }).text.split('\n').length, 4);
  assert.equal(r.author, '老影迷');
  assert.equal(r.date, '2005-05-07 21:23:57');
  assert.ok(!r.text.includes('返回论坛'));
});

test('link blocks: removed by density with ≥ 2 anchors; a paragraph with one inline link stays', () => {
  const { root } = parseTree('<body><div id=a><a href=1>甲甲甲</a><a href=2>乙乙乙</a>说</div><p>正文段落很长很长很长很长，<a href=x>链接</a></p><p><a href=y>整段都是一个链接的文字</a></p></body>');
  const a = findFirst(root, (e) => e.attrs.id === 'a')!;
  assert.equal(isLinkBlock(a), true);
  const ps: boolean[] = [];
  findFirst(root, (e) => {
    if (e.tag === 'p') ps.push(isLinkBlock(e));
    return false;
  });
  assert.deepEqual(ps, [false, false]);
  assert.equal(isLinkBlock(a, { maxLinkDensity: 0.95 }), false);
});

test('JSON-LD metadata and a Douban-like review: div.review-content whole, comments out', () => {
  const r = extractMainText(page('jsonld.html'));
  assert.match(r.meta.topic, /div\.review-content/);
  assert.equal(r.text.split('\n').length, 3);
  assert.ok(!r.text.includes('网友甲') && !r.text.includes('脚本中的假评论'));
  assert.deepEqual({ title: r.title, author: r.author, date: r.date, url: r.url }, {
    title: '不是爱情神话',
    author: '新京报书评周刊',
    date: '2022-01-06 11:11:24',
    url: 'https://movie.douban.com/review/14122109/',
  });
});

test('a truncated page without main text is an INPUT error saying so', () => {
  assert.throws(
    () => mainTextOfBytes(new Uint8Array(readFileSync(join(FIX, 'truncated.html'))), { path: 'truncated.html' }),
    (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /truncated\.html: no main text found \(the page looks truncated/.test(e.message),
  );
});

test('textWithBreaks collapses white space and drops empty lines', () => {
  const { root } = parseTree('<body><p>  a \n b </p><div></div><p>c<br><br>d</p></body>');
  assert.equal(textWithBreaks(root), 'a b\nc\nd');
});

const DOUBAN = fileURLToPath(new URL('../../../shared/data/html/YPdeHQQ+python/', import.meta.url));
test('real Douban review pages: the whole div.review-content, exact by the paper rule', { skip: !existsSync(DOUBAN) && 'needs ../shared/data/html' }, () => {
  const gt = JSON.parse(readFileSync(join(DOUBAN, 'derived_review_text.json'), 'utf8')) as Record<string, { text: string; url: string }>;
  for (const [f, g] of Object.entries(gt)) {
    const r = mainTextOfBytes(new Uint8Array(readFileSync(join(DOUBAN, f))), { path: f });
    assert.match(r.meta.topic, /div\.review-content/, f);
    const v = judgeBody(r.text, g.text);
    assert.ok(v.ok, `${f}: ${v.reason}`);
    assert.equal(r.url, g.url);
    assert.match(r.date ?? '', /^2022-01-0\d \d\d:\d\d:\d\d$/);
    assert.ok(r.author);
  }
});

test('metadata lines at the ends of the body are trimmed (title, author, byline, date); editor lines kept at the end', async () => {
  const { trimMetaLines } = await import('../../src/html/maintext.js');
  const text = ['霸王别姬影评', '作者：林小影', '2021-03-05 08:30', '正文第一段。', '正文第二段。', '（林小影）', '（责任编辑：张三）'].join('\n');
  assert.equal(trimMetaLines(text, { title: '霸王别姬影评_网站', author: '林小影' }), ['正文第一段。', '正文第二段。', '（林小影）', '（责任编辑：张三）'].join('\n'));
  assert.equal(trimMetaLines('正文。\n（林小影）', { author: '林小影' }), '正文。');
  assert.equal(trimMetaLines('只有一行：2021-03-05', {}), '只有一行：2021-03-05', 'never empties the text');
  const hidden = extractMainText('<body><div style="display:none"><p>隐藏的很长很长很长很长很长很长很长很长的文字</p></div><div><p>看得见的正文。</p><p>第二段。</p></div></body>');
  assert.ok(!hidden.text.includes('隐藏'));
});
