import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filmkw } from './in-process.js';

// `filmkw dict` in this process (./in-process.ts)
const run = (...args: string[]) => filmkw(args);

test('dict export --help lists every option with its default', async () => {
  const r = await run('dict', 'export', '--help');
  assert.equal(r.status, 0, r.stderr);
  for (const o of ['--out', '--kg', '--neo4j', '--backend', '--common-word-titles', '--common-phrases', '--freq-margin', '--no-compound-parts', '--json']) {
    assert.ok(r.stdout.includes(o), o);
  }
  const help = r.stdout.replace(/\s+/gu, ' ');
  assert.match(help, /--backend <name> base dictionary used for frequencies and common words \(choices: "node-rs", "nodejieba", default: "node-rs"\)/u);
  assert.match(help, /\(choices: "include", "exclude", default: "include"\)/u);
});

test('dict export: bad or missing options are usage errors (exit 2) naming the valid values', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'filmkw-dictcli-')), 'u.dict');
  const cases: [string[], RegExp][] = [
    [['dict', 'export'], /required option '--out/u],
    [['dict', 'export', '--out', out, '--backend', 'hanlp'], /^filmkw: dict export: --backend must be node-rs or nodejieba, got "hanlp"\n$/u],
    [['dict', 'export', '--out', out, '--common-word-titles', 'some'], /^filmkw: dict export: --common-word-titles must be include or exclude, got "some"\n$/u],
    [['dict', 'export', '--out', out, '--common-phrases', 'maybe'], /--common-phrases must be include or exclude/u],
    [['dict', 'export', '--out', out, '--freq-margin', '0.5'], /--freq-margin must be a number ≥ 1/u],
    [['dict', 'export', '--out', out, '--kg', 'x', '--neo4j'], /^filmkw: dict export: --kg cannot be used with --neo4j\n$/u],
  ];
  for (const [args, re] of cases) {
    const r = await run(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.doesNotMatch(r.stderr, /\n\s+at /u);
  }
  assert.ok(!existsSync(out));
});

test(
  'dict export without --kg writes the demo KG dictionary; names segment as one token',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'filmkw-dictcli-'));
    const out = join(dir, 'demo.dict');
    const r = await run('dict', 'export', '--out', out, '--json');
    assert.equal(r.status, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as { entries: number; kg: string };
    assert.equal(summary.kg, 'demo (bundled)');
    const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, summary.entries);
    for (const l of lines) assert.match(l, /^\S+ [1-9][0-9]* [a-z]+$/u);
    for (const name of ['肖申克的救赎', '长津湖']) assert.ok(lines.some((l) => l.startsWith(`${name} `)), name);
    // Same KG, same bytes.
    const out2 = join(dir, 'demo2.dict');
    assert.equal((await run('dict', 'export', '--out', out2)).status, 0);
    assert.equal(readFileSync(out2, 'utf8'), readFileSync(out, 'utf8'));
    const human = await run('dict', 'export', '--out', out2);
    assert.match(human.stderr, /^dict export: wrote \d+ entries/u);
  },
);

test('dict export with an unreadable --kg is an input error (exit 3)', async () => {
  const r = await run('dict', 'export', '--out', join(tmpdir(), 'never.dict'), '--kg', join(tmpdir(), 'no-such-kg-filmkw.snapshot'));
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /no-such-kg-filmkw/u);
});

test('dict export to a path that cannot be written: exit 7, the message names --out (not the temp file) and why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-dictcli-'));
  const out = join(dir, 'no', 'such', 'd.dict');
  const r = await run('dict', 'export', '--out', out);
  assert.equal(r.status, 7, r.stderr);
  assert.equal(r.stderr, `filmkw: dict: cannot write ${out}: ENOENT (the directory ${join(dir, 'no', 'such')} does not exist); nothing was changed at that path\n`);
  assert.doesNotMatch(r.stderr, /\.tmp/u);
});
