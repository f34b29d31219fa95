/**
 * The phrase stage's options against the defects of the compound candidates and the selection
 * (phrases.ts `nameTail`, `stopHeads`, `rescueWords`; all off by default): golden candidates and
 * selections on small fixtures, each of which the stage without the option gets wrong.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findCompounds } from '../../src/pipeline/phrases.js';
import { selectItems, type RankedItem } from '../../src/pipeline/select.js';
import { FILM_HEAD_NOUNS, filmHeadNouns, filmOnlyStopwords } from '../../src/pipeline/candidates.js';
import { resolveOptions } from '../../src/pipeline/options.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { selectWithModel, type TrainingDocument } from '../../src/eval/rerank-train.js';
import { zeroRerankModel } from '../../src/pipeline/rerank-model.js';
import { FilmkwError } from '../../src/errors.js';
import { loadKg } from '../../src/kg/load.js';
import { tokenDoc } from '../fixtures/pipeline/token-doc.js';

const STOP = new Set(['的', '在', '电影', '导演', '人物']);
const stop = (w: string): boolean => STOP.has(w);
const FILM = new Set(['电影', '导演', '人物']);
const head = (w: string): boolean => FILM.has(w);
const texts = (list: readonly { text: string }[]): string[] => list.map((p) => p.text);

test('nameTail: a dotted name keeps its cut-off last syllable (汉尼拔·莱克+特), the truncated name is no candidate', () => {
  // 汉尼拔/nz ·/x 莱克/nrt 特/d 的/uj 故事/n
  const { tokens, doc } = tokenDoc([['汉尼拔', 'nz'], ['·', 'x'], ['莱克', 'nrt'], ['特', 'd'], ['的', 'uj'], ['故事', 'n']], [0, 2, 5]);
  const o = { maxTokens: 3, minCount: 1 };
  assert.deepEqual(texts(findCompounds(tokens, doc, o, stop)), ['汉尼拔·莱克']);
  const found = findCompounds(tokens, doc, { ...o, nameTail: true }, stop);
  assert.deepEqual(texts(found), ['汉尼拔·莱克特', '莱克特']);
  assert.deepEqual([found[0].oneCharParts, found[0].joined], [1, true]);
});

test('nameTail: after a KG name matched whole (马修·麦康纳 + 希), not after a name without a dot, not a common word (在, 演)', () => {
  // 马修·麦康纳/nr 希/v 主演/n : the name is a KG entity, so without the option it is no part of a compound
  const pairs: [string, string][] = [['马修·麦康纳', 'nr'], ['希', 'v'], ['主演', 'n'], ['。', 'x'], ['马修·麦康纳', 'nr'], ['演', 'v'], ['主演', 'n'], ['张三', 'nr'], ['特', 'd']];
  const { tokens, doc } = tokenDoc(pairs, [0, 2, 4, 6, 7]);
  const entities = doc.words.map((w) => (w === '马修·麦康纳' ? Int32Array.of(0) : null));
  const o = { maxTokens: 3, minCount: 1 };
  assert.deepEqual(texts(findCompounds(tokens, doc, o, stop, entities)), ['希主演', '演主演', '演主演张三', '主演张三']);
  assert.deepEqual(texts(findCompounds(tokens, doc, { ...o, nameTail: true }, stop, entities)), ['马修·麦康纳希', '演主演', '演主演张三', '主演张三']);
});

test('stopHeads: a film stop word heads a compound (邪典电影, 中国电影), first part only under edges (人物塑造), never inside or alone', () => {
  // 邪典/x 电影/n 。 人物/n 塑造/v 的/uj 中国/ns 电影/n 人物/n
  const pairs: [string, string][] = [['邪典', 'x'], ['电影', 'n'], ['。', 'x'], ['人物', 'n'], ['塑造', 'v'], ['的', 'uj'], ['中国', 'ns'], ['电影', 'n'], ['人物', 'n'], ['。', 'x'], ['导演', 'n'], ['的', 'uj']];
  const { tokens, doc } = tokenDoc(pairs, [0, 4, 6]);
  const o = { maxTokens: 3, minCount: 1 };
  assert.deepEqual(texts(findCompounds(tokens, doc, o, stop, null, head)), []);
  assert.deepEqual(texts(findCompounds(tokens, doc, { ...o, stopHeads: 'last' }, stop, null, head)), ['邪典电影', '中国电影']);
  assert.deepEqual(texts(findCompounds(tokens, doc, { ...o, stopHeads: 'edges' }, stop, null, head)), ['邪典电影', '人物塑造', '中国电影']);
  // without the film list (head = null) the option has nothing to go by
  assert.deepEqual(texts(findCompounds(tokens, doc, { ...o, stopHeads: 'last' }, stop, null, null)), []);
});

test('stopHeads with the film head nouns: 片/q and 导演/v head a two-part compound (爆米花片, 第四代导演); no verb heads (真心觉得), no three parts', () => {
  // 爆米花/n 片/q 。 真心/d 觉得/v 。 爆米花/n 商业/n 电影/n 。 第四代/m 导演/v 吴天明/nr 。 中国/ns 电影/n
  const pairs: [string, string][] = [
    ['爆米花', 'n'], ['片', 'q'], ['。', 'x'], ['真心', 'd'], ['觉得', 'v'], ['。', 'x'], ['爆米花', 'n'], ['商业', 'n'], ['电影', 'n'], ['。', 'x'],
    ['第四代', 'm'], ['导演', 'v'], ['吴天明', 'nr'], ['。', 'x'], ['中国', 'ns'], ['电影', 'n'],
  ];
  const { tokens, doc } = tokenDoc(pairs, [0, 3, 6, 7, 10, 12, 14]);
  const filmStop = new Set(['觉得', '电影', '导演', '片子']);
  const heads = filmHeadNouns();
  const head = (w: string): boolean => heads.has(w);
  const o = { maxTokens: 3, minCount: 1, stopHeads: 'last' as const };
  const found = texts(findCompounds(tokens, doc, o, (w) => filmStop.has(w), null, head));
  assert.deepEqual(found, ['爆米花片', '爆米花商业', '商业电影', '第四代导演', '中国电影']);
  // every film stop word as a head (the head list before issue 24): 真心觉得 forms
  const old = texts(findCompounds(tokens, doc, o, (w) => filmStop.has(w), null, (w) => filmStop.has(w)));
  assert.ok(old.includes('真心觉得'), old.join(' '));
  for (const w of ['电影', '导演', '演员', '片', '剧', '情节']) assert.ok(heads.has(w), w);
  for (const w of ['觉得', '讲述', '出现', '精彩', '东西']) assert.ok(!heads.has(w), w);
  assert.deepEqual(FILM_HEAD_NOUNS.filter((w) => w.length > 1 && !filmOnlyStopwords().has(w)), [], 'the longer heads are film stop words');
});

test('filmOnlyStopwords: the film list without the general one', () => {
  const s = filmOnlyStopwords();
  for (const w of ['电影', '导演', '人物']) assert.ok(s.has(w), w);
  for (const w of ['的', '在', '了']) assert.ok(!s.has(w), w);
});

const item = (text: string, value: number, count: number, phrase = text.length > 2): RankedItem => ({ text, value, charStart: 0, phrase, count });

test('rescueWords: a word takes the place of a phrase seen once that hid it; joined names and repeated phrases keep theirs', () => {
  const items = [
    item('汉尼拔·莱克特', 9, 1), // a joined name: never replaced
    item('回去香港', 8, 1),
    item('保护生命', 7, 1),
    item('传统文化', 6, 2), // seen twice: a collocation, kept
    item('生命', 5, 3, false),
    item('香港', 4, 1, false),
    item('汉尼拔', 3, 4, false),
    item('传统', 2, 5, false),
    item('唢呐', 1, 2, false),
  ];
  for (const limit of [5, 20]) {
    // scan (≤ 10) and sort paths alike
    const pick = (rescue: 'off' | 'repeated' | 'any' | 'outside') => selectItems(items, 'firstOccurrence', 'phrases', limit, rescue).map((i) => items[i].text);
    assert.deepEqual(pick('off').slice(0, 5), ['汉尼拔·莱克特', '回去香港', '保护生命', '传统文化', '唢呐']);
    assert.deepEqual(pick('repeated').slice(0, 5), ['汉尼拔·莱克特', '回去香港', '生命', '传统文化', '唢呐']);
    assert.deepEqual(pick('any').slice(0, 5), ['汉尼拔·莱克特', '香港', '生命', '传统文化', '唢呐']);
    // the word more often than the phrase: 传统 (5×) takes 传统文化's (2×) place, 香港 (1×) not 回去香港's
    assert.deepEqual(pick('outside').slice(0, 5), ['汉尼拔·莱克特', '回去香港', '生命', '传统', '唢呐']);
  }
  // a word that overlaps two phrases seen once replaces both, at the first one's place
  const two = [item('传承也许', 3, 1), item('传承传统', 2, 1), item('传承', 1, 2, false), item('匠心', 0.5, 1, false)];
  assert.deepEqual(selectItems(two, 'firstOccurrence', 'phrases', 3, 'repeated').map((i) => two[i].text), ['传承', '匠心']);
  // no dedup, no rescue
  assert.deepEqual(selectItems(two, 'firstOccurrence', 'off', 3, 'any').map((i) => two[i].text), ['传承也许', '传承传统', '传承']);
});

test('rescueWords: the training cross-validation selects with the table\'s option', () => {
  const x = new Float64Array(0);
  const doc: TrainingDocument = {
    id: 'd',
    gold: ['生命'],
    items: [
      { text: '保护生命', charStart: 0, phrase: true, count: 1, x, label: 0 },
      { text: '生命', charStart: 1, phrase: false, count: 2, x, label: 1 },
    ],
  };
  const model = zeroRerankModel();
  assert.deepEqual(selectWithModel(doc, model, 5), ['保护生命']);
  assert.deepEqual(selectWithModel({ ...doc, select: { dedup: 'phrases', rescueWords: 'repeated' } }, model, 5), ['生命']);
});

test('the options are off by default and strictly validated', () => {
  const p = resolveOptions('filmkw-rerank').phrases;
  assert.deepEqual([p.rescueWords, p.nameTail, p.stopHeads], ['off', false, 'off']);
  for (const [key, value] of [['phrases.rescueWords', 'seenOnce'], ['phrases.nameTail', 'yes'], ['phrases.stopHeads', 'first'], ['phrases.stopHeads', true]] as const) {
    assert.throws(() => resolveOptions('filmkw-rerank', { [key]: value }), (e: unknown) => e instanceof FilmkwError && e.message.includes(key.split('.')[1]), `${key}=${String(value)}`);
  }
});

test('stopHeads through the extractor: the film stop words reach the compound stage', async () => {
  const kg = await loadKg({});
  const text = '这是一部邪典电影。邪典电影的影迷很多，邪典电影值得一看。';
  const candidates = (overrides: Record<string, unknown>): string[] => {
    const ex = createExtractor({ preset: 'filmkw-rerank', kg, overrides });
    let list: string[] = [];
    ex.extract(text, { topK: 5, candidates: (c) => (list = c.map((x) => x.text)) });
    return list;
  };
  assert.ok(!candidates({}).includes('邪典电影'));
  assert.ok(candidates({ 'phrases.stopHeads': 'last' }).includes('邪典电影'));
});

test('entityWords people: a film title inside a longer term is a compound part (长津湖+战役), a person never (吴京+粉丝)', async () => {
  const kg = await loadKg({});
  const text = '长津湖战役是抗美援朝的一战。长津湖战役中志愿军冒着严寒作战，吴京粉丝去看了电影，吴京粉丝说长津湖战役很惨烈。';
  const compounds = (entityWords: string): string[] => {
    let list: string[] = [];
    createExtractor({ preset: 'filmkw-rerank', kg, overrides: { 'phrases.entityWords': entityWords } }).extract(text, { candidates: (l) => (list = l.map((c) => c.text)) });
    return list;
  };
  const exclude = compounds('exclude');
  // the defect: 长津湖 (a Movie of the KG) blocks the compound
  assert.ok(!exclude.includes('长津湖战役') && !exclude.includes('吴京粉丝'), exclude.join(' '));
  const people = compounds('people');
  assert.ok(people.includes('长津湖战役') && !people.includes('吴京粉丝'), people.join(' '));
  const allow = compounds('allow');
  assert.ok(allow.includes('长津湖战役') && allow.includes('吴京粉丝'), allow.join(' '));
});
