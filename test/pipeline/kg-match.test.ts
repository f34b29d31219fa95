import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MatchCache, inDocumentLinks, matchEntities, primaryEntity, resolveAmbiguity, type KgMatchOptions } from '../../src/pipeline/kg-match.js';
import { miniKg } from '../fixtures/pipeline/mini-kg.js';

// two films named 英雄 (a Movie and a Character of another film), one person 李连杰 related to the film
const kg = miniKg(
  [
    { name: '英雄', kind: 'Movie', aliases: ['Hero'] },
    { name: '英雄', kind: 'Character' },
    { name: '李连杰', kind: 'Person' },
    { name: '某片', kind: 'Movie' },
    { name: '张三', kind: 'Person' },
  ],
  [
    ['李连杰', '主演', '英雄'],
    ['英雄', '角色', '某片'],
    ['张三', '饰演', '英雄'],
  ],
);
// note: miniKg resolves triples by first name match, so both triples on 英雄 above hit entity 0
const OPTS: KgMatchOptions = { match: 'exactOrAlias', mergeAliases: true, ambiguity: 'union', kinds: ['Movie', 'Person', 'Character', 'Genre'] };

test('matching: names and aliases (NFKC-normalised), exact mode, kind filter, cache', () => {
  const words = ['英雄', 'Ｈｅｒｏ', '李连杰', '电影'];
  const m = matchEntities(words, kg, OPTS).map((x) => x && Array.from(x));
  assert.deepEqual(m, [[0, 1], [0], [2], null]);
  assert.deepEqual(matchEntities(words, kg, { ...OPTS, match: 'exact' }).map((x) => x && Array.from(x)), [[0, 1], null, [2], null]);
  assert.deepEqual(matchEntities(words, kg, { ...OPTS, kinds: ['Person'] }).map((x) => x && Array.from(x)), [null, null, [2], null]);
  const cache = new MatchCache(2);
  const first = matchEntities(words, kg, OPTS, cache);
  const second = matchEntities(words, kg, OPTS, cache);
  assert.deepEqual(second, first);
});

test('ambiguity: union keeps all; contextual keeps the entities linked to the document', () => {
  const entities = [Int32Array.from([0, 1]), Int32Array.from([2])];
  assert.deepEqual(resolveAmbiguity(entities, kg, { ambiguity: 'union' }).map((x) => x && Array.from(x)), [[0, 1], [2]]);
  assert.deepEqual(resolveAmbiguity(entities, kg, { ambiguity: 'contextual' }).map((x) => x && Array.from(x)), [[0], [2]]);
  // nothing linked: keep all
  const alone = [Int32Array.from([0, 1]), null];
  assert.deepEqual(resolveAmbiguity(alone, kg, { ambiguity: 'contextual' }).map((x) => x && Array.from(x)), [[0, 1], null]);
  assert.equal(inDocumentLinks(kg, 0, 0, entities), 1);
  assert.equal(inDocumentLinks(kg, 1, 0, entities), 0);
});

test('primary entity: most in-document links, then kind (Movie first), then lowest index', () => {
  assert.equal(primaryEntity(kg, 0, [Int32Array.from([0, 1]), Int32Array.from([2])]), 0);
  assert.equal(primaryEntity(kg, 0, [Int32Array.from([0, 1]), null]), 0, 'no links: Movie before Character');
  assert.equal(primaryEntity(kg, 1, [null, null]), -1);
  assert.equal(primaryEntity(kg, 0, [Int32Array.from([1])]), 1);
});
