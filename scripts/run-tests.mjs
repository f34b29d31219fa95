#!/usr/bin/env node
// Runs the test suite with node's built-in test runner (TypeScript through tsx).
// Default: every test/**/*.test.ts except test/reliability/slow/ and test/neo4j/. --reliability: only the slow
// reliability suite. --neo4j: only test/neo4j/ (the merged real KG against a real Neo4j, one file at a time).
// First, side by side: the build (tsc → dist/, which bin/filmkw and the CLI tests run) and a type check of
// src, test and bench (tsconfig.json); a type error anywhere fails the run before any test.
// --no-build skips both (a run right after `npm run build` during development).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('close', (code) => resolve({ code, out }));
  });
}

if (!process.argv.includes('--no-build')) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const t0 = Date.now();
  const [build, check] = await Promise.all([run([tsc, '-p', 'tsconfig.build.json']), run([tsc, '--noEmit', '-p', 'tsconfig.json'])]);
  for (const [what, r] of [['build (tsc -p tsconfig.build.json)', build], ['type check of src, test and bench (tsc --noEmit -p tsconfig.json)', check]]) {
    if (r.code !== 0) {
      process.stderr.write(`${r.out}\nnpm test: the ${what} failed; no test was run\n`);
      process.exit(1);
    }
  }
  process.stderr.write(`npm test: built dist/ and type-checked src, test and bench in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}

const slow = process.argv.includes('--reliability');
const neo = process.argv.includes('--neo4j');
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(p);
  }
})('test');
const suite = (f) => (f.includes(join('reliability', 'slow')) ? 'slow' : f.startsWith(join('test', 'neo4j') + sep) ? 'neo4j' : 'default');
const selected = files.filter((f) => suite(f) === (slow ? 'slow' : neo ? 'neo4j' : 'default'));
const extra = process.argv.slice(2).filter((a) => a !== '--reliability' && a !== '--neo4j' && a !== '--no-build');
// The KG-derived cache (src/lexicon/cache.ts) of a test run goes to its own directory: the tests' many
// toy KGs would otherwise evict the entries of the user's real KGs from the shared one.
const cacheDir = process.env.FILMKW_CACHE_DIR ? null : mkdtempSync(join(tmpdir(), 'filmkw-test-cache-'));
const env = cacheDir ? { ...process.env, FILMKW_CACHE_DIR: cacheDir } : process.env;
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${neo ? 1 : 2}`, ...extra, ...selected], { stdio: 'inherit', env });
if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
process.exit(r.status ?? 1);
