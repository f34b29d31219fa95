import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { createSegmenter, type Segmenter, type Token } from '../../src/pipeline/segment.js';
import { DEFAULT_BACKEND, SEGMENTER_BACKENDS } from '../../src/lexicon/base.js';
import { prepareUserDict, preparedFromStrings, preparedToStrings } from '../../src/lexicon/user-dict.js';
import { buildCompoundIndex, findCompounds } from '../../src/pipeline/segmenters/common.js';
import { isHoldableWord, parseUserDict } from '../../src/lexicon/user-dict.js';
import { nodejiebaLoadCount } from '../../src/pipeline/segmenters/nodejieba.js';
import { FilmkwError } from '../../src/errors.js';

// nodejieba holds one dictionary configuration per thread and reloads (about a CPU second) whenever a
// segmenter of another one tags: the tests below are in an order that switches as seldom as possible (the
// tests of one configuration side by side; the compound-only dictionaries hold no nodejieba word, so they
// load what no user dictionary loads). Each test still builds what it checks itself.
const KG_LINES = [
  '肖申克的救赎 1 nz',
  '易烊千玺 1 nr',
  '长津湖 9 nz',
  '我不是药神 1 nz',
  '伍万里 1 nr',
  '吴京 1 nr',
  '莱昂纳多·迪卡普里奥 1 nr',
  // The exporter adds the parts of a compound that are not base-dictionary words (src/lexicon/dict.ts):
  '迪卡普里奥 1 nr',
  '你好，李焕英 1 nz',
  '星球大战：新希望 1 nz',
];

const segs = new Map<string, Segmenter>();
function seg(backend: (typeof SEGMENTER_BACKENDS)[number], lines: string[] | null): Segmenter {
  const key = `${backend}|${lines ? lines.join('\n') : '-'}`;
  let s = segs.get(key);
  if (!s) segs.set(key, (s = createSegmenter({ backend, userDictLines: lines ?? undefined })));
  return s;
}

const show = (ts: Token[]) => ts.map((t) => `${t.word}/${t.tag}`).join(' ');

function assertInvariant(text: string, tokens: Token[]): void {
  let cursor = 0;
  for (const t of tokens) {
    assert.equal(text.slice(t.start, t.end), t.word, `slice at ${t.start}`);
    assert.ok(t.end > t.start, 'non-empty token');
    assert.equal(t.start, cursor, `tokens cover the input contiguously (gap before ${JSON.stringify(t.word)})`);
    cursor = t.end;
  }
  assert.equal(cursor, text.length, 'tokens reach the end of the input');
}

const TRICKY = [
  '',
  ' ',
  '   \t\t\n\n\r\n  ',
  '我看了肖申克的救赎。',
  'Hello  world\n\n长津湖 😀👨‍👩‍👧 好看！！  ',
  '  \t 易烊千玺扮演伍万里，2021年上映的《长津湖》。',
  'a\u3000b　c\r\nd',
  '𠀀𠀁字符 AT&T c# C++ 3.14 50% 1,000',
  'lone \uD800 surrogate \uDC00 and NUL \u0000 end',
  'e\u0301 combining, 한국어, ｆｕｌｌ－ｗｉｄｔｈ, カタカナ',
  '莱昂纳多·迪卡普里奥和你好，李焕英',
];

for (const backend of SEGMENTER_BACKENDS) {
  test(`${backend}: offsets satisfy text.slice(start,end) === word and cover the input (tricky inputs)`, () => {
    for (const lines of [null, KG_LINES]) {
      const s = seg(backend, lines);
      for (const text of TRICKY) assertInvariant(text, s.tag(text));
    }
  });

  test(`${backend}: offsets invariant holds for arbitrary strings (property)`, () => {
    const s = seg(backend, KG_LINES);
    const alphabet = [...'我看了长津湖肖申克的救赎易烊千玺。，！？ \t\n\r·：abcXYZ019.%-#😀\u200d\u0301\u0000\uD800\uDC00《》“”'];
    const arb = fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }).map((a) => a.join(''));
    fc.assert(
      fc.property(arb, (text) => {
        assertInvariant(text, s.tag(text));
      }),
      { numRuns: 300, seed: 42 },
    );
  });

  test(`${backend}: user dictionary makes KG names one token with the user tag`, () => {
    const s = seg(backend, KG_LINES);
    assert.equal(s.userEntries, KG_LINES.length);
    assert.equal(s.compounds, 3);
    const ts = show(s.tag('以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。'));
    assert.match(ts, /^以\/p 易烊千玺\/nr 扮演\/v 的\/uj 伍万里\/nr 这个\/r 孩子\/n 的\/uj 视角\/n ，\/x .* 《\/x 长津湖\/nz 》\/x /u);
    for (const [name, tag] of [
      ['肖申克的救赎', 'nz'],
      ['我不是药神', 'nz'],
      ['莱昂纳多·迪卡普里奥', 'nr'],
      ['你好，李焕英', 'nz'],
      ['星球大战：新希望', 'nz'],
    ]) {
      const ts = s.tag(`我看了${name}。`);
      assert.ok(ts.some((t) => t.word === name && t.tag === tag), `${name} in ${show(ts)}`);
    }
  });
  test(`${backend}: without a user dictionary the KG names split (no silent user dict)`, () => {
    const s = seg(backend, null);
    assert.equal(s.dictionaries.user, null);
    assert.equal(s.userEntries, 0);
    assert.equal(show(s.tag('我看了肖申克的救赎。')), '我/r 看/v 了/ul 肖申克/x 的/uj 救赎/i 。/x');
    // nodejieba's bundled sample user.dict.utf8 (区块链 nz) must not be loaded.
    assert.ok(!s.tag('区块链技术').some((t) => t.word === '区块链'));
    assert.equal(s.tag('我看了长津湖。')[3].tag, 'ns', 'base tag of 长津湖');
  });

}

