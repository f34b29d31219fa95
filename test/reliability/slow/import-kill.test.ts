/**
 * Issue 5, through the real CLI: `./bin/filmkw kg import --out X csv:<big dir>` is SIGKILLed at random
 * points while X already holds an older snapshot (the demo KG). After every kill X is either the old
 * snapshot (same content hash, same bytes) or the new complete one, never truncated or unreadable; stray
 * temp files of killed runs do not break the next run, which removes them and writes X whole.
 * A third of the rounds kill at a random time of the whole run, a third at a random time after the CLI
 * announced the snapshot write, a third a few ms after the temp file appeared (inside the write).
 * Needs `npm run build`. Run by `npm run test:reliability`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSnapshot } from '../../../src/kg/snapshot.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const built = existsSync(join(root, 'dist/cli/main.js'));
const ROUNDS = 12;

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

/** A csv KG big enough that parsing takes seconds and the snapshot write ~100 ms (8k movies, 12k people, 250k ACTED_IN). */
function writeBigCsvKg(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const M = 8000;
  const P = 12000;
  const R = 250_000;
  const e = ['id,kind,name,aliases,movie'];
  for (let i = 0; i < M; i++) e.push(`movie/m${i},Movie,电影${i},,`);
  for (let i = 0; i < P; i++) e.push(`person/p${i},Person,演员${i},,`);
  writeFileSync(join(dir, 'entities.csv'), e.join('\n') + '\n');
  const r = ['from,relation,to,movie'];
  for (let i = 0; i < R; i++) r.push(`person/p${i % P},ACTED_IN,movie/m${(i * 7919 + Math.floor(i / P) * 104729) % M},`);
  writeFileSync(join(dir, 'relations.csv'), r.join('\n') + '\n');
}

type When = 'start' | 'announced' | 'temp';

/**
 * Runs the import; kills it `delayMs` after the start, after "writing the snapshot" on stderr, or after
 * a new temp file appeared next to `out`.
 */
function killedImport(out: string, src: string, delayMs: number, when: When): Promise<{ signal: string | null; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const outDir = join(out, '..');
    const before = new Set(readdirSync(outDir));
    const child = spawn(process.execPath, ['bin/filmkw', 'kg', 'import', '--out', out, `csv:${src}`], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    const arm = () => (timer ??= setTimeout(() => child.kill('SIGKILL'), delayMs));
    if (when === 'start') arm();
    const watcher =
      when === 'temp'
        ? watch(outDir, (_ev, name) => {
            if (name && name.includes('.tmp-') && !before.has(name)) arm();
          })
        : null;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      stderr += d;
      if (when === 'announced' && stderr.includes('writing the snapshot')) arm();
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      watcher?.close();
      resolve({ code, signal, stderr });
    });
  });
}

test('SIGKILL of `kg import --out X` at random points: X is the old or the new snapshot, never truncated; the next run cleans up', { skip: !built && 'needs `npm run build` (dist/)', timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-import-kill-'));
  try {
    const src = join(dir, 'big');
    writeBigCsvKg(src);
    const outDir = join(dir, 'out');
    mkdirSync(outDir);
    const X = join(outDir, 'kg.fkg');
    // the old snapshot (demo KG) and the new one (uninterrupted run), by file hash and content hash
    const mk = (args: string[]) => spawnSync(process.execPath, ['bin/filmkw', 'kg', 'import', ...args], { cwd: root, encoding: 'utf8' });
    const oldFile = join(dir, 'old.fkg');
    assert.equal(mk(['--out', oldFile, 'csv:kg/demo']).status, 0);
    const newFile = join(dir, 'new.fkg');
    const t0 = Date.now();
    const full = mk(['--out', newFile, `csv:${src}`]);
    assert.equal(full.status, 0, full.stderr);
    const runMs = Date.now() - t0;
    const oldHash = sha(oldFile);
    const newHash = sha(newFile);
    const oldContent = (await loadSnapshot(oldFile)).contentHash;
    const newContent = (await loadSnapshot(newFile)).contentHash;
    assert.notEqual(oldContent, newContent);

    const outcomes: string[] = [];
    let midWrite = 0;
    const seenTemps = new Set<string>();
    for (let r = 0; r < ROUNDS; r++) {
      const hadOld = r % 4 !== 3; // every fourth round starts without X
      if (hadOld) writeFileSync(X, readFileSync(oldFile));
      else rmSync(X, { force: true });
      const when: When = (['start', 'announced', 'temp'] as const)[r % 3];
      const delay = when === 'start' ? Math.floor(Math.random() * runMs * 1.1) : when === 'announced' ? Math.floor(Math.random() * 160) : Math.floor(Math.random() * 20);
      const res = await killedImport(X, src, delay, when);
      const temps = readdirSync(outDir).filter((f) => f !== 'kg.fkg');
      if (temps.some((t) => !seenTemps.has(t))) midWrite++; // this round's kill left a temp: it was inside the write
      temps.forEach((t) => seenTemps.add(t));
      for (const t of temps) assert.match(t, /^\.kg\.fkg\.tmp-\d+-[0-9a-f]{8}$/, `unexpected file ${t}`);
      let state: string;
      if (!existsSync(X)) {
        assert.ok(!hadOld, `round ${r}: X vanished although it held the old snapshot`);
        state = 'no X (none before)';
      } else {
        const h = sha(X);
        assert.ok(h === oldHash || h === newHash, `round ${r}: X is neither the old nor the new snapshot (${readFileSync(X).length} bytes)`);
        const content = (await loadSnapshot(X)).contentHash; // never throws: complete file
        assert.equal(content, h === oldHash ? oldContent : newContent);
        state = h === oldHash ? 'old snapshot intact' : 'new snapshot complete';
      }
      const after = { start: 'after the start', announced: 'after "writing the snapshot"', temp: 'after the temp file appeared' }[when];
      outcomes.push(`round ${r}: ${res.signal ?? `exit ${res.code}`} ${after} +${delay} ms → ${state}, ${temps.length} temp file(s)`);
    }
    console.log(outcomes.join('\n'));
    assert.ok(midWrite > 0, 'at least one kill landed inside the snapshot write');

    // the next run is not disturbed by the leftovers: it succeeds, X is the new snapshot, no temp file remains
    const next = mk(['--out', X, `csv:${src}`]);
    assert.equal(next.status, 0, next.stderr);
    assert.equal(sha(X), newHash);
    assert.deepEqual(readdirSync(outDir), ['kg.fkg']);
    // and the CLI reads it
    const stats = spawnSync(process.execPath, ['bin/filmkw', 'kg', 'stats', '--kg', X, '--json'], { cwd: root, encoding: 'utf8' });
    assert.equal(stats.status, 0, stats.stderr);
    assert.equal(JSON.parse(stats.stdout).relations.total, 250_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
