/**
 * The merging builder (src/kg/builder.ts): joins, the people rule, name choice, counts, determinism.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { KgMergeBuilder, personKey, relationKindOf, type SourceCtx } from '../../src/kg/builder.js';
import { KgStore } from '../../src/kg/store.js';

const KGQA: SourceCtx = { kind: 'kgqa', spec: 'kgqa:a' };
const OPENKG: SourceCtx = { kind: 'openkg', spec: 'openkg:b' };
const DCSV: SourceCtx = { kind: 'douban-csv', spec: 'douban-csv:c' };
const at = (line: number) => ({ file: 'f', line });

test('films join on the subject id; the name follows source priority; other names become aliases', () => {
  const b = new KgMergeBuilder();
  b.movie({ subjectId: '1', title: '为奴十二年', aliases: ['12 Years a Slave'] }, KGQA, at(1));
  b.movie({ subjectId: '1', title: '为奴十二载', genres: ['剧情', '历史'] }, OPENKG, at(2));
  const { data, report } = b.build();
  const m = data.entities.find((e) => e.id === 'movie/douban/1')!;
  assert.equal(m.name, '为奴十二载');
  assert.deepEqual(m.aliases, ['12 Years a Slave', '为奴十二年']);
  assert.deepEqual(m.surfaces, ['为奴十二年', '为奴十二载']);
  assert.equal(report.merged.entities, 1);
  const aliasRels = data.relations.filter((r) => r.kind === 'ALIAS').map((r) => r.to);
  assert.deepEqual(aliasRels.sort(), ['12 Years a Slave', '为奴十二年']);
});

test('two Douban people who share a name are never merged; name-only credits attach only on the same film', () => {
  const b = new KgMergeBuilder({ minePlayed: false });
  const m1 = b.movie({ subjectId: '1', title: '甲' }, KGQA, at(1))!;
  const m2 = b.movie({ subjectId: '2', title: '乙' }, KGQA, at(2))!;
  const m3 = b.movie({ subjectId: '3', title: '丙' }, DCSV, at(3))!;
  b.credit(m1, 'ACTED_IN', { name: '张国荣', celebrityId: '1003494' }, KGQA, at(1));
  b.credit(m2, 'ACTED_IN', { name: '张国荣', celebrityId: '1339818' }, KGQA, at(2));
  // name-only credits: on m1 → 1003494, on m2 → 1339818, on m3 (no id-person there) → name-based
  b.credit(m1, 'ACTED_IN', { name: '张国荣' }, DCSV, at(4));
  b.credit(m2, 'DIRECTED', { name: '张国荣' }, DCSV, at(5));
  b.credit(m3, 'ACTED_IN', { name: '张国荣' }, DCSV, at(6));
  // one OpenKG person linked to two different ids is not carried to other films
  b.credit(m1, 'WROTE', { name: '张国荣', localKey: 'openkg:h' }, OPENKG, at(7));
  b.credit(m2, 'WROTE', { name: '张国荣', localKey: 'openkg:h' }, OPENKG, at(8));
  b.credit(m3, 'WROTE', { name: '张国荣', localKey: 'openkg:h' }, OPENKG, at(9));
  const { data, report } = b.build();
  const rel = data.relations.map((r) => `${r.kind} ${r.from} ${r.to}`).sort();
  assert.deepEqual(rel, [
    'ACTED_IN person/douban/1003494 movie/douban/1',
    'ACTED_IN person/douban/1339818 movie/douban/2',
    'ACTED_IN person/name/张国荣 movie/douban/3',
    'DIRECTED person/douban/1339818 movie/douban/2',
    'WROTE person/douban/1003494 movie/douban/1',
    'WROTE person/douban/1339818 movie/douban/2',
    'WROTE person/name/张国荣 movie/douban/3',
  ]);
  assert.equal(report.merged.relations, 1); // ACTED_IN of 1003494 on m1 given twice
  assert.equal(report.people.linkedViaSourcePerson, 0);
});

test('a source person linked to one id on one film follows it to its other films', () => {
  const b = new KgMergeBuilder({ minePlayed: false });
  const m1 = b.movie({ subjectId: '1', title: '甲' }, KGQA, at(1))!;
  const m2 = b.movie({ subjectId: '2', title: '乙' }, OPENKG, at(2))!;
  b.credit(m1, 'ACTED_IN', { name: '汤姆·维尔金森', celebrityId: '7' }, KGQA, at(1));
  b.credit(m1, 'ACTED_IN', { name: '汤姆•维尔金森', localKey: 'openkg:h' }, OPENKG, at(3)); // other dot, same person
  b.credit(m2, 'ACTED_IN', { name: '汤姆•维尔金森', localKey: 'openkg:h' }, OPENKG, at(4));
  const { data, report } = b.build();
  assert.deepEqual(data.relations.map((r) => `${r.from} ${r.to}`).sort(), ['person/douban/7 movie/douban/1', 'person/douban/7 movie/douban/2']);
  assert.equal(report.people.linkedSameFilm, 1);
  assert.equal(report.people.linkedViaSourcePerson, 1);
  const p = data.entities.find((e) => e.id === 'person/douban/7')!;
  assert.equal(p.name, '汤姆•维尔金森'); // openkg outranks kgqa; the other spelling is an alias
  assert.deepEqual(p.aliases, ['汤姆·维尔金森']);
});

test('PLAYED needs the actor among the film credits; characters belong to their film', () => {
  const b = new KgMergeBuilder();
  const m = b.movie({ subjectId: '26752088', title: '我不是药神' }, DCSV, at(2))!;
  b.credit(m, 'ACTED_IN', { name: '徐峥' }, DCSV, at(2));
  b.synopsis(m, '普通中年男子程勇（徐峥 饰）经营着一家保健品店，刘牧师（杨新鸣 饰）也来了。', at(2));
  const { data, report } = b.build();
  const played = data.relations.filter((r) => r.kind === 'PLAYED');
  assert.deepEqual(played, [{ kind: 'PLAYED', from: 'person/name/徐峥', to: 'character/movie/douban/26752088/程勇', movieId: m }]);
  assert.equal(data.entities.find((e) => e.kind === 'Character')?.movieId, m);
  assert.equal(report.dropped.find((g) => g.reason === 'played: actor not credited on the film')?.count, 1);
});

test('relation labels, person keys', () => {
  assert.equal(relationKindOf('饰演'), 'PLAYED');
  assert.equal(relationKindOf(' 别名 '), 'ALIAS');
  assert.equal(relationKindOf('LIKES'), undefined);
  assert.equal(personKey('汤姆•维尔金森'), personKey('汤姆·维尔金森'));
  assert.equal(personKey('Kit Harington'), personKey('KitHarington'));
  // every dot of the sources between name parts compares equal: the full stop used as a middle dot (the four
  // people issue 25 left split: J.R.R.托尔金, J.D·埃弗摩尔, 雷格·E.凯蒂, J.麦基·格鲁伯), the fullwidth and small full
  // stops, bullet, hyphenation point, katakana and halfwidth middle dots, bullet operator, dot operator
  const tolkien = personKey('J·R·R·托尔金');
  for (const v of ['J.R.R.托尔金', 'J．R．R．托尔金', 'J﹒R﹒R﹒托尔金', 'J•R•R•托尔金', 'J‧R‧R‧托尔金', 'J・R・R・托尔金', 'J･R･R･托尔金', 'J∙R∙R∙托尔金', 'J⋅R⋅R⋅托尔金', 'J⸱R⸱R⸱托尔金', 'J。R。R。托尔金', 'j. r. r. 托尔金']) {
    assert.equal(personKey(v), tolkien, v);
  }
  assert.equal(personKey('J.D·埃弗摩尔'), personKey('J·D·埃弗摩尔'));
  assert.equal(personKey('雷格·E.凯蒂'), personKey('雷格·E·凯蒂'));
  assert.equal(personKey('J.麦基·格鲁伯'), personKey('J·麦基·格鲁伯'));
  assert.equal(personKey('让－克劳德·古卢姆伯格'), personKey('让-克劳德·古卢姆伯格'));
  // still apart: other letters, and the parts' order
  assert.notEqual(personKey('J.R.R.托尔金'), personKey('J.R.托尔金'));
  assert.notEqual(personKey('张艺谋'), personKey('张艺'));
  assert.notEqual(personKey('R·J·托尔金'), personKey('J·R·托尔金'));
});

test('property: the content hash does not depend on the order records arrive in', () => {
  type Rec = { subject: number; title: string; person: string; cid: number | null; role: 'DIRECTED' | 'WROTE' | 'ACTED_IN'; src: 0 | 1 | 2 };
  const srcs = [KGQA, OPENKG, DCSV];
  const recArb = fc.record({
    subject: fc.integer({ min: 1, max: 4 }),
    title: fc.constantFrom('甲', '乙', '丙 Film', 'Ｆｕｌｌ'),
    person: fc.constantFrom('张三', '李四', '张 三', 'Tim Robbins'),
    cid: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
    role: fc.constantFrom('DIRECTED' as const, 'WROTE' as const, 'ACTED_IN' as const),
    src: fc.constantFrom(0 as const, 1 as const, 2 as const),
  });
  const hashOf = (recs: Rec[]) => {
    const b = new KgMergeBuilder({ minePlayed: false });
    recs.forEach((r, i) => {
      const m = b.movie({ subjectId: String(r.subject), title: r.title, genres: ['剧情'] }, srcs[r.src], at(i));
      if (m) b.credit(m, r.role, { name: r.person, celebrityId: r.cid === null ? undefined : String(r.cid), localKey: r.src === 1 ? `openkg:${r.person}` : undefined }, srcs[r.src], at(i));
    });
    return KgStore.fromData(b.build().data).contentHash;
  };
  fc.assert(
    fc.property(fc.array(recArb, { minLength: 1, maxLength: 25 }), fc.integer(), (recs, seed) => {
      const shuffled = [...recs].sort((a, b) => ((JSON.stringify(a).length * 31 + seed) % 7) - ((JSON.stringify(b).length * 31 + seed) % 7));
      assert.equal(hashOf(shuffled), hashOf(recs));
      assert.equal(hashOf([...recs].reverse()), hashOf(recs));
    }),
    { numRuns: 200 },
  );
});
