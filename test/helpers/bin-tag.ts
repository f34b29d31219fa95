/**
 * The shared setup of the tests that run `filmkw tag` through bin/filmkw (run `npm run build` first:
 * test/reliability/tag-inputs-outputs.test.ts, test/reliability/slow/tag-work-bounds.test.ts): the
 * binary, the skip reason without a build, the sample records, a run with its output captured, the
 * records of an output file, and a scratch directory for the file's tests.
 */
import { before, after } from 'node:test';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const bin = join(root, 'bin', 'filmkw');
export const skip = existsSync(join(root, 'dist', 'cli', 'main.js')) ? false : 'run `npm run build` first (the tests spawn bin/filmkw)';
/** The lines of datasets/samples/reviews.jsonl (`{"id":"sample-01","text":…}`). */
export const SAMPLES = readFileSync(join(root, 'datasets', 'samples', 'reviews.jsonl'), 'utf8').trim().split('\n');

/** `bin/filmkw ARGS` from the repository root, stdin `input` (default: none), output captured. */
export const cli = (args: string[], opts: { input?: string } = {}) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', input: opts.input });

/** The JSON records of a tag output file. */
export const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; error?: string; keywords?: unknown[] });

/**
 * A scratch directory made (then given to `prepare`) before the tests of the calling file and removed
 * after them; the returned function gives its path.
 */
export function scratchDir(prefix: string, prepare?: (dir: string) => void): () => string {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    prepare?.(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}
