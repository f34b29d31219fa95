/**
 * The taggers of both backends (native cut + word → tag cache, src/pipeline/segmenters/tag-cache.ts)
 * against the native tag of the same dictionary configuration (node-rs `Jieba.tag(text, true)`,
 * nodejieba `tag(text)`): words and tags must be identical, token by token, on fixtures, through every
 * path of the cache (hit, new words on their own, their blocks, whole text), with a tiny cache that
 * evicts all the time. Every text of the shared corpora: test/integration/pipeline/tag-cache-corpora.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createNodeRsTagger } from '../../src/pipeline/segmenters/node-rs.js';
import { createNodejiebaTagger } from '../../src/pipeline/segmenters/nodejieba.js';
import { TAG_CACHE_MAX } from '../../src/pipeline/segmenters/tag-cache.js';
import { createSegmenter } from '../../src/pipeline/segment.js';
import { assertSame, BACKENDS, diff, tagger, USER_LINES, userDictText } from './tag-cache-check.js';


const fixture = (rel: string) => fileURLToPath(new URL(`../fixtures/${rel}`, import.meta.url));

const INLINE = [
  ' ',
  '   \t\t\n\n\r\n  ',
  // 杭研 is found by the HMM only (not in the dictionary: tag x).
  '他来到了网易杭研大厦',
  // 发过 is a dictionary word the HMM joins here, but cut on its own it is 发/过: the whole-text path.
  '那该是多久之前，发过的誓还言犹在耳，',
  'Hello  world\n\n长津湖 😀👨‍👩‍👧 好看！！  ',
  '  \t 易烊千玺扮演伍万里，2021年上映的《长津湖》。吴京主演，豆瓣8.5分，票房57.75亿。',
  '𠀀𠀁字符 AT&T c# C++ 3.14 50% 1,000 a1b2 2021 ＡＢＣ１２３',
  'lone \uFFFD surrogate and NUL \u0000 end',
  'e\u0301 combining, 한국어, ｆｕｌｌ－ｗｉｄｔｈ, カタカナ',
  '我看了肖申克的救赎。莱昂纳多·迪卡普里奥演得好；焦三爷用天鸣发下的誓言来强迫天鸣。',
];

function fixtureTexts(): string[] {
  const out = [...INLINE];
  for (const r of JSON.parse(readFileSync(fixture('pipeline/golden/texts.json'), 'utf8')) as { text: string }[]) out.push(r.text);
  for (const line of readFileSync(fixture('eval/tiny.jsonl'), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const o = JSON.parse(line) as { text?: string; title?: string };
    if (o.text) out.push(o.text);
    if (o.title) out.push(o.title);
  }
  return out;
}


// nodejieba reloads its dictionaries (about a CPU second) when the user dictionary changes: the two tests of
// the base dictionary first, then the one with the user dictionary.
for (const backend of BACKENDS) {
  const identical = (lexicon: boolean) =>
    test(`${backend} tag cache (${lexicon ? 'user dictionary' : 'base dictionary'}): identical to native tag on fixtures, cold and warm, every path taken`, () => {
      const t = tagger(backend, lexicon ? userDictText() : '');
      const texts = fixtureTexts();
      assertSame(t, texts); // cold: fills the cache
      const cold = t.cacheStats();
      assert.ok(cold.wordCalls > 0, 'new words were tagged on their own');
      if (backend === 'node-rs') assert.ok(cold.blockCalls > 0, 'some new words were tagged in their block');
      assertSame(t, texts); // warm: every word a hit
      assert.deepEqual({ ...t.cacheStats(), cutChars: 0 }, { ...cold, cutChars: 0 }, 'a warm pass makes no native tag call');
      if (lexicon) {
        const tokens = t.tag('易烊千玺扮演伍万里，长津湖');
        assert.deepEqual(tokens.words.slice(0, 3), ['易烊千玺', '扮演', '伍万里']);
        assert.equal(tokens.tags[tokens.words.indexOf('长津湖')], 'nz', 'the user tag wins over the base ns');
      }
    });

  identical(false);

  test(`${backend} tag cache: the last resort (whole text) alone is identical too; a tiny cache evicting all the time too`, () => {
    const texts = fixtureTexts();
    const whole = tagger(backend, '', { wholeOnly: true });
    assertSame(whole, texts);
    const s = whole.cacheStats();
    assert.ok(s.wholeCalls > 0 && s.wordCalls === 0 && s.blockCalls === 0, JSON.stringify(s));
    const small = tagger(backend, '', { cacheMax: 8 });
    for (let round = 0; round < 2; round++) {
      for (const text of texts) {
        assert.equal(diff(small, text), null);
        assert.ok(small.cacheStats().size <= 8, `cache size ${small.cacheStats().size} > 8`);
      }
    }
  });

  identical(true);
}

test('node-rs tag cache: 发过 (cut differently on its own) is tagged in its block, and is then a hit', () => {
  const t = tagger('node-rs', '');
  assert.deepEqual(
    t.native('发过').map((x) => x.word),
    ['发', '过'],
    'premise: alone, 发过 is cut in two',
  );
  const text = '那该是多久之前，发过的誓还言犹在耳，';
  const got = t.tag(text);
  assert.equal(got.tags[got.words.indexOf('发过')], 'v');
  const { taggedChars, cutChars, ...calls } = t.cacheStats();
  assert.deepEqual(calls, { size: new Set(got.words).size, wordCalls: 1, blockCalls: 1, wholeCalls: 0 });
  assert.equal(cutChars, text.length);
  assert.ok(taggedChars < 2 * text.length, `native tag was given ${taggedChars} characters`);
  assert.equal(diff(t, `我${text}`), null);
  assert.equal(t.cacheStats().blockCalls, 1, 'the second time 发过 is a hit');
});

test('node-rs tag cache: bounded (tiny cache evicting all the time gives the same output as a cold and a warm large one)', () => {
  const texts = fixtureTexts();
  const small = tagger('node-rs', '', { cacheMax: 8 });
  const big = tagger('node-rs', '');
  for (let round = 0; round < 2; round++) {
    for (const text of texts) {
      const a = small.tag(text);
      const b = big.tag(text);
      assert.deepEqual(a, b, JSON.stringify(text.slice(0, 30)));
      assert.ok(small.cacheStats().size <= 8, `cache size ${small.cacheStats().size} > 8`);
      assert.ok(big.cacheStats().size <= TAG_CACHE_MAX);
    }
  }
  assertSame(small, texts);
  assert.ok(small.cacheStats().wordCalls > big.cacheStats().wordCalls, 'the tiny cache missed more');
  assert.throws(() => createNodeRsTagger('', { cacheMax: 1 }), /cache size/);
  assert.throws(() => createNodejiebaTagger('', { cacheMax: 1.5 }), /cache size/);
});

test('Segmenter (node-rs): a cold and a warm segmenter give identical tokens, with compounds and lone surrogates', () => {
  const lines = [...USER_LINES, '莱昂纳多·迪卡普里奥 1 nr', '你好，李焕英 1 nz'];
  const texts = [...fixtureTexts(), '我看了你好，李焕英和莱昂纳多·迪卡普里奥。lone \uD800 surrogate \uDC00'];
  const warm = createSegmenter({ userDictLines: lines });
  for (const text of texts) warm.tag(text);
  const cold = createSegmenter({ userDictLines: lines });
  for (const text of [...texts].reverse()) assert.deepEqual(warm.tag(text), cold.tag(text), JSON.stringify(text.slice(0, 30)));
});


