/**
 * Alias hygiene (src/kg/aliases.ts), each rule on the shapes the Douban sources give, and through the
 * builder with its report: brackets split apart joined again, region tags removed, punctuation-only,
 * one-character, unbalanced and common-word aliases dropped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aliasProblem, bracketsBalanced, cleanAliases, rejoinBrackets, stripRegionTags } from '../../src/kg/aliases.js';
import { normalizeName } from '../../src/kg/model.js';
import { KgMergeBuilder, type SourceCtx } from '../../src/kg/builder.js';
import { commonWordTest } from '../../src/lexicon/title-policy.js';

test('rule 1: items split inside brackets are joined again (OpenKG `;`, DouBan-KGQA other_names)', () => {
  assert.deepEqual(rejoinBrackets(['国定杀戮日(台', '港)', '灭绝游戏']), {
    items: ['国定杀戮日(台/港)', '灭绝游戏'],
    rejoined: [{ from: ['国定杀戮日(台', '港)'], to: '国定杀戮日(台/港)' }],
  });
  assert.deepEqual(rejoinBrackets(['麦迪逊之桥（港', '台）']).items, ['麦迪逊之桥（港/台）']);
  // nothing closes it: left as it is (rule 2 or 3 decides)
  assert.deepEqual(rejoinBrackets(['魔球(港', '钱与球']).items, ['魔球(港', '钱与球']);
  assert.deepEqual(rejoinBrackets(['哈利·波特与死亡圣器(上)', 'Part 1']).rejoined, []);
});

test('rule 2: region and note tags go, also as lists and when a split left them unclosed; an alias that is only a tag is empty', () => {
  const cases: [string, string][] = [
    ['神隐少女(台)', '神隐少女'],
    ['国定杀戮日(台/港)', '国定杀戮日'],
    ['哈利波特3:阿兹卡班的逃犯(港;台)', '哈利波特3:阿兹卡班的逃犯'],
    ['铁达尼号（港/台）', '铁达尼号'],
    ['某片(大陆)', '某片'],
    ['某片(港台)', '某片'],
    ['我的愚蠢丈夫(豆友译名)', '我的愚蠢丈夫'],
    ['魔球(港', '魔球'],
    ['新世纪福尔摩斯(台)第四季', '新世纪福尔摩斯第四季'],
    ['Babysitting(德国)', 'Babysitting'],
    ['大英雄 (日本)', '大英雄'],
    ['某片(新加坡译名)', '某片'],
    ['倩女幽魂(87版)', '倩女幽魂(87版)'],
    ['台)', ''],
    ['港 / 台)', ''],
    ['哈利·波特与死亡圣器(上)', '哈利·波特与死亡圣器(上)'],
    ['赛德克·巴莱(上下)合集', '赛德克·巴莱(上下)合集'],
    ['The Purge (2013)', 'The Purge (2013)'],
  ];
  for (const [raw, want] of cases) assert.equal(stripRegionTags(normalizeName(raw)), want, raw);
});

test('rule 3: punctuation only, one character, unbalanced brackets and common words are dropped with the reason', () => {
  const common = (s: string) => s === '控制';
  const cases: [string, string | null][] = [
    ['!!', 'only punctuation or symbols'],
    ['·', 'only punctuation or symbols'],
    ['谜', 'a single character'],
    ['I', 'a single character'],
    ['飘!', 'a single character'],
    ['大国民(港', 'unbalanced brackets'],
    ['a)b(c', 'unbalanced brackets'],
    ['控制', 'a common word (title policy)'],
    ['Let the Bullets Fly', null],
    ['哈利·波特与死亡圣器(上)', null],
    ['2046', null],
  ];
  for (const [alias, want] of cases) assert.equal(aliasProblem(alias, common), want, alias);
  assert.equal(bracketsBalanced('（a(b)c）'), true);
  assert.equal(aliasProblem('控制', null), null, 'no common-word test given');
});

test('the title policy knows the common words that real alternative titles are (控制, 暗处, 星际), not the titles', () => {
  const common = commonWordTest();
  for (const w of ['控制', '暗处', '星际', '家园', '一个人']) assert.equal(common(w), true, w);
  for (const w of ['麦迪逊之桥', '霸王别姬', '铁达尼号', '魔戒三部曲:王者再临']) assert.equal(common(w), false, w);
});

test('cleanAliases: one list through the three rules', () => {
  const c = cleanAliases(['国定杀戮日(台', '港)', '灭绝游戏', '谜', '  ', '大清洗(豆友译名)', '台)'], normalizeName, null);
  assert.deepEqual(c.kept, ['国定杀戮日', '灭绝游戏', '大清洗']);
  assert.deepEqual(c.tagged, [
    { from: '国定杀戮日(台/港)', to: '国定杀戮日' },
    { from: '大清洗(豆友译名)', to: '大清洗' },
  ]);
  assert.deepEqual(c.dropped, [
    { alias: '谜', reason: 'a single character' },
    { alias: '台)', reason: 'only a region tag' },
  ]);
});

test('through the builder: 人类清除计划 keeps 国定杀戮日, loses 台) and 港), and the report counts each rule with file:line examples', () => {
  const src: SourceCtx = { kind: 'openkg', spec: 'openkg:x' };
  const b = new KgMergeBuilder({ minePlayed: false, commonWord: (s) => s === '控制' });
  b.movie({ subjectId: '10453723', title: '人类清除计划', aliases: ['国定杀戮日(台', '港)', '灭绝游戏', '大清洗'] }, src, { file: 'Movie.csv', line: 3666 });
  b.movie({ subjectId: '2', title: '消失的爱人', aliases: ['控制', '!', '失踪罪(港)'] }, src, { file: 'Movie.csv', line: 46 });
  b.entity({ id: 'movie/douban/3', kind: 'Movie', name: '乱世佳人' }, src, { file: 'Movie.csv', line: 615 });
  b.relation({ kind: 'ALIAS', from: 'movie/douban/3', to: '飘' }, src, { file: 'Movie.csv', line: 615 });
  b.relation({ kind: 'ALIAS', from: 'movie/douban/3', to: 'Gone with the Wind(美)' }, src, { file: 'Movie.csv', line: 615 });
  const { data, report } = b.build();
  const aliases = (id: string) => data.entities.find((e) => e.id === id)!.aliases;
  assert.deepEqual(aliases('movie/douban/10453723'), ['国定杀戮日', '大清洗', '灭绝游戏']);
  assert.deepEqual(aliases('movie/douban/2'), ['失踪罪']);
  assert.deepEqual(aliases('movie/douban/3'), ['Gone with the Wind']);
  assert.deepEqual(
    data.relations.filter((r) => r.kind === 'ALIAS').map((r) => r.to).sort(),
    ['Gone with the Wind', '国定杀戮日', '大清洗', '失踪罪', '灭绝游戏'],
  );
  assert.deepEqual(
    report.aliases.changed.map((g) => [g.reason, g.count, g.examples[0]]),
    [
      ['region or note tag removed', 3, 'Movie.csv:3666: 国定杀戮日(台/港) → 国定杀戮日'],
      ['split inside brackets, joined again', 1, 'Movie.csv:3666: 国定杀戮日(台 + 港) → 国定杀戮日(台/港)'],
    ],
  );
  assert.deepEqual(
    report.aliases.dropped.map((g) => [g.reason, g.count, g.examples[0]]),
    [
      ['a common word (title policy)', 1, 'Movie.csv:46: 消失的爱人 → 控制'],
      ['a single character', 1, 'Movie.csv:615: 乱世佳人 → 飘 (ALIAS relation)'],
      ['only punctuation or symbols', 1, 'Movie.csv:46: 消失的爱人 → !'],
    ],
  );
  assert.equal(report.skipped.length, 0, 'a dropped alias is not a bad row');
});
