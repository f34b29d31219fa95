import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  parseExperimentConfig, planSystems, expandSweep, runExperiments, buildResults, selectParts, systemKey,
  type SystemSpec,
} from '../../src/eval/experiments.js';
import { writeExperimentOutputs, redrawExperimentOutputs } from '../../src/eval/output.js';
import type { EvalSystem } from '../../src/eval/systems.js';
import type { GoldDocument } from '../../src/eval/readers.js';
import { FilmkwError } from '../../src/errors.js';

/** A fake system: splits the text on punctuation; `reverse` ranks from the end; `take` caps the output. */
function fakeSystem(spec: SystemSpec): EvalSystem {
  const o = spec.overrides ?? {};
  return {
    name: spec.label,
    options: { preset: spec.preset, reverse: o.reverse === true, take: (o.take as number) ?? 99 },
    async extractAll(texts, topK, onProgress) {
      return texts.map((t, i) => {
        let words = t.split(/[，。、《》\s]+/u).filter(Boolean);
        if (o.reverse === true) words = words.reverse();
        onProgress?.(i + 1);
        return words.slice(0, Math.min(topK, (o.take as number) ?? 99));
      });
    },
    async close() {},
  };
}

const docs: GoldDocument[] = [
  { id: 'a', text: '甲，乙，丙，丁', gold: ['甲', '丁'], line: 1 },
  { id: 'b', text: '戊。己。庚', gold: ['庚', '己', '辛'], line: 2 },
];

const config = parseExperimentConfig({
  name: 'tiny',
  eval: { ks: [1, 2, 3] },
  groups: [
    { id: 'fig5', title: 'Fig. 5', systems: [{ label: 'forward', preset: 'fake' }, { label: 'backward', preset: 'fake', overrides: { reverse: true } }] },
    { id: 'fig6', title: 'Fig. 6', systems: [{ label: 'forward again', preset: 'fake', overrides: {} }, { label: 'reversed', preset: 'fake', overrides: { reverse: true } }], compareSteps: true },
  ],
  sweeps: [{ id: 'sweep', title: 'Sweep', base: { label: 'forward', preset: 'fake' }, axes: [{ name: 'take', key: 'take', values: [1, 2, 99] }, { name: 'direction', variants: [{ label: 'fwd', overrides: {} }, { label: 'back', overrides: { reverse: true } }] }] }],
}, 'tiny.json');

test('config validation names the file and JSON path', () => {
  const bad = (raw: unknown, re: RegExp) => assert.throws(() => parseExperimentConfig(raw, 'c.json'), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && re.test(e.message));
  bad({ name: 'x', groups: [{ id: 'g', title: 't', systems: [{ label: 'a' }] }] }, /^c\.json: \$\.groups\[0\]\.systems\[0\]: give exactly one of "preset" or "baseline"/);
  bad({ name: 'x', groups: [{ id: 'g', title: 't', systems: [{ label: 'a', preset: 'p', colour: 1 }] }] }, /unknown key "colour"/);
  bad({ name: 'x', groups: [{ id: 'G!', title: 't', systems: [{ label: 'a', preset: 'p' }] }] }, /\$\.groups\[0\]\.id: id must be lower-case/);
  bad({ name: 'x', groups: [], sweeps: [] }, /no groups and no sweeps/);
  bad({ name: 'x', eval: { ks: [0] }, groups: [{ id: 'g', title: 't', systems: [{ label: 'a', preset: 'p' }] }] }, /\$\.eval: .*positive integer/);
  bad({ name: 'x', groups: [{ id: 'g', title: 't', systems: [{ label: 'a', baseline: 'b', overrides: {} }] }] }, /a baseline takes no overrides/);
});

test('plan: equal systems (same preset and overrides) run once; sweeps expand one option at a time', () => {
  const plan = planSystems(config);
  // forward (= forward again = sweep base = take? no), backward, take=1, take=2
  const keys = plan.map((p) => p.key);
  assert.equal(new Set(keys).size, keys.length);
  assert.equal(plan.length, 5);
  assert.deepEqual(plan[0].uses, ['fig5', 'fig6', 'sweep/base', 'sweep/direction=fwd']);
  const entries = expandSweep(config.sweeps[0]);
  assert.deepEqual(entries.map((e) => [e.axis, e.value, e.isBase]), [['take', '1', false], ['take', '2', false], ['take', '99', false], ['direction', 'fwd', true], ['direction', 'back', false]]);
  assert.equal(systemKey(entries[4].spec), systemKey(config.groups[0].systems[1]));
});

