/**
 * `filmkw kg show <name|id>` (run in this process, test/cli/in-process.ts): golden text for a film, a
 * person and a character of the demo KG; same-name entities told apart (a csv KG with two films 英雄 and
 * two people 王伟, a name-only credit merged into its Douban person); `--json` equal to the viewer's GET /api/kg/entity answer (the twin); the error lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKg } from '../../src/kg/load.js';
import { startServer } from '../../src/serve/server.js';
import { filmkw } from './in-process.js';

const run = (args: string[]) => filmkw(['kg', 'show', ...args]);
const HOMONYMS = 'test/fixtures/kg-sources/csv-homonyms';

test('kg show: a film, a person and a character of the demo KG (golden)', async () => {
  const film = await run(['长津湖']);
  assert.equal(film.status, 0, film.stderr);
  assert.equal(
    film.stdout,
    [
      '长津湖 · Movie · movie/name/长津湖',
      '  film · directed by 徐克, 林超贤, 陈凯歌 · with 吴京, 易烊千玺, 朱亚文 +3 · no Douban id',
      '  aliases: The Battle at Lake Changjin',
      '  导演 directed by (3): 徐克, 林超贤, 陈凯歌',
      '  编剧 written by (2): 兰晓龙, 黄建新',
      '  主演 cast (6): 吴京, 易烊千玺, 朱亚文, 李晨, 段奕宏, 胡军',
      '  类型 genre (3): 剧情, 历史, 战争',
      '  角色 characters (4): 伍万里, 伍千里, 梅生, 雷公',
      '  18 neighbours',
      '',
    ].join('\n'),
  );
  assert.equal(
    (await run(['吴京'])).stdout,
    [
      '吴京 · Person · person/name/吴京',
      '  person · directed 战狼2 · acted in 战狼2, 流浪地球, 长津湖 · wrote 战狼2 · no Douban id',
      '  导演 directed (1): 战狼2',
      '  编剧 wrote (1): 战狼2',
      '  主演 acted in (3): 战狼2, 流浪地球, 长津湖',
      '  饰演 played (3): 伍千里, 冷锋, 刘培强',
      '  6 neighbours',
      '',
    ].join('\n'),
  );
  const byId = await run(['character/movie/name/长津湖/伍万里', '--limit', '1']);
  assert.equal(byId.status, 0, byId.stderr);
  assert.equal(byId.stdout, ['伍万里 · Character · character/movie/name/长津湖/伍万里', '  character · in 长津湖 · played by 易烊千玺', '  角色 character in (1): 长津湖', '  2 neighbours, the first 1 listed (--limit)', ''].join('\n'));
});

test('kg show: entities of the same name, each with the line that tells it apart', async () => {
  const films = await run(['英雄', '--kg', HOMONYMS]);
  assert.equal(films.status, 0, films.stderr);
  assert.equal(
    films.stdout,
    [
      '2 entities are named 英雄:',
      '',
      '英雄 · Movie · movie/douban/1306123',
      '  film · directed by 张艺谋 · with 李连杰 · Douban subject 1306123',
      '  aliases: Hero',
      '  导演 directed by (1): 张艺谋',
      '  编剧 written by (1): 张艺谋',
      '  主演 cast (1): 李连杰',
      '  类型 genre (1): 武侠',
      '  3 neighbours',
      '',
      '英雄 · Movie · movie/douban/3001',
      '  film · directed by 吴宇森 · with 王伟 · Douban subject 3001',
      '  导演 directed by (1): 吴宇森',
      '  主演 cast (1): 王伟',
      '  2 neighbours',
      '',
    ].join('\n'),
  );
  const people = await run(['王伟', '--kg', HOMONYMS, '--json']);
  assert.deepEqual(
    JSON.parse(people.stdout).matches.map((m: { id: string; about: string }) => [m.id, m.about]),
    [
      ['person/douban/2001', 'person · directed 白夜追凶 · Douban celebrity 2001'],
      ['person/douban/2002', 'person · acted in 天龙八部, 英雄 · Douban celebrity 2002'],
    ],
  );
  // a name-only credit resolved into the Douban person at import (src/kg/resolve.ts): its id is named
  const merged = await run(['张艺谋', '--kg', HOMONYMS]);
  assert.equal(merged.stdout.split('\n')[1], '  person · directed 英雄 · wrote 英雄 · Douban celebrity 1054398 · merged from person/name/张艺谋');
});

test('kg show --json is the viewer\'s GET /api/kg/entity answer, by name and by id', async (t) => {
  const server = await startServer({ kg: await loadKg(), kgLabel: 'demo', batch: [], port: 0, limits: { workers: 1 } });
  t.after(() => server.close());
  const api = async (path: string) => (await fetch(server.url + path.slice(1))).json();
  for (const name of ['长津湖', '吴京', 'The Battle at Lake Changjin']) {
    const cli = await run([name, '--json']);
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout), await api(`/api/kg/entity?name=${encodeURIComponent(name)}`), name);
  }
  const id = 'person/name/易烊千玺';
  assert.deepEqual(JSON.parse((await run([id, '--json'])).stdout).matches, [await api(`/api/kg/entity/${encodeURIComponent(id)}`)]);
});

test('kg show: errors are one line with the README exit code', async () => {
  const cases: [string[], number, RegExp][] = [
    [['长津'], 3, /^filmkw: kg show: no entity has the name, alias or id "长津"; names containing it: 长津湖 \(movie\/name\/长津湖\)\n$/u],
    [['不存在的片名'], 3, /^filmkw: kg show: no entity has the name, alias or id "不存在的片名"\n$/u],
    [['长津湖', '--kg', 'x.fkg', '--neo4j'], 2, /^filmkw: kg show: --kg cannot be used with --neo4j\n$/u],
    [['长津湖', '--limit', '0'], 2, /--limit must be an integer from 1 to 1000000, got "0"/u],
    [['长津湖', '--kg', 'no/such.fkg'], 3, /no\/such\.fkg: no such file or directory/u],
  ];
  for (const [args, code, re] of cases) {
    const r = await run(args);
    assert.equal(r.status, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re, args.join(' '));
    assert.equal(r.stdout, '');
  }
});
