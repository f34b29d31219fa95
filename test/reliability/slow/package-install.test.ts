/**
 * Issue 17: the library as another project uses it. `npm pack` the checkout, install the tarball into a
 * fresh project (registry packages from the npm cache when present), import `filmkw` by name and run the
 * README's library snippet and the installed `filmkw` bin. About a minute (pack builds dist/, the install
 * fetches the dependencies); skipped with a message when npm cannot install (no registry, no cache).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

test('npm pack + npm install into another project: import { createExtractor, loadKg } from "filmkw" works, and the bin', { timeout: 600_000 }, (t) => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-pack-'));
  const pack = spawnSync(npm, ['pack', '--pack-destination', d], { cwd: root, encoding: 'utf8' });
  assert.equal(pack.status, 0, pack.stderr);
  const tgz = readdirSync(d).find((f) => f.endsWith('.tgz'));
  assert.ok(tgz, 'npm pack wrote a tarball');
  const proj = join(d, 'proj');
  mkdirSync(proj);
  writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true }));
  // npm_config_yes: nodejieba's install script runs `npx node-pre-gyp` (README "Quick start")
  const install = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', join(d, tgz!)], { cwd: proj, encoding: 'utf8', env: { ...process.env, npm_config_yes: 'true' } });
  if (install.status !== 0 && /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|offline/u.test(install.stderr)) {
    t.skip(`npm install cannot reach the registry: ${install.stderr.split('\n').find((l) => /ERR|error/u.test(l))}`);
    return;
  }
  assert.equal(install.status, 0, install.stderr);
  writeFileSync(
    join(proj, 'use.mjs'),
    [
      "import { createExtractor, loadKg } from 'filmkw';",
      'const kg = await loadKg({});',
      "const extractor = createExtractor({ preset: 'textrank+mkg', kg });",
      "console.log(JSON.stringify(extractor.extract('以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。', { topK: 5 })));",
      // the default preset (filmkw-rerank) reads the re-rank model shipped in the package (models/rerank.json)
      "console.log(JSON.stringify(createExtractor({ kg }).extract('以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。', { topK: 5 })));",
    ].join('\n'),
  );
  const use = spawnSync(process.execPath, ['use.mjs'], { cwd: proj, encoding: 'utf8' });
  assert.equal(use.status, 0, use.stderr);
  const [mkg, byDefault] = use.stdout.trim().split('\n').map((l) => JSON.parse(l) as { word: string; score: number }[]);
  const words = mkg.map((k) => k.word);
  for (const w of ['长津湖', '伍万里', '易烊千玺']) assert.ok(words.includes(w), `${w} in ${use.stdout}`);
  assert.ok(byDefault.length > 0 && byDefault.every((k) => k.score > 0 && k.score < 1), `default preset: σ(logit) scores: ${use.stdout}`);
  assert.ok(byDefault.some((k) => k.word === '长津湖'), use.stdout);
  // deep imports are closed by "exports"
  const deep = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('filmkw/dist/pipeline/options.js')"], { cwd: proj, encoding: 'utf8' });
  assert.notEqual(deep.status, 0);
  assert.match(deep.stderr, /ERR_PACKAGE_PATH_NOT_EXPORTED/u);
  const bin = spawnSync(join(proj, 'node_modules', '.bin', 'filmkw'), ['tag', '-', '--format', 'txt', '--preset', 'textrank'], { cwd: proj, encoding: 'utf8', input: '《霸王别姬》里张国荣演的程蝶衣。\n' });
  assert.equal(bin.status, 0, bin.stderr);
  assert.match(bin.stdout, /张国荣/u);
  // the installed bin's default preset gives the checkout's bytes
  const input = '《霸王别姬》里张国荣演的程蝶衣。\n';
  const installed = spawnSync(join(proj, 'node_modules', '.bin', 'filmkw'), ['tag', '-', '--format', 'txt'], { cwd: proj, encoding: 'utf8', input });
  const here = spawnSync(process.execPath, ['bin/filmkw', 'tag', '-', '--format', 'txt'], { cwd: root, encoding: 'utf8', input });
  assert.equal(installed.status, 0, installed.stderr);
  assert.match(installed.stderr, /preset filmkw-rerank/u);
  assert.equal(installed.stdout, here.stdout);
});