test('--only keeps the named parts and rejects unknown ones', () => {
  assert.deepEqual(selectParts(config, ['fig6']).groups.map((g) => g.id), ['fig6']);
  assert.equal(selectParts(config, ['fig6']).sweeps.length, 0);
  assert.throws(() => selectParts(config, ['fig7'], 'tiny.json'), /unknown part "fig7" in tiny\.json \(valid: fig5, fig6, sweep\)/);
});

test('run + write: results.json, results.md, charts and predictions', async () => {
  const built: string[] = [];
  const progress: string[] = [];
  let extractions = 0;
  const runs = await runExperiments(config, docs, async (spec) => {
    built.push(spec.label);
    const system = fakeSystem(spec);
    return { ...system, extractAll: (...args) => { extractions++; return system.extractAll(...args); } };
  }, { systemStart: (i, n, p) => progress.push(`${i + 1}/${n} ${p.spec.label}`) });
  assert.equal(built.length, 5);
  // take=99 resolves to the same options as the base: its run is reused, not extracted again.
  assert.equal(extractions, 4);
  assert.deepEqual(progress[0], '1/5 forward');
  const results = buildResults(config, runs, {
    date: '2025-01-01',
    package: { name: 'filmkw', version: '0.0.0' },
    dataset: { name: 'tiny.jsonl', format: 'jsonl', docs: 2, sha256: 'ab'.repeat(32) },
    kg: { source: 'demo', contentHash: 'cd'.repeat(32), entities: 3 },
  }, docs);
  assert.equal(results.groups[0].steps, undefined);
  const step = results.groups[1].steps![0];
  assert.deepEqual([step.from, step.to, step.k, step.better, step.worse, step.same], ['forward again', 'reversed', 3, 0, 0, 2]);
  assert.deepEqual(step.noiseGained, []);
  assert.deepEqual(step.goldGained, [{ word: '丁', docs: 1 }]);
  assert.deepEqual(step.goldLost, [{ word: '甲', docs: 1 }]);
  // forward: doc a → [甲,乙,丙]: P@1 = 1, R@1 = 1/2; doc b → [戊,己,庚]: P@1 = 0. Macro P@1 = 0.5.
  const fwd = results.groups[0].systems[0];
  assert.equal(fwd.macro['1'].p, 0.5);
  // K=3: a: 1 hit of 3 → P 1/3, R 1/2, F1 0.4; b: 2 hits → P 2/3, R 2/3, F1 2/3. Macro F1 = (0.4 + 2/3)/2.
  assert.equal(fwd.macro['3'].f1, Math.round(((0.4 + 2 / 3) / 2) * 1e6) / 1e6);
  // backward: a → [丁,丙,乙]: P@1 = 1; b → [庚,己,戊]: P@1 = 1.
  assert.equal(results.groups[0].systems[1].macro['1'].p, 1);
  assert.deepEqual(results.sweeps[0].points.map((p) => p.system.macro['1'].p), [0.5, 0.5, 0.5, 0.5, 1]);
  assert.deepEqual(results.sweeps[0].points.map((p) => p.isBase), [false, false, true, true, false]);
  assert.equal(results.sweeps[0].points[0].system.options.take, 1);

  const dir = mkdtempSync(join(tmpdir(), 'filmkw-exp-'));
  try {
    const { files } = await writeExperimentOutputs(dir, results, config, runs, docs);
    assert.deepEqual(files.sort(), ['charts/fig5.svg', 'charts/fig6.svg', 'charts/sweep.svg', 'predictions/fig5.jsonl', 'predictions/fig6.jsonl', 'report.html', 'results.json', 'results.md']);
    // report.html: every chart inline, under its title, in one page
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    for (const chart of ['fig5', 'fig6', 'sweep']) assert.ok(html.includes(`<figure>${readFileSync(join(dir, `charts/${chart}.svg`), 'utf8')}</figure>`), `${chart} inline`);
    assert.deepEqual([...html.matchAll(/<h2>([^<]*)<\/h2>/gu)].map((m) => m[1]), [...results.groups.map((g) => g.title), ...results.sweeps.map((sw) => sw.title)]);
    assert.match(html, /^<!doctype html>\n<html lang="en">[\s\S]*<\/html>\n$/u);
    // the sweep's panels: each x axis titled with its parameter, value labels never cut
    const sweepSvg = readFileSync(join(dir, 'charts/sweep.svg'), 'utf8');
    for (const axis of ['take', 'direction']) assert.ok(sweepSvg.includes(`>${axis}</text>`), `x axis titled ${axis}`);
    assert.ok(!/>value<\/text>/u.test(sweepSvg), 'no axis titled "value"');
    const json = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    assert.equal(json.dataset.name, 'tiny.jsonl');
    assert.equal(json.kg.contentHash, 'cd'.repeat(32));
    const md = readFileSync(join(dir, 'results.md'), 'utf8');
    assert.match(md, /^# Experiments: tiny/);
    assert.match(md, /\| forward = forward again \| preset fake \|/);
    assert.match(md, /\| backward = reversed \| preset fake \+ overrides \| 0\.5000 \| 0\.5833 \| 0\.5333 \| 0\.6500 \(K=2\) \|/);
    assert.match(md, /!\[Fig\. 5: P, R and F1 against K\]\(charts\/fig5\.svg\)/);
    assert.match(md, /\| direction \| back \| 0\.5833 \| 0\.6500 \| 0\.5333 \| \+0\.0000 \|/);
    assert.match(md, /Best value per parameter/);
    assert.match(md, /\| forward again → reversed \| 0 \/ 0 \/ 2 \| \+0\.0000 \[\+0\.0000, \+0\.0000\] \|/);
    const svg = readFileSync(join(dir, 'charts/fig5.svg'), 'utf8');
    assert.match(svg, /^<svg/);
    for (const label of ['forward', 'backward', 'Precision', 'Recall', 'F1', 'K (keywords returned)']) assert.ok(svg.includes(label), `chart shows ${label}`);
    const pred = readFileSync(join(dir, 'predictions/fig5.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(pred[1], { id: 'b', gold: ['庚', '己', '辛'], systems: { forward: ['戊', '己', '庚'], backward: ['庚', '己', '戊'] } });
    assert.ok(!existsSync(join(dir, 'predictions/sweep.jsonl')));
    // re-drawn from results.json alone (npm run experiments:charts), with the config's wording: the same bytes
    const before = Object.fromEntries(files.filter((f) => !f.startsWith('predictions/')).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
    const redrawn = await redrawExperimentOutputs(dir, config);
    assert.deepEqual(redrawn.files.sort(), Object.keys(before).sort());
    for (const [f, text] of Object.entries(before)) assert.equal(readFileSync(join(dir, f), 'utf8'), text, f);
    const reworded = { ...config, groups: config.groups.map((g) => (g.id === 'fig5' ? { ...g, title: 'Fig. 5, reworded' } : g)) };
    await redrawExperimentOutputs(dir, reworded);
    assert.equal(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')).groups[0].title, 'Fig. 5, reworded');
    assert.match(readFileSync(join(dir, 'report.html'), 'utf8'), /<h2>Fig\. 5, reworded<\/h2>/u);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a system that fails to build fails the run', async () => {
  await assert.rejects(runExperiments(config, docs, async () => { throw new Error('boom'); }), /boom/);
});

test('the committed configs and charts name no internal issue numbers', () => {
  const root = new URL('../../', import.meta.url);
  const cfg = JSON.parse(readFileSync(new URL('eval/configs/experiments.json', root), 'utf8')) as { groups: { title: string }[]; sweeps: { title: string }[] };
  for (const t of [...cfg.groups, ...cfg.sweeps].map((x) => x.title)) assert.doesNotMatch(t, /\bissue\s*\d/iu, t);
  for (const run of ['film-dev', 'csl-dev', 'csl-dev-nokg']) {
    const dir = new URL(`eval/results/${run}/`, root);
    if (!existsSync(dir)) continue;
    const html = readFileSync(new URL('report.html', dir), 'utf8');
    assert.doesNotMatch(html, /\bissue\s*\d/iu, `${run}/report.html`);
    assert.equal((html.match(/<figure><svg/gu) ?? []).length, (html.match(/<h2>/gu) ?? []).length, `${run}: one chart per section`);
  }
});
