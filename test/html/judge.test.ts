/** src/html/judge.ts: the paper's exact-body rule (all body text, at most one short extra sentence). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeBody } from '../../src/html/judge.js';

const GOLD = '第一段正文，讲的是电影。\n第二段正文，讲的是演员。\n第三段正文，讲的是结局。\n第四段正文比较长，讲的是导演如何在困难的条件下完成了这部作品，以及上映之后观众的反应。';
const BODY = GOLD.replace(/\n/g, '');

test('identical text, different white space and hard wrapping: ok', () => {
  const wrapped = GOLD.replace('讲的是电影', '讲的是\n电影').replace(/\n第二/, ' 第二').replace(/\n第三/, '\n\n第三');
  assert.equal(judgeBody(wrapped, GOLD).ok, true);
  assert.equal(judgeBody(BODY.replace(/。/g, '.').replace(/，/g, ','), GOLD.replace(/。/g, '.').replace(/，/g, ',')).ok, true);
});

test('a missing body line fails', () => {
  const v = judgeBody(BODY.replace('第二段正文，讲的是演员。', ''), GOLD);
  assert.equal(v.ok, false);
  assert.equal(v.missing.length, 1);
  assert.ok(v.recall < 1);
});

test('one short extra sentence is allowed, two are not, nor a long one', () => {
  assert.equal(judgeBody(`${BODY}点击返回。`, GOLD).ok, true);
  assert.equal(judgeBody(`上一篇。${BODY}`, GOLD).ok, true);
  const two = judgeBody(`上一篇。${BODY}下一篇。`, GOLD);
  assert.equal(two.ok, false);
  assert.equal(two.extraSentences, 2);
  const long = judgeBody(`${BODY}这是一句很长很长很长很长很长的多余文字没有句号`, GOLD);
  assert.equal(long.ok, false);
  assert.match(long.reason, /extra chars/);
});

test('punctuation-only leftovers are not extra; title lines are optional', () => {
  assert.equal(judgeBody(`——${BODY}|`, GOLD).ok, true);
  const withTitle = `霸王别姬影评\n${GOLD}`;
  assert.equal(judgeBody(BODY, withTitle).ok, false);
  assert.equal(judgeBody(BODY, withTitle, { optional: ['霸王别姬影评_网易娱乐'] }).ok, true);
});

test('empty extraction or empty ground truth fails', () => {
  assert.equal(judgeBody('', GOLD).ok, false);
  assert.equal(judgeBody(BODY, '  \n').ok, false);
});
