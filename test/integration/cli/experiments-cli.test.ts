/**
 * `filmkw experiments` (run in this process, test/cli/in-process.ts) on the tiny fixture: a baselines-only
 * config and a config of presets, a baseline and a sweep write results.md, results.json, the charts and the
 * predictions. In the integration suite (moved from test/cli/eval.test.ts): each run evaluates several
 * systems, the nodejieba baselines each in a worker thread that loads its dictionaries. The `--only` check
 * stays in the fast suite (test/cli/eval.test.ts), the library's run and write in test/eval/experiments.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filmkw } from '../../cli/in-process.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const run = (...args: string[]) => filmkw(args);
const tiny = 'test/fixtures/eval/tiny.jsonl';

test('experiments: a baselines-only config writes results.md, results.json and charts', async () => {
  const out = mkdtempSync(join(tmpdir(), 'filmkw-cli-exp-'));
  try {
    const r = await run('experiments', '--gold', tiny, '--config', 'test/fixtures/eval/experiments-baselines.json', '--out', out);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /2 systems × 2 documents/);
    assert.match(r.stderr, /\[2\/2\] nodejieba-textrank: F1@max K/);
    assert.deepEqual(readdirSync(out).sort(), ['charts', 'predictions', 'report.html', 'results.json', 'results.md']);
    const json = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    assert.equal(json.dataset.name, 'tiny.jsonl');
    assert.equal(json.package.name, 'filmkw');
    assert.match(json.date, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(json.groups[0].systems[0].options.method, 'extract');
    assert.deepEqual(json.groups[0].systems[0].macro['1'], { p: 1, r: 0.2, f1: 0.333333 });
    assert.ok(!JSON.stringify(json).includes(root), 'no absolute paths in results.json');
    const md = readFileSync(join(out, 'results.md'), 'utf8');
    assert.match(md, /## nodejieba baselines/);
    assert.match(readFileSync(join(out, 'charts', 'baselines.svg'), 'utf8'), /^<svg[^>]*>/);
    // --only with an unknown part → exit 2
    const bad = await run('experiments', '--gold', tiny, '--config', 'test/fixtures/eval/experiments-baselines.json', '--out', out, '--only', 'fig9');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /unknown part "fig9" .*\(valid: baselines\)/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('experiments: presets, a baseline and a sweep on the tiny fixture write all outputs', async () => {
  const out = mkdtempSync(join(tmpdir(), 'filmkw-cli-exp-'));
  try {
    const r = await run('experiments', '--gold', tiny, '--config', 'test/fixtures/eval/experiments-tiny.json', '--out', out);
    assert.equal(r.status, 0, r.stderr);
    // textrank, positionrank, nodejieba-tfidf, cppjieba-textrank, window=2, window=5 (= base, reused)
    assert.match(r.stderr, /6 systems × 2 documents/);
    assert.deepEqual(readdirSync(join(out, 'charts')).sort(), ['baselines.svg', 'fig5.svg', 'sweep.svg']);
    const json = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    const tr = json.groups[0].systems[0];
    assert.equal(tr.preset, 'textrank');
    assert.equal(tr.options.graph.window, 5, 'full resolved options are recorded');
    assert.equal(json.groups[0].steps[0].from, 'TextRank');
    assert.deepEqual(json.sweeps[0].points.map((p: { value: string; isBase: boolean }) => [p.value, p.isBase]), [['2', false], ['5', true]]);
    assert.deepEqual(json.sweeps[0].points[1].system.macro, tr.macro);
    const md = readFileSync(join(out, 'results.md'), 'utf8');
    for (const heading of ['## Summary', '## TextRank and PositionRank', '## Baselines', '## Window', 'Step by step']) assert.ok(md.includes(heading), heading);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
