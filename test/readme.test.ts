/**
 * The README's examples, checked without running them all (`npm run test:readme` runs them, in a fresh
 * clone: scripts/readme-walk.mjs; test/reliability/slow/readme-walk.test.ts): every file an example writes
 * is under scratch/ (whose .gitignore keeps it out of git) or outside the checkout, every rule of the walk
 * still matches an example, every example that reads a scratch/ file comes after the one that writes it,
 * and the quick start's first output line is the one the README shows (run here, bin/filmkw: build first).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
// @ts-expect-error a script of the repository (JavaScript, no declarations)
import { plan, readExamples, RULES } from '../scripts/readme-walk.mjs';

type Item = { kind: string; line: number; text: string; rules: { match: RegExp }[]; skip: string | null };
const root = fileURLToPath(new URL('../', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const steps = (plan(readExamples(readme), { long: true }) as { title: string; items: Item[] }[]).flatMap((s) => s.items);
const sh = steps.filter((i) => i.kind === 'sh');

test('README examples write only into scratch/ (git-ignored by its own .gitignore) or outside the checkout', () => {
  assert.ok(sh.length > 40, `${sh.length} shell examples read`);
  assert.equal(readFileSync(new URL('../scratch/.gitignore', import.meta.url), 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).join(' '), '* !.gitignore');
  const outside: string[] = [];
  for (const it of sh) {
    const code = it.text.replace(/\s+#.*$/gmu, ''); // without the comments
    for (const m of code.matchAll(/(?:--out\s+|[^<2]>\s*)([^\s;|&)'"]+)/gu)) {
      const path = m[1];
      if (path === '-' || path.startsWith('scratch/') || path.startsWith('/dev/')) continue;
      outside.push(`README:${it.line}: ${path}`);
    }
  }
  assert.deepEqual(outside, []);
});

test('every rule of the README walk matches an example; a scratch/ file is read only after an example writes it', () => {
  for (const rule of RULES as { match: RegExp }[]) assert.ok(sh.some((it) => rule.match.test(it.text)), `rule ${rule.match} matches no README example`);
  const written = new Set<string>();
  for (const it of steps) {
    const text = it.text;
    for (const m of text.matchAll(/(?:--out\s+|>\s*|split\s[^&;|]*?)(scratch\/[^\s;|&)]+)/gu)) written.add(m[1]);
    for (const m of text.matchAll(/(?<![\w/])(scratch\/[^\s;|&)'"]+)/gu)) {
      const p = m[1];
      assert.ok([...written].some((w) => p === w || p.startsWith(w) || w.startsWith(p)), `README:${it.line} reads ${p} before an example writes it`);
    }
  }
});

test('the quick start prints the first line the README shows', () => {
  const quick = sh[0];
  assert.match(quick.text, /^npm ci && \.\/bin\/filmkw tag datasets\/samples\/reviews\.jsonl --top 5/u);
  const r = spawnSync(process.execPath, ['bin/filmkw', 'tag', 'datasets/samples/reviews.jsonl', '--top', '5'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const shown = steps.find((i) => i.kind === 'json');
  assert.ok(shown, 'a ```json example');
  assert.equal(r.stdout.split('\n')[0], shown.text.trim());
});
