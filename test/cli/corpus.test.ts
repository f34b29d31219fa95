/**
 * `filmkw corpus build` and `filmkw tag --corpus-stats`, run in this process (test/cli/in-process.ts):
 * the table of a small corpus with the annotated texts excluded by id and by text (counts in the
 * report and in the table), per-input options, and the errors with their exit codes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseCorpusStats, textHash } from '../../src/pipeline/corpus-stats.js';
import { filmkw } from './in-process.js';

const run = (args: string[], input?: string) => filmkw(args, { input });
const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at /u, 'no stack trace');

function corpus(): { d: string; reviews: string; synopses: string; gold: string } {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-corpus-'));
  const reviews = join(d, 'reviews.jsonl');
  writeFileSync(reviews, ['{"id":"a","text":"吴京主演的长津湖很好看。","film":"长津湖"}', '{"id":"b","text":"长津湖里吴京演得好。","film":"长津湖"}', '{"id":"c","text":"战狼2的吴京。","film":"战狼2"}', '{"id":"d","text":"战狼2的吴京。","film":"战狼2"}', '{"id":"e","text":"没有电影的吴京。"}'].join('\n') + '\n');
  const synopses = join(d, 'synopses.csv');
  writeFileSync(synopses, 'key,body\n1,流浪地球的吴京。\n2,长津湖里吴京演得好。\n3,百鸟朝凤的唢呐。\n');
  const gold = join(d, 'gold.jsonl');
  // syn-3 drops synopsis 3 by id; the second text is review b and synopsis 2 with a space (by text)
  writeFileSync(gold, ['{"id":"syn-3","text":"另一篇","tag":["x"]}', '{"id":"x","text":"长津湖里 吴京演得好。","tag":["y"]}'].join('\n') + '\n');
  return { d, reviews, synopses, gold };
}

test('corpus build: counts the candidates of the texts left after the exclusions (by id, by text) and the duplicates; the table parses; tag reads it', async () => {
  const { d, reviews, synopses, gold } = corpus();
  const out = join(d, 'stats.gz');
  const r = await run(['corpus', 'build', reviews, `${synopses}::text-field=body,id-field=key,film=流浪地球,id-prefix=syn-`, '--film-field', 'film', '--exclude', gold, '--min-df', '1', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  noStack(r.stderr);
  assert.match(r.stderr, /corpus build: reviews\.jsonl: 5 records, 3 counted \(1 excluded by text, 1 duplicate texts\), 1 without a film\n/u);
  assert.match(r.stderr, /corpus build: synopses\.csv: 3 records, 1 counted \(1 excluded by id, 1 excluded by text\)\n/u);
  assert.match(r.stderr, /corpus build: dropped 3 texts of the 2 records of gold\.jsonl \(1 by id, 2 by text\)\n/u);
  const stats = parseCorpusStats(gunzipSync(readFileSync(out)).toString('utf8'), 'stats.gz');
  assert.equal(stats.docs, 4);
  assert.equal(stats.films, 3, '长津湖, 战狼2, 流浪地球 (by their KG ids)');
  assert.ok(stats.filmIndex('movie/name/长津湖') >= 0 && stats.filmIndex('movie/name/流浪地球') >= 0);
  const k = stats.word('吴京');
  assert.deepEqual([stats.df(k), stats.spread(k)], [4, 3]);
  assert.equal(stats.docFilm(textHash('没有电影的吴京。')), -1);
  assert.equal(stats.docFilm(textHash('长津湖里吴京演得好。')), -2, 'excluded');
  const header = (stats as unknown as { header: Record<string, unknown> }).header;
  assert.deepEqual(header.excluded, { files: ['gold.jsonl'], byId: 1, byText: 2 });
  assert.ok(!JSON.stringify(header).includes(d), 'no machine path in the table');
  // the same build again gives the same bytes
  const again = join(d, 'again.gz');
  assert.equal((await run(['corpus', 'build', reviews, `${synopses}::text-field=body,id-field=key,film=流浪地球,id-prefix=syn-`, '--film-field', 'film', '--exclude', gold, '--min-df', '1', '--out', again])).status, 0);
  assert.deepEqual(readFileSync(again), readFileSync(out));
  // tag reads it, and counts its own input with self
  const t = await run(['tag', reviews, '--film-field', 'film', '--corpus-stats', out, '--top', '2']);
  assert.equal(t.status, 0, t.stderr);
  assert.equal(t.stdout.trimEnd().split('\n').length, 5);
  const self = await run(['tag', reviews, '--film-field', 'film', '--corpus-stats', 'self', '--top', '2']);
  assert.equal(self.status, 0, self.stderr);
  assert.match(self.stderr, /tag: --corpus-stats self: 4 distinct texts of the input counted\n/u);
});

test('corpus build and tag --corpus-stats: mistakes exit 2 (usage) or 3 (input) with one line', async () => {
  const { d, reviews } = corpus();
  const cases: [string[], number, RegExp][] = [
    [['corpus', 'build', `${reviews}::bogus=1`, '--out', join(d, 'o.gz')], 2, /expected PATH::key=value,… with keys format, text-field, id-field, film-field, film, id-prefix, encoding, got "bogus=1"/u],
    [['corpus', 'build', join(d, 'missing.jsonl'), '--out', join(d, 'o.gz')], 3, /corpus build: cannot read .*missing\.jsonl/u],
    [['corpus', 'build', reviews, '--out', reviews], 2, /corpus build: --out .*reviews\.jsonl is the input .*; writing it would destroy the input/u],
    [['corpus', 'build', reviews, '--out', join(d, 'o.gz'), '--min-df', '0'], 2, /--min-df must be an integer from 1/u],
    [['corpus', 'build', `${join(d, 'x.weird')}`, '--out', join(d, 'o.gz')], 2, /cannot tell the format of .*x\.weird/u],
    [['tag', '-', '--format', 'jsonl', '--corpus-stats', 'self'], 2, /--corpus-stats self reads the input twice/u],
    [['tag', reviews, '--corpus-stats', join(d, 'no.gz')], 3, /--corpus-stats: no such file/u],
    [['tag', reviews, '--corpus-stats', reviews], 3, /reviews\.jsonl:1: corpus statistics: not a filmkw-corpus-stats table of version 1/u],
  ];
  for (const [args, code, pattern] of cases) {
    const r = await run(args, '');
    assert.equal(r.status, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, pattern, args.join(' '));
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, `one line: ${r.stderr}`);
    noStack(r.stderr);
  }
  assert.ok(!existsSync(join(d, 'o.gz')));
});
