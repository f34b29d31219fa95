/**
 * PLAYED mining (src/kg/played.ts): character-name cleanup and mention patterns. The sentences are
 * short snippets of real Douban synopses (DouBan-KGQA / douban-movies-2065 summaries) or written in
 * their house style.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict.js';
import { cleanCharacterName, minePlayed, actorVariants, stripRelationPrefix, stripClausePrefix, isVerbPhrase, PLAYED_DEFAULTS } from '../../src/kg/played.js';

const jieba = Jieba.withDict(dict);
const tagger = (s: string) => jieba.tag(s, true);
const clean = (s: string) => {
  const r = cleanCharacterName(s, { tagger });
  return 'name' in r ? r.name : `REJECT: ${r.reject}`;
};

test('cleanup: descriptive prefixes, role nouns and function words are removed (real snippets)', () => {
  const cases: [string, string][] = [
    ['身陷囹圄的李问', '李问'],
    ['普通中年男子程勇', '程勇'],
    ['不速之客吕受益', '吕受益'],
    ['为救女儿被迫做舞女的思慧', '思慧'],
    ['程勇昔日的小舅子曹警官', '曹警官'], // surname + title is a name
    ['金江市副市长郑刚', '郑刚'],
    ['她选择回到从前不让至尊宝', '至尊宝'],
    ['目睹师父一家遭师兄朱潜龙', '朱潜龙'],
    ['法租界当警督的发小项飞田', '项飞田'],
    ['在城中遇上多年不见师弟马锋', '马锋'],
    ['韩国顶尖主播高惠兰', '高惠兰'],
    ['一代枭雄曹孟德', '曹孟德'],
    ['霍比特人弗拉多', '弗拉多'],
    ['美国公证人亚当·尤因', '亚当·尤因'],
    ['彼得·奎尔', '彼得·奎尔'], // 得 inside a transliteration is not a function word
    ['汤姆•维尔金森', '汤姆·维尔金森'], // dots unified
    ['卧底联络人QSir', 'QSir'],
    ['取名1900', '1900'],
    ['上官娣娣', '上官娣娣'], // compound surname kept
    ['李问', '李问'],
  ];
  for (const [input, want] of cases) assert.equal(clean(input), want, input);
});

test('cleanup: quoted names are taken as they are', () => {
  assert.equal(clean('脾气暴烈的“黄毛”'), '黄毛');
  assert.equal(clean('首脑“画家”'), '画家');
  assert.equal(clean('“男人婆”'), '男人婆');
});

test('cleanup: garbage is rejected with a reason', () => {
  const rejects: [string, RegExp][] = [
    ['他的老婆', /role noun/],
    ['学校的校长', /role noun/],
    ['大陆公安队长', /role noun|description/],
    ['陌生男子', /role noun|description/],
    ['她', /pronoun/],
    ['逃亡的进', /too short/],
    ['', /no name/],
    ['的生化机器人T-1000', /not a name/],
    ['修炼的白青二蛇。青', /too short/],
  ];
  for (const [input, re] of rejects) assert.match(clean(input), re, input);
});

test('cleanup without a tagger still handles the common shapes', () => {
  const r = cleanCharacterName('身陷囹圄的李问');
  assert.deepEqual(r, { name: '李问' });
  assert.equal(PLAYED_DEFAULTS.tagger, null);
});

test('actor variants: Latin tails and / alternatives', () => {
  assert.deepEqual(actorVariants('蒂姆·罗宾斯 Tim Robbins'), ['蒂姆·罗宾斯 Tim Robbins', '蒂姆·罗宾斯', 'Tim Robbins']);
  assert.deepEqual(actorVariants('休·杰克曼HughJackman'), ['休·杰克曼HughJackman', '休·杰克曼', 'HughJackman']);
  assert.deepEqual(actorVariants('吴珊卓/SandraOh'), ['吴珊卓', 'SandraOh']);
});

const cast = (names: string[]) => (variants: string[]) => variants.find((v) => names.includes(v));

test('mentions: full- and half-width brackets, spaces, 饰演 in the bracket', () => {
  const text =
    '普通中年男子程勇（徐峥 饰）经营着一家保健品店。不速之客吕受益(王传君饰)的到来，' +
    '让他开辟了新事业；脾气暴烈的“黄毛”（章宇 饰演）也加入了。程勇昔日的小舅子曹警官（周一围 饰)奉命调查。';
  const { mentions, rejected } = minePlayed(text, cast(['徐峥', '王传君', '章宇', '周一围']), { tagger });
  assert.deepEqual(
    mentions.map((m) => [m.character, m.person]),
    [
      ['程勇', '徐峥'],
      ['吕受益', '王传君'],
      ['黄毛', '章宇'],
      ['曹警官', '周一围'],
    ],
  );
  assert.deepEqual(rejected, []);
});

test('mentions: uncredited actors are rejected, never guessed', () => {
  const { mentions, rejected } = minePlayed('说一口流利英语的刘牧师（杨新鸣 饰）出场。', cast(['徐峥']), { tagger });
  assert.deepEqual(mentions, []);
  assert.equal(rejected.length, 1);
  assert.equal(rejected[0].reason, 'actor not credited on the film');
});

test('mentions: Latin names in the bracket resolve through their variants', () => {
  const { mentions } = minePlayed('银行家安迪（蒂姆·罗宾斯 Tim Robbins 饰）被判无期徒刑。', cast(['蒂姆·罗宾斯']), { tagger });
  assert.deepEqual(mentions.map((m) => [m.character, m.actor, m.person]), [['安迪', '蒂姆·罗宾斯 Tim Robbins', '蒂姆·罗宾斯']]);
});

test('mentions: several actors — twins play one character, lists pair in order, 等 groups are rejected', () => {
  const twins = minePlayed('襁褓中的婴儿小红（宋美曼 & 宋美慧 饰）', cast(['宋美曼', '宋美慧']), { tagger });
  assert.deepEqual(twins.mentions.map((m) => [m.character, m.person]), [
    ['小红', '宋美曼'],
    ['小红', '宋美慧'],
  ]);
  const list = minePlayed('队员张三、李四和王五（甲、乙、丙 饰）出发了。', cast(['甲', '乙', '丙']), { tagger, minLength: 1 });
  assert.deepEqual(list.mentions.map((m) => [m.character, m.person]), [
    ['张三', '甲'],
    ['李四', '乙'],
    ['王五', '丙'],
  ]);
  const group = minePlayed('他身边的女人们（章子怡、王菲等饰）', cast(['章子怡', '王菲']), { tagger });
  assert.deepEqual(group.mentions, []);
  assert.match(group.rejected[0].reason, /group/);
});

test('mentions: 演员饰演角色 needs a credited actor and a name that ends at punctuation', () => {
  const ok = minePlayed('本片中菅田将晖饰演柊一颯，永野芽郁饰演茅野。', cast(['菅田将晖', '永野芽郁']), { tagger });
  assert.deepEqual(ok.mentions.map((m) => [m.character, m.person]), [
    ['柊一颯', '菅田将晖'],
    ['茅野', '永野芽郁'],
  ]);
  const clause = minePlayed('赵寅成饰演在强迫症的折磨下生活的推理小说作家。', cast(['赵寅成']), { tagger });
  assert.deepEqual(clause.mentions, []);
  const prose = minePlayed('她毫不掩饰自己的野心，饰演过很多角色。', cast(['徐峥']), { tagger });
  assert.deepEqual(prose.mentions, []);
});

test('cleanup: relation prefixes glued to a name are stripped and reported (real snippets)', () => {
  const cases: [string, string][] = [
    ['霍元甲之子霍廷恩', '霍廷恩'],
    ['白嘉轩之子白孝文', '白孝文'],
    ['其女陆永瑜', '陆永瑜'],
    ['其妹孙尚香', '孙尚香'],
    ['之妻月华', '月华'],
    ['副官曹蛮', '曹蛮'],
    ['部下白兰', '白兰'],
    ['其女友珍妮', '珍妮'], // 其女友 is one relation: not 其女 + 友珍妮
    ['和珅', '和珅'], // a name that starts with a function word stays
  ];
  for (const [input, want] of cases) assert.equal(clean(input), want, input);
  assert.deepEqual(cleanCharacterName('霍元甲之子霍廷恩', { tagger }), { name: '霍廷恩', stripped: '霍元甲之子' });
  assert.deepEqual(cleanCharacterName('普通中年男子程勇', { tagger }), { name: '程勇' });
  // the prefix is kept when no name of minLength characters would be left
  assert.deepEqual(stripRelationPrefix('之子'), { name: '之子', stripped: '' });
  assert.deepEqual(stripRelationPrefix('其子A', 2), { name: '其子A', stripped: '' });
  assert.equal(clean('第一次与她'), 'REJECT: a pronoun, not a name');
});

test('mentions: a stripped relation prefix is carried on the mention for the import report', () => {
  const { mentions } = minePlayed('霍元甲之子霍廷恩（李连杰 饰）继承父业。', cast(['李连杰']), { tagger });
  assert.deepEqual(
    mentions.map((m) => [m.character, m.person, m.stripped]),
    [['霍廷恩', '李连杰', '霍元甲之子']],
  );
});

test('fragments: a verb and a kin word or role is rejected with its reason (携妻 of 让子弹飞); a surname before a title is a name', () => {
  const verbPhrase = 'REJECT: a verb and a kin word or role (携妻), not a name';
  const cases: [string, string][] = [
    ['民国年间，花钱捐得县长的马邦德（葛优饰）携妻', verbPhrase],
    ['汤姆（汤姆·克鲁斯饰)携太太', verbPhrase],
    ['里多个无辜的人。 失恋女', verbPhrase],
    ['大型珠宝展览会，自称医生', verbPhrase],
    ['的毒贩带着成年的失踪幼女', verbPhrase],
    ['马邦德（葛优饰）偕妻', verbPhrase],
    ['找到了查老板', '查老板'],
    ['这时候曹警官', '曹警官'],
  ];
  for (const [before, want] of cases) assert.equal(clean(before), want, before);
  // without a tagger, only the taking-along verbs are known
  assert.equal(isVerbPhrase('携妻'), true);
  assert.equal(isVerbPhrase('失恋女'), false);
  assert.equal(isVerbPhrase('失恋女', { tagger }), true);
  assert.equal(isVerbPhrase('查老板', { tagger }), false);
});

test('fragments: a clause word at the start is stripped and reported with the relation prefixes (还有艾格 → 艾格)', () => {
  assert.deepEqual(stripClausePrefix('还有艾格'), { name: '艾格', stripped: '还有' });
  assert.deepEqual(stripClausePrefix('而李允浩'), { name: '李允浩', stripped: '而' });
  assert.deepEqual(stripClausePrefix('而立'), { name: '而立', stripped: '' }, 'a name of one character would be left');
  assert.deepEqual(stripClausePrefix('还有'), { name: '还有', stripped: '' });
  const { mentions } = minePlayed('他的朋友还有艾格（某甲 饰）。', cast(['某甲']), { tagger });
  assert.deepEqual(mentions.map((m) => [m.character, m.stripped]), [['艾格', '还有']]);
});