test('compounds are hard boundaries in both backends: the HMM cannot glue a neighbour to them', () => {
  const lines = ['本·金斯利 1 nr', '千と千尋の神隠し 1 nz'];
  for (const backend of SEGMENTER_BACKENDS) {
    const seg = createSegmenter({ backend, userDictLines: lines });
    // Tagged as one string, nodejieba's HMM makes 了本 one token and no merge is possible.
    assert.equal(show(seg.tag('我看了本·金斯利。')).split(' ').slice(2).join(' '), '了/ul 本·金斯利/nr 。/x', backend);
    const t = seg.tag('我看了千と千尋の神隠し和本·金斯利');
    assert.deepEqual(t.filter((x) => x.tag === 'nz' || x.tag === 'nr').map((x) => [x.word, x.start]), [['千と千尋の神隠し', 3], ['本·金斯利', 12]], backend);
  }
});

test('the user dictionary acts identically in both backends (tokens, tags, offsets)', () => {
  const sentences = [
    '以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。',
    '我看了肖申克的救赎，又看了我不是药神和长津湖。',
    '吴京主演的长津湖讲述了抗美援朝的故事，易烊千玺演得很好。',
    '莱昂纳多·迪卡普里奥在泰坦尼克号里很帅；你好，李焕英让人落泪。星球大战：新希望是经典。',
    '肖申克的救赎肖申克的救赎易烊千玺易烊千玺',
  ];
  const a = seg('node-rs', KG_LINES);
  const b = seg('nodejieba', KG_LINES);
  const names = new Set(KG_LINES.map((l) => l.split(' ')[0]).filter((w) => w !== '迪卡普里奥'));
  let compared = 0;
  for (const s of sentences) {
    const na = a.tag(s).filter((t) => names.has(t.word));
    const nb = b.tag(s).filter((t) => names.has(t.word));
    assert.deepEqual(na, nb, s);
    compared += na.length;
  }
  assert.equal(compared, 16);
  // Outside the names the backends may differ where their HMMs do (拎起/v vs 拎/v 起/v), but not here:
  assert.deepEqual(a.tag(sentences[1]), b.tag(sentences[1]));
});

test('user frequency overrides the base entry identically (a lowered 不是 splits, a strong 津湖 wins)', () => {
  for (const backend of SEGMENTER_BACKENDS) {
    const s = seg(backend, ['不是 1 c', '长津湖 9 nz', '津湖 100000 ns']);
    assert.equal(show(s.tag('他不是人')), '他/r 不/d 是/v 人/n', backend);
    assert.equal(show(s.tag('我看了长津湖。')), '我/r 看/v 了/ul 长/a 津湖/ns 。/x', backend);
  }
});

test('two nodejieba segmenters with different dictionaries in one thread each keep their own configuration', () => {
  const on = createSegmenter({ backend: 'nodejieba', userDictLines: ['肖申克的救赎 1 nz'] });
  const off = createSegmenter({ backend: 'nodejieba', userDict: null });
  const before = nodejiebaLoadCount();
  const text = '我看了肖申克的救赎。';
  assert.ok(on.tag(text).some((t) => t.word === '肖申克的救赎'));
  assert.ok(!off.tag(text).some((t) => t.word === '肖申克的救赎'));
  assert.ok(on.tag(text).some((t) => t.word === '肖申克的救赎'));
  assert.ok(nodejiebaLoadCount() - before >= 2, 'switching reloads');
  const n = nodejiebaLoadCount();
  on.tag(text);
  on.tag(text);
  assert.equal(nodejiebaLoadCount(), n, 'no reload while the configuration is unchanged');
});

