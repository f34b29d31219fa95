import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/filmkw', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

test('filmkw --version prints the package version', () => {
  const r = run('--version');
  assert.equal(r.status, 0);
  assert.match(r.stdout.trim(), /^\d+\.\d+\.\d+$/);
});

test('filmkw --help lists the commands', () => {
  const r = run('--help');
  assert.equal(r.status, 0);
  for (const cmd of ['tag', 'kg', 'dict', 'eval']) assert.match(r.stdout, new RegExp(`\\b${cmd}\\b`));
});

test('an unknown command or option is a usage error (exit 2) without a stack trace', () => {
  for (const args of [['no-such-command'], ['--no-such-option']]) {
    const r = run(...args);
    assert.equal(r.status, 2, `args ${args.join(' ')}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  }
});
