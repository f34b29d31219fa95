/**
 * Issue 26, `filmkw tag` through bin/filmkw (run `npm run build` first): inputs that can be read only once
 * (a FIFO, bash process substitution `<(zcat …)`), special outputs (`/dev/null`, `/dev/full`), signals
 * while a read is blocked. Each case checks the exit code, the records and the one-line message; waits are
 * on states (a lock file appearing), never on times. A worker thread out of memory and documents over the
 * work bound: test/reliability/slow/tag-work-bounds.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCli } from './cli-helpers.js';
import { until } from '../helpers/wait.js';
import { SAMPLES, bin, cli, lines, root, scratchDir, skip } from '../helpers/bin-tag.js';

const dir = scratchDir('filmkw-tag-io-', (d) => {
  writeFileSync(join(d, 'in.jsonl'), `${SAMPLES.slice(0, 4).join('\n')}\n`);
  execFileSync('gzip', ['-k', join(d, 'in.jsonl')]);
});

const oneLine = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('filmkw:'));

test('tag <(zcat in.jsonl.gz) --out F: tagged like the file (was: hung forever, the fingerprint drained the pipe)', { skip }, () => {
  const out = join(dir(), 'sub.jsonl');
  const r = spawnSync('bash', ['-c', `"${process.execPath}" "${bin}" tag <(zcat "${join(dir(), 'in.jsonl.gz')}") --format jsonl --preset textrank --out "${out}"`], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const ref = join(dir(), 'ref.jsonl');
  assert.equal(cli(['tag', join(dir(), 'in.jsonl'), '--preset', 'textrank', '--out', ref]).status, 0);
  assert.equal(readFileSync(out, 'utf8'), readFileSync(ref, 'utf8'));
  assert.ok(!existsSync(`${out}.progress.json`) && !existsSync(`${out}.lock`), 'no checkpoint or lock is left');
});

test('tag FIFO --out F with a writer: tagged; --resume on a FIFO or process substitution is refused with one clear line (exit 2)', { skip }, () => {
  const fifo = join(dir(), 'fifo');
  execFileSync('mkfifo', [fifo]);
  const out = join(dir(), 'fifo.jsonl');
  const r = spawnSync('bash', ['-c', `cat "${join(dir(), 'in.jsonl')}" > "${fifo}" & "${process.execPath}" "${bin}" tag "${fifo}" --format jsonl --preset textrank --out "${out}"; s=$?; wait; exit $s`], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(lines(out).length, 4);
  const resume = spawnSync('bash', ['-c', `"${process.execPath}" "${bin}" tag <(cat "${join(dir(), 'in.jsonl')}") --format jsonl --out "${out}" --resume`], { cwd: root, encoding: 'utf8' });
  assert.equal(resume.status, 2, resume.stderr);
  assert.equal(oneLine(resume.stderr).length, 1);
  assert.match(resume.stderr, /--resume needs a regular input file: .* is a pipe or a device .* cannot be fingerprinted/u);
});

test('SIGTERM while the input FIFO has no writer ends the process (143), says so, and leaves no lock (was: "interrupted" printed, the process stayed)', { skip }, async () => {
  const fifo = join(dir(), 'stalled');
  execFileSync('mkfifo', [fifo]);
  const out = join(dir(), 'stalled.jsonl');
  const p = startCli(['tag', fifo, '--format', 'jsonl', '--preset', 'textrank', '--out', out]);
  // the lock is taken before the input is opened: wait for it (a state), then signal
  await until('the run to take its lock', () => existsSync(`${out}.lock`));
  p.child.kill('SIGTERM');
  assert.equal(await p.done, 143, p.stderr());
  assert.match(p.stderr(), /interrupted \(SIGTERM\); the input is a pipe, which cannot be read again/u);
  assert.ok(!existsSync(`${out}.lock`), 'the lock is released');
});

test('--out /dev/null works (was: fsync EINVAL); --out /dev/full is one line naming ENOSPC, exit 7 (was: EINVAL)', { skip }, () => {
  const input = join(dir(), 'in.jsonl');
  const nul = cli(['tag', input, '--preset', 'textrank', '--out', '/dev/null']);
  assert.equal(nul.status, 0, nul.stderr);
  assert.match(nul.stderr, /4 records \(4 tagged/u);
  assert.ok(!existsSync('/dev/null.lock') && !existsSync('/dev/null.progress.json'), 'no lock or checkpoint beside a device');
  const full = cli(['tag', input, '--preset', 'textrank', '--out', '/dev/full']);
  assert.equal(full.status, 7, full.stderr);
  assert.equal(oneLine(full.stderr).length, 1, full.stderr);
  assert.match(full.stderr, /writing \/dev\/full failed: no space left on the device \(ENOSPC\)/u);
  assert.doesNotMatch(full.stderr, /EINVAL|\n\s+at /u);
});

