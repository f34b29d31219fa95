#!/usr/bin/env node
// Runs the test suite with node's built-in test runner (TypeScript through tsx).
// Default: every test/**/*.test.ts except test/reliability/slow/. --reliability: only the slow reliability suite.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const slow = process.argv.includes('--reliability');
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(p);
  }
})('test');
const selected = files.filter((f) => f.includes(join('reliability', 'slow')) === slow);
const extra = process.argv.slice(2).filter((a) => a !== '--reliability');
// The KG-derived cache (src/lexicon/cache.ts) of a test run goes to its own directory: the tests' many
// toy KGs would otherwise evict the entries of the user's real KGs from the shared one.
const cacheDir = process.env.FILMKW_CACHE_DIR ? null : mkdtempSync(join(tmpdir(), 'filmkw-test-cache-'));
const env = cacheDir ? { ...process.env, FILMKW_CACHE_DIR: cacheDir } : process.env;
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...extra, ...selected], { stdio: 'inherit', env });
if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
process.exit(r.status ?? 1);
