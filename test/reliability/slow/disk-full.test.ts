/**
 * Issue 5, disk full: a 2 MB tmpfs (mounted by the test; skipped unless it may mount, i.e. root on Linux)
 * as the output directory. `kg import --out X` of a KG larger than the free space fails with exit 7 and
 * one line, X keeps its old bytes and no temp file is left; `tag --out` and `dict export --out` fail with
 * exit 7 and one line. Needs `npm run build`; run by `npm run test:reliability`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const built = existsSync(join(root, 'dist/cli/main.js'));
const canMount = process.platform === 'linux' && process.getuid?.() === 0;

test('disk full: kg import keeps the old snapshot (exit 7), tag and dict export exit 7 with one line', { skip: (!built && 'needs `npm run build`') || (!canMount && 'needs root on Linux to mount a small tmpfs'), timeout: 180_000 }, (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-full-'));
  const small = join(dir, 'small');
  mkdirSync(small);
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', small], { encoding: 'utf8' });
  if (m.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    t.skip(`cannot mount a tmpfs here: ${m.stderr.trim()}`);
    return;
  }
  try {
    const run = (args: string[], input?: string) => spawnSync(process.execPath, ['bin/filmkw', ...args], { cwd: root, encoding: 'utf8', input });
    const oneLine = (stderr: string, re: RegExp) => {
      assert.doesNotMatch(stderr, /\n\s+at /, stderr);
      const errs = stderr.split('\n').filter((l) => l.startsWith('filmkw: '));
      assert.equal(errs.length, 1, stderr);
      assert.match(errs[0], re);
    };
    const X = join(small, 'kg.fkg');
    assert.equal(run(['kg', 'import', '--out', X, 'csv:kg/demo']).status, 0);
    const before = createHash('sha256').update(readFileSync(X)).digest('hex');
    // a csv KG whose snapshot (≈ 3 MB) does not fit
    const src = join(dir, 'kg');
    mkdirSync(src);
    const e = ['id,kind,name,aliases,movie'];
    const r = ['from,relation,to,movie'];
    for (let i = 0; i < 20_000; i++) e.push(`movie/m${i},Movie,电影名称${i},别名${i},`);
    for (let i = 0; i < 2_000; i++) e.push(`person/p${i},Person,演员${i},,`);
    for (let i = 0; i < 60_000; i++) r.push(`person/p${i % 2000},ACTED_IN,movie/m${(i * 7) % 20000},`);
    writeFileSync(join(src, 'entities.csv'), e.join('\n') + '\n');
    writeFileSync(join(src, 'relations.csv'), r.join('\n') + '\n');
    const big = run(['kg', 'import', '--out', X, `csv:${src}`]);
    assert.equal(big.status, 7, big.stderr);
    oneLine(big.stderr, /^filmkw: kg snapshot .*kg\.fkg: cannot write \(no space left on the device, ENOSPC\); nothing was changed at that path$/);
    assert.equal(createHash('sha256').update(readFileSync(X)).digest('hex'), before, 'the old snapshot is intact');
    assert.deepEqual(readdirSync(small), ['kg.fkg'], 'no temp file left');
    // fill the rest, then the other writers
    writeFileSync(join(small, 'fill'), Buffer.alloc(0));
    spawnSync('dd', ['if=/dev/zero', `of=${join(small, 'fill')}`, 'bs=64k', 'count=100'], { encoding: 'utf8' });
    const tag = run(['tag', '--format', 'txt', '--out', join(small, 'out.jsonl')], '《长津湖》\n');
    assert.equal(tag.status, 7, tag.stderr);
    // the lock file (issue 17) is the first write: its failure is reported like the output's
    oneLine(tag.stderr, /^filmkw: tag: (writing .*out\.jsonl failed|cannot write .*out\.jsonl): ENOSPC/);
    assert.ok(!readdirSync(small).some((f) => f.endsWith('.lock')), 'no lock file left');
    const dict = run(['dict', 'export', '--out', join(small, 'user.dict')]);
    assert.equal(dict.status, 7, dict.stderr);
    oneLine(dict.stderr, /^filmkw: dict: cannot write .*user\.dict: ENOSPC/);
    assert.ok(!readdirSync(small).some((f) => f.includes('.tmp')), String(readdirSync(small)));
  } finally {
    spawnSync('umount', [small]);
    rmSync(dir, { recursive: true, force: true });
  }
});
