import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportUserDict, isCommonWord, suggestFreq, writeUserDict } from '../../src/lexicon/dict.js';
import { baseLexicon } from '../../src/lexicon/base.js';
import type { EntityKind, KgView } from '../../src/kg/model.js';
import { createSegmenter } from '../../src/pipeline/segment.js';
import { SEGMENTER_BACKENDS } from '../../src/lexicon/base.js';
import { FilmkwError } from '../../src/errors.js';

/** A KgView offering only names() (all the exporter uses). */
function namesKg(list: [string, EntityKind[]][]): KgView {
  return { names: () => list.map(([name, kinds]) => ({ name, kinds })) } as unknown as KgView;
}

const TINY = namesKg([
  ['肖申克的救赎', ['Movie']],
  ['易烊千玺', ['Person']],
  ['长津湖', ['Movie']],
  ['我不是药神', ['Movie']],
  ['伍万里', ['Character']],
  ['吴京', ['Person']],
  ['战争', ['Genre']],
  ['活着', ['Movie']],
  ['英雄', ['Movie', 'Character']],
  ['家', ['Movie']],
  ['春天', ['Movie']],
  ['阮玲玉', ['Movie', 'Person']],
  ['莱昂纳多·迪卡普里奥', ['Person']],
  ['你好,李焕英', ['Movie']], // as normalizeName stores it (NFKC folds ，)
  ['The Shawshank Redemption', ['Movie']],
  ['Avatar', ['Movie']],
  ['2046', ['Movie']],
  ['长津湖', ['Movie']], // listed twice
]);