test('user dictionary from a file; missing file is FilmkwError INPUT naming the path (checked before nodejieba.load)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-seg-'));
  const p = join(dir, 'user.dict');
  writeFileSync(p, '\uFEFF易烊千玺 1 nr\r\n\r\n长津湖 9 nz\n');
  for (const backend of SEGMENTER_BACKENDS) {
    const s = createSegmenter({ backend, userDict: p });
    assert.equal(s.dictionaries.user, p);
    assert.equal(s.userEntries, 2);
    assert.ok(s.tag('易烊千玺在长津湖').some((t) => t.word === '易烊千玺' && t.tag === 'nr'));
    const missing = join(dir, 'nope.dict');
    assert.throws(
      () => createSegmenter({ backend, userDict: missing }),
      (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && e.message.includes(missing),
    );
  }
});

test('malformed user dictionary lines are FilmkwError INPUT naming file:line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-seg-'));
  const cases: [string, RegExp][] = [
    ['ok 1 n\n长津湖 nz\n', /bad\.dict:2: expected "word freq tag"/u],
    ['长津湖 1 nz extra\n', /:1: expected/u],
    ['长津湖  1 nz\n', /:1: expected/u],
    ['长津湖 1.5 nz\n', /:1: freq must be a positive integer/u],
    ['长津湖 0 nz\n', /:1: freq must be a positive integer/u],
    ['长津湖 1 n-z\n', /:1: tag must be/u],
  ];
  for (const [content, re] of cases) {
    const p = join(dir, 'bad.dict');
    writeFileSync(p, content);
    for (const backend of SEGMENTER_BACKENDS) {
      assert.throws(
        () => createSegmenter({ backend, userDict: p }),
        (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && re.test(e.message),
        `${backend}: ${JSON.stringify(content)}`,
      );
    }
  }
});

