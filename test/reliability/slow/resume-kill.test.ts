/**
 * Issue 5: `filmkw tag --out X` killed with SIGKILL at random points of its progress and resumed with
 * `--resume` gives an output with no gap and no duplicate, byte-identical to an uninterrupted run — with 1
 * and 2 workers, including a kill before the first output line (during start-up) and kills between
 * checkpoints (output written past the last one). The kill points are states of the run (its lock, its
 * checkpoint, its output size), never times, so a loaded machine cannot make them miss. Run by `npm run test:reliability`
 * (after `npm run build`: the children run bin/filmkw). FILMKW_SEED=<n> replays a failing run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoSnapshot } from '../../batch/demo-kg.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'filmkw-resume-kill-'));
const DOCS = 3000;
const seed = Number(process.env.FILMKW_SEED ?? Date.now() % 1_000_000);
let state = seed;
const random = () => {
  // mulberry32
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/** A few thousand documents: the sample reviews cycled with a varying prefix, plus bad and blank lines. */
function makeInput(path: string): void {
  const texts = readFileSync(join(root, 'datasets', 'samples', 'reviews.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { text: string }).text);
  const lines: string[] = [];
  for (let i = 0; i < DOCS; i++) {
    if (i % 97 === 13) lines.push(`{"id":"bad-${i}","text":`);
    else lines.push(JSON.stringify({ id: `doc-${i}`, text: `第${i}条。${texts[i % texts.length].slice(i % 40)}` }));
    if (i % 50 === 0) lines.push('');
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/**
 * Checkpoints every 300 records as well as every second: the kill points then exist however fast the
 * machine runs (time-only checkpoints let an idle machine finish a resumed run before its next checkpoint,
 * so no kill was due). 300 records of output (~440 characters each) are twice the 64 K-character write batch, so the output also grows
 * past a checkpoint before the next one (the kills between checkpoints).
 */
const CHECKPOINT_RECORDS = 300;
const args = (input: string, kg: string, out: string, workers: number) => ['bin/filmkw', 'tag', input, '--id-field', 'id', '--kg', kg, '--out', out, '--workers', String(workers), '--checkpoint-records', String(CHECKPOINT_RECORDS)];

/** When to kill a run: once it has taken its output lock (during start-up), or once its checkpoint is past `after` records (and, with `pastCheckpoint`, the output has grown past that checkpoint: a kill between checkpoints). */
type Kill = { when: 'started' } | { when: 'checkpoint'; after: number; pastCheckpoint: boolean };

/** The checkpoint of `out` (null when absent or being rewritten). */
function progress(out: string): { records: number; outBytes: number } | null {
  try {
    return JSON.parse(readFileSync(`${out}.progress.json`, 'utf8')) as { records: number; outBytes: number };
  } catch {
    return null;
  }
}

/**
 * Start a run and kill it with SIGKILL when `kill` holds (polled: the states, not the time, decide). Kills
 * land on the run's own progress, so a loaded machine changes where they land, not whether they do.
 */
function killedRun(argv: string[], out: string, kill: Kill): Promise<{ killed: boolean; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const due = (): boolean => {
      if (kill.when === 'started') return existsSync(`${out}.lock`);
      const p = progress(out);
      return p !== null && p.records > kill.after && (!kill.pastCheckpoint || (existsSync(out) && statSync(out).size > p.outBytes));
    };
    const poll = setInterval(() => {
      if (!killed && child.exitCode === null && due()) {
        killed = true;
        child.kill('SIGKILL');
      }
    }, 5);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(poll);
      resolve({ killed, code, stderr });
    });
  });
}

for (const workers of [1, 2]) {
  test(`tag --resume after SIGKILL at random points (${workers} worker${workers > 1 ? 's' : ''}, seed ${seed}) = uninterrupted run`, { timeout: 1_200_000 }, async () => {
    const kg = await demoSnapshot();
    const input = join(dir, 'in.jsonl');
    if (!existsSync(input)) makeInput(input);
    const reference = join(dir, `reference-${workers}.jsonl`);
    const ref = spawnSync(process.execPath, args(input, kg, reference, workers), { cwd: root, encoding: 'utf8' });
    assert.equal(ref.status, 0, ref.stderr);
    const want = readFileSync(reference);
    const nonBlank = readFileSync(input, 'utf8').split('\n').filter((l) => l.trim() !== '').length;
    assert.equal(want.toString('utf8').trimEnd().split('\n').length, nonBlank);

    const out = join(dir, `killed-${workers}.jsonl`);
    const log: string[] = [];
    // Round 0 starts fresh and is killed during start-up; each later round resumes and is killed at its
    // first new checkpoint, right away or once more output follows it (chosen at random)
    const plan: Kill[] = [{ when: 'started' }];
    for (let i = 0; i < 5; i++) plan.push({ when: 'checkpoint', after: 0, pastCheckpoint: random() < 0.5 });
    let resumed = false;
    let finished = false;
    for (const k of plan) {
      if (k.when === 'checkpoint') k.after = progress(out)?.records ?? 0;
      const r = await killedRun(resumed ? [...args(input, kg, out, workers), '--resume'] : args(input, kg, out, workers), out, k);
      const from = /resuming .* after (\d+) records/u.exec(r.stderr)?.[1] ?? '0';
      log.push(`${JSON.stringify(k)} → resumed after ${from} records, killed=${r.killed} code=${r.code} size=${existsSync(out) ? statSync(out).size : 'none'}`);
      if (!r.killed) {
        assert.equal(r.code, 0, `${log.join('\n')}\n${r.stderr}`);
        finished = true; // the run finished before its kill point
        break;
      }
      resumed = true;
    }
    if (!finished) {
      const last = spawnSync(process.execPath, [...args(input, kg, out, workers), '--resume'], { cwd: root, encoding: 'utf8' });
      assert.equal(last.status, 0, `${log.join('\n')}\n${last.stderr}`);
    }
    const got = readFileSync(out);
    assert.ok(got.equals(want), `output differs from the uninterrupted run (seed ${seed})\n${log.join('\n')}`);
    assert.ok(!existsSync(`${out}.progress.json`));
    assert.ok(log.filter((l) => l.includes('killed=true')).length >= 3, `at least 3 kills happened:\n${log.join('\n')}`);
    assert.ok(log.filter((l) => !l.includes('after 0 records')).length >= 2, `at least 2 runs continued from a checkpoint:\n${log.join('\n')}`);
    process.stderr.write(`resume-kill (${workers} workers, seed ${seed}):\n  ${log.join('\n  ')}\n`);
  });
}
