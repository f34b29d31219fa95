#!/usr/bin/env node
// Runs the test suite with node's built-in test runner (TypeScript through tsx).
// Default: every test/**/*.test.ts except test/reliability/slow/. --reliability: only the slow reliability suite.
import { readdirSync, statSync } from 'node:fs';
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
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...extra, ...selected], { stdio: 'inherit' });
process.exit(r.status ?? 1);