test('bad options are usage errors', () => {
  assert.throws(
    () => createSegmenter({ backend: 'hanlp' as never }),
    (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && /node-rs, nodejieba/u.test(e.message),
  );
  assert.throws(
    () => createSegmenter({ userDict: 'x', userDictLines: [] }),
    (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE',
  );
  assert.throws(
    () => createSegmenter({ userDictLines: [], prepared: prepareUserDict({ userDictLines: [] }) }),
    (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && /not several/u.test(e.message),
  );
  assert.equal(createSegmenter().backend, DEFAULT_BACKEND);
});

test('a prepared user dictionary, stored and read back, makes the same segmenter as its lines (both backends)', () => {
  const lines = ['长津湖 9 nz', '易烊千玺 1 nr', '易烊千玺 5 nr', '本·金斯利 1 nr', '伍万里 3 nr'];
  const prepared = prepareUserDict({ userDictLines: lines })!;
  assert.equal(prepared.entries, 4, 'after de-duplication');
  assert.deepEqual(prepared.compounds, [{ word: '本·金斯利', tag: 'nr' }]);
  assert.equal(prepared.holdableText, '长津湖 9 nz\n易烊千玺 5 nr\n伍万里 3 nr\n', 'canonical lines passed on as they are, the last duplicate kept');
  const stored = preparedFromStrings(preparedToStrings(prepared));
  assert.deepEqual(stored, prepared);
  assert.equal(preparedFromStrings(['{"user":1}', '']), null, 'not a stored form');
  assert.equal(preparedFromStrings(['not json', '']), null);
  assert.equal(prepareUserDict({}), null);
  const text = '易烊千玺在长津湖里演伍万里，本·金斯利也来了。';
  for (const backend of SEGMENTER_BACKENDS) {
    const a = createSegmenter({ backend, userDictLines: lines });
    const b = createSegmenter({ backend, prepared: stored });
    assert.deepEqual(b.tag(text), a.tag(text), backend);
    assert.deepEqual([b.dictionaries, b.userEntries, b.compounds], [a.dictionaries, a.userEntries, a.compounds], backend);
  }
});

test('userDictLines: BOM, CR, embedded newlines and repeated words act as the same canonical dictionary (both backends)', () => {
  const text = '易烊千玺主演了长津湖，还有伍万里。';
  for (const backend of SEGMENTER_BACKENDS) {
    const canonical = createSegmenter({ backend, userDictLines: ['长津湖 9 nz', '易烊千玺 5 nr', '伍万里 3 nr'] });
    const messy = createSegmenter({ backend, userDictLines: ['\uFEFF长津湖 9 nz', '易烊千玺 1 nr\r', '易烊千玺 5 nr', '伍万里 3 nr\n'] });
    assert.deepEqual(messy.tag(text), canonical.tag(text), backend);
    assert.equal(messy.userEntries, 3);
    assert.ok(canonical.tag(text).some((t) => t.word === '伍万里' && t.tag === 'nr'), backend);
  }
});

test('parseUserDict: canonical lines, BOM and CRLF tolerated, blank lines skipped, line numbers kept', () => {
  assert.deepEqual(parseUserDict('\uFEFF长津湖 9 nz\r\n\n  \n易烊千玺 1 nr', 'x'), [
    { word: '长津湖', freq: 9, tag: 'nz', line: 1 },
    { word: '易烊千玺', freq: 1, tag: 'nr', line: 4 },
  ]);
});

test('duplicate user entries: the last one wins, in both backends', () => {
  for (const backend of SEGMENTER_BACKENDS) {
    const s = createSegmenter({ backend, userDictLines: ['易烊千玺 1 nz', '易烊千玺 1 nr'] });
    assert.equal(s.userEntries, 1);
    assert.equal(s.tag('易烊千玺')[0].tag, 'nr', backend);
  }
});

test('isHoldableWord: the character class jieba-rs keeps in one block', () => {
  for (const w of ['肖申克的救赎', 'X战警', 'E.T.外星人', '蜘蛛侠-平行宇宙', '007大破天幕杀机', 'Tom&Jerry', '𠀀字']) assert.ok(isHoldableWord(w), w);
  for (const w of ['莱昂纳多·迪卡普里奥', '星球大战：新希望', '你好，李焕英', 'The Matrix', '谁是凶手?', 'カタカナ']) assert.ok(!isHoldableWord(w), w);
});

test('findCompounds: left to right, longest first at a position, never overlapping', () => {
  const idx = buildCompoundIndex([
    { word: '莱昂纳多·迪卡普里奥', tag: 'nr' },
    { word: '莱昂纳多·迪卡', tag: 'nz' },
    { word: '奥·和', tag: 'nz' },
    { word: '·和', tag: 'x1' },
  ]);
  const text = '看莱昂纳多·迪卡普里奥·和莱昂纳多·迪卡';
  assert.deepEqual(findCompounds(text, idx), [
    { start: 1, end: 11, tag: 'nr' },
    { start: 11, end: 13, tag: 'x1' },
    { start: 13, end: 20, tag: 'nz' },
  ]);
  assert.deepEqual(findCompounds(text, buildCompoundIndex([])), []);
  // one-unit compounds: taken only where no longer compound starts at that position; at the text's end too
  const one = buildCompoundIndex([{ word: 'ア', tag: 'k1' }, { word: 'アイ', tag: 'k2' }]);
  assert.deepEqual(findCompounds('アイアxア', one), [
    { start: 0, end: 2, tag: 'k2' },
    { start: 2, end: 3, tag: 'k1' },
    { start: 4, end: 5, tag: 'k1' },
  ]);
});

test('findCompounds: compounds whose units hash alike are told apart by their units; a word given twice keeps its first tag', () => {
  // 馫翈胡 and 菋终乁 have the same 32-bit FNV-1a hash (segment-word-tags.test.ts), so they share a probe chain.
  const idx = buildCompoundIndex([
    { word: '馫翈胡·', tag: 'a' },
    { word: '菋终乁·', tag: 'b' },
    { word: '馫翈胡·', tag: 'dup' },
  ]);
  assert.deepEqual(findCompounds('菋终乁·馫翈胡·菋终乁', idx), [
    { start: 0, end: 4, tag: 'b' },
    { start: 4, end: 8, tag: 'a' },
  ]);
  assert.deepEqual(findCompounds('馫翈胡菋终乁', idx), []);
});

test('findCompounds equals a plain longest-first scan (property; the pair bit set never hides a compound)', () => {
  const units = ['莱', '昂', '·', '迪', '，', '李', '焕', '英', 'a', ' '];
  const word = fc.array(fc.constantFrom(...units), { minLength: 1, maxLength: 4 }).map((a) => a.join(''));
  fc.assert(
    fc.property(fc.uniqueArray(word, { maxLength: 12 }), fc.array(fc.constantFrom(...units), { maxLength: 40 }), (words, chars) => {
      const compounds = words.map((w, i) => ({ word: w, tag: `t${i}` }));
      const text = chars.join('');
      const byLength = [...compounds].sort((a, b) => b.word.length - a.word.length || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
      const want: { start: number; end: number; tag: string }[] = [];
      for (let i = 0; i < text.length; i++) {
        const c = byLength.find((x) => text.startsWith(x.word, i));
        if (c) {
          want.push({ start: i, end: i + c.word.length, tag: c.tag });
          i += c.word.length - 1;
        }
      }
      assert.deepEqual(findCompounds(text, buildCompoundIndex(compounds)), want);
    }),
    { numRuns: 300, seed: 13 },
  );
});