test('exportUserDict: tags by kind, sorted lines, skipped names with reasons, stats', async () => {
  const r = exportUserDict(TINY);
  const byWord = new Map(r.lines.map((l) => [l.split(' ')[0], l.split(' ')]));
  assert.deepEqual(
    r.lines.map((l) => l.split(' ')[0]),
    [...byWord.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    'sorted by word',
  );
  for (const l of r.lines) assert.match(l, /^\S+ [1-9][0-9]* [a-z]+$/u);
  const tag = (w: string) => byWord.get(w)?.[2];
  assert.equal(tag('肖申克的救赎'), 'nz');
  assert.equal(tag('易烊千玺'), 'nr');
  assert.equal(tag('伍万里'), 'nr');
  assert.equal(tag('战争'), 'n');
  assert.equal(tag('英雄'), 'nz', 'Movie comes first in the kind order');
  assert.equal(tag('阮玲玉'), 'nz');
  assert.equal(tag('活着'), 'nz', 'common-word titles included by default');
  assert.equal(tag('迪卡普里奥'), 'nr', 'non-word part of a compound');
  assert.equal(tag('莱昂纳多'), undefined, '莱昂纳多 is a base word, not added');
  assert.deepEqual(
    r.skipped.map((s) => [s.name, s.reason.split(':')[0]]),
    [
      ['2046', 'no Han character'],
      ['Avatar', 'no Han character'],
      ['The Shawshank Redemption', 'whitespace'],
      ['家', 'single character'],
    ],
  );
  assert.equal(r.stats.names, 17);
  assert.equal(r.stats.compounds, 2);
  assert.equal(r.stats.parts, 2);
  assert.equal(r.stats.variants, 1);
  assert.equal(tag('你好，李焕英'), 'nz', 'full-width variant of the NFKC name');
  assert.equal(tag('你好,李焕英'), 'nz');
  assert.equal(tag('李焕英'), 'nz', 'part of 你好,李焕英 (你好 is a base word)');
  assert.equal(r.stats.entries, r.lines.length);
  assert.deepEqual(r.stats.skippedByReason, { 'no Han character': 2, whitespace: 1, 'single character': 1 });
  // Deterministic: same KG in another order gives the same lines.
  const shuffled = namesKg([...(TINY.names() as { name: string; kinds: EntityKind[] }[])].reverse().map((x) => [x.name, x.kinds] as [string, EntityKind[]]));
  assert.deepEqual((exportUserDict(shuffled)).lines, r.lines);
});

test('exportUserDict: commonWordTitles=exclude drops common titles (and common character names), keeps other kinds', async () => {
  const r = exportUserDict(TINY, { commonWordTitles: 'exclude' });
  const words = new Set(r.lines.map((l) => l.split(' ')[0]));
  assert.ok(!words.has('活着'));
  assert.ok(!words.has('春天'));
  assert.ok(!words.has('英雄'), 'Movie + Character, both excluded kinds');
  assert.ok(words.has('长津湖'), 'a rare base word (freq 9) is not common');
  assert.ok(words.has('战争'), 'Genre is not an excluded kind');
  assert.ok(r.skipped.some((s) => s.name === '活着' && s.reason.startsWith('common word')));
});

test('frequency policy: suggested frequency beats the name\'s own split, never below the base frequency', async () => {
  const lex = baseLexicon('node-rs');
  assert.ok(lex.total > 5e7 && lex.freq.size > 340000);
  assert.equal(suggestFreq('长津湖', lex), 9, 'already a word: its base frequency');
  const f = suggestFreq('肖申克的救赎', lex);
  assert.ok(f >= 1);
  // 不是药神: split 不是/药/神 must lose to the suggested frequency.
  const s = suggestFreq('我不是药神', lex);
  const p = (w: string) => (lex.freq.get(w) ?? 1) / lex.total;
  assert.ok(s / lex.total > p('我') * p('不是') * p('药') * p('神'));
  assert.equal(isCommonWord('活着', lex), true);
  assert.equal(isCommonWord('长津湖', lex), false);
  assert.equal(isCommonWord('家', lex), true);
  const fixed = exportUserDict(TINY, { fixedFreq: 12345 });
  assert.ok(fixed.lines.every((l) => l.split(' ')[1] === '12345'));
  const margin = exportUserDict(TINY, { freqMargin: 10 });
  const base = exportUserDict(TINY);
  const fOf = (lines: string[], w: string) => Number(lines.find((l) => l.startsWith(`${w} `))!.split(' ')[1]);
  assert.ok(fOf(margin.lines, '易烊千玺') >= 10 * fOf(base.lines, '易烊千玺') - 1);
});

test('exportUserDict: common phrases of title kinds (来了, 一个人) are not made tokens; other kinds and real titles are', () => {
  const kg = namesKg([
    ['来了', ['Movie']],
    ['那个人', ['Character']],
    ['一个人', ['Person']],
    ['小白', ['Character']],
    ['花样年华', ['Movie']],
    ['长津湖', ['Movie']],
  ]);
  const r = exportUserDict(kg);
  const words = new Set(r.lines.map((l) => l.split(' ')[0]));
  assert.deepEqual([...words].sort(), ['一个人', '小白', '花样年华', '长津湖'].sort());
  assert.deepEqual(r.skipped.filter((x) => x.reason.startsWith('common phrase')).map((x) => x.name).sort(), ['来了', '那个人'].sort());
  assert.equal(r.stats.skippedByReason['common phrase'], 2);
  const cut = (lines: string[], text: string) => createSegmenter({ userDictLines: lines }).tag(text).map((t) => t.word).join('/');
  assert.equal(cut(r.lines, '他终于来了'), '他/终于/来/了', 'ordinary segmentation kept');
  const all = exportUserDict(kg, { commonPhrases: 'include' });
  assert.ok(all.lines.some((l) => l.startsWith('来了 ')));
  assert.equal(cut(all.lines, '他终于来了'), '他/终于/来了');
  assert.equal(exportUserDict(kg, { commonPhraseMaxLength: 2 }).lines.some((l) => l.startsWith('那个人 ')), true, '3 characters: beyond a max length of 2');
});

test('exportUserDict: bad options are usage errors', () => {
  for (const bad of [{ backend: 'x' }, { freqMargin: 0.5 }, { fixedFreq: -1 }, { commonWordTitles: 'maybe' }, { commonPhrases: 'no' }, { commonPhraseMaxLength: -1 }, { tags: { Movie: 'n z' } }]) {
    assert.throws(() => exportUserDict(TINY, bad as never), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE', JSON.stringify(bad));
  }
});

/** Round trip: every exported name segments as one token with its tag, in both backends. */
async function roundTrip(kg: KgView, mustHave: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-dict-'));
  const path = join(dir, 'user.dict');
  const r = writeUserDict(kg, path);
  assert.equal(readFileSync(path, 'utf8'), r.lines.map((l) => `${l}\n`).join(''));
  const names = new Set([...kg.names()].map((n) => n.name));
  for (const m of mustHave) assert.ok(r.lines.some((l) => l.startsWith(`${m} `)), `${m} exported`);
  for (const backend of SEGMENTER_BACKENDS) {
    const seg = createSegmenter({ backend, userDict: path });
    const failures: string[] = [];
    for (const line of r.lines) {
      const [word, , tag] = line.split(' ');
      if (!names.has(word)) continue; // compound parts
      const text = `我看了${word}。`;
      const tokens = seg.tag(text);
      if (!tokens.some((t) => t.word === word && t.tag === tag && t.start === 3)) {
        failures.push(`${text} → ${tokens.map((t) => `${t.word}/${t.tag}`).join(' ')}`);
      }
    }
    assert.deepEqual(failures, [], `${backend}: names not segmented as one token`);
  }
}

test('round trip on the tiny KG: names are one token with their tag in both backends', async () => {
  await roundTrip(TINY, ['肖申克的救赎', '易烊千玺', '长津湖', '我不是药神']);
  const seg = createSegmenter({ userDictLines: exportUserDict(TINY).lines });
  assert.ok(seg.tag('我看了你好，李焕英。').some((t) => t.word === '你好，李焕英' && t.tag === 'nz'), 'full-width variant in text');
});

const DEMO_DIR = new URL('../../kg/demo/', import.meta.url);
const LOAD_MODULE = new URL('../../src/kg/load.ts', import.meta.url);
test(
  'round trip on the demo KG (kg/demo): every name is one token with its tag in both backends',
  { skip: (!existsSync(DEMO_DIR) || !existsSync(LOAD_MODULE)) && 'needs kg/demo and src/kg/load.ts (helpers D and A)' },
  async () => {
    const mod = (await import(LOAD_MODULE.href)) as { loadKg(o: object): Promise<KgView> };
    const kg = await mod.loadKg({});
    await roundTrip(kg, ['肖申克的救赎', '易烊千玺', '长津湖', '我不是药神']);
  },
);

test('writeUserDict: unwritable path is FilmkwError OUTPUT', () => {
  assert.throws(
    () => writeUserDict(TINY, join(tmpdir(), 'no-such-dir-filmkw', 'x', 'user.dict')),
    (e: unknown) => e instanceof FilmkwError && e.code === 'OUTPUT' && /no-such-dir-filmkw/u.test(e.message),
  );
});

test('frequency policy in context: the suggested frequency leaves ordinary text alone, a fixed huge one does not', () => {
  const kg = namesKg([['王刚', ['Person']], ['于谦', ['Person']]]);
  const cut = (opts: object, text: string) => createSegmenter({ userDictLines: exportUserDict(kg, opts).lines }).tag(text).map((t) => t.word).join('/');
  assert.equal(cut({}, '大王刚才走了'), '大王/刚才/走/了');
  assert.equal(cut({}, '我看了王刚的戏'), '我/看/了/王刚/的/戏');
  assert.equal(cut({ fixedFreq: 10000000 }, '大王刚才走了'), '大/王刚/才/走/了');
  // The price of the minimal frequency: a context word that binds to the name's edge wins.
  assert.equal(cut({}, '是于谦和他'), '是/于/谦和/他');
  assert.equal(cut({ fixedFreq: 1000 }, '是于谦和他'), '是/于谦/和/他');
});
