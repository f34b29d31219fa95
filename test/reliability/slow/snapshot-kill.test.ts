/**
 * Issue 5: snapshot writes are atomic. A child writes big snapshots in a loop and is SIGKILLed at random
 * points; the target then holds the old snapshot or a new complete one (or nothing, when there was none),
 * never a truncated one. Loading truncated copies fails with a clear message. Run by `npm run test:reliability`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KgStore } from '../../../src/kg/store.js';
import { loadSnapshot, saveSnapshot } from '../../../src/kg/snapshot.js';
import { FilmkwError } from '../../../src/errors.js';
import { smallKg } from '../../fixtures/kg/small.js';

const writer = fileURLToPath(new URL('./snapshot-writer.ts', import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'filmkw-kill-'));
const target = join(dir, 'kg.fkg');
const ROUNDS = 8;

/** Spawns the writer, waits until it is writing, kills it after `delayMs`; returns its hashes and saves seen. */
function killRound(delayMs: number): Promise<{ hashes: string[]; saves: number; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, target, '17000', '400000'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let hashes: string[] = [];
    let timer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      out += d;
      if (!timer && out.includes('ready\n')) {
        hashes = (JSON.parse(out.split('\n')[0]) as { hashes: string[] }).hashes;
        timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal !== 'SIGKILL') return reject(new Error(`writer ended by itself (code ${code}); output: ${out}`));
      resolve({ hashes, saves: (out.match(/^saved /gmu) ?? []).length, signal });
    });
  });
}

test('SIGKILL during snapshot writes never leaves a truncated snapshot', { timeout: 300_000 }, async () => {
  const old = KgStore.fromData(smallKg());
  const known = new Set([old.contentHash]);
  let interrupted = 0;
  const outcomes: string[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const fresh = r % 4 === 3; // some rounds start with no target at all
    if (fresh) rmSync(target, { force: true });
    else await saveSnapshot(old, target);
    const delay = Math.floor(Math.random() * 1200);
    const { hashes, saves } = await killRound(delay);
    hashes.forEach((h) => known.add(h));
    const temps = readdirSync(dir).filter((f) => f.includes('.tmp-'));
    if (temps.length) interrupted++;
    if (!existsSync(target)) {
      assert.ok(fresh && saves === 0, `round ${r}: target vanished (fresh=${fresh}, saves=${saves})`);
      outcomes.push(`round ${r}: killed after ${delay} ms, ${saves} saves, no target (none before)`);
      continue;
    }
    const got = await loadSnapshot(target); // must not throw: complete old or new file
    assert.ok(known.has(got.contentHash), `round ${r}: unknown content ${got.contentHash}`);
    outcomes.push(`round ${r}: killed after ${delay} ms, ${saves} saves, target ${got.contentHash === old.contentHash ? 'old' : 'new'} snapshot, ${temps.length} stray temp file(s)`);
  }
  console.log(outcomes.join('\n'));
  assert.ok(interrupted > 0, 'at least one kill landed in the middle of a write');
  // the next save removes the dead writers' temp files
  await saveSnapshot(old, target);
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.tmp-')), []);
});

test('truncated copies of a big snapshot fail to load with a clear message', async () => {
  const big = join(dir, 'big.fkg');
  // the last complete file of the writer, or a fresh one
  const { syntheticKgStore } = await import('../../../src/kg/synthetic.js');
  await saveSnapshot(syntheticKgStore({ entities: 17000, relations: 400000, seed: 3 }), big);
  const bytes = readFileSync(big);
  for (let i = 0; i < 6; i++) {
    const n = 12 + Math.floor(Math.random() * (bytes.length - 12));
    const p = join(dir, `cut-${n}.fkg`);
    writeFileSync(p, bytes.subarray(0, n));
    await assert.rejects(loadSnapshot(p), (e: unknown) => {
      assert.ok(e instanceof FilmkwError && e.code === 'INPUT', String(e));
      assert.match(e.message, new RegExp(`^kg snapshot ${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: truncated file \\(${n} bytes`));
      return true;
    });
  }
});
