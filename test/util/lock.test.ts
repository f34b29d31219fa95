import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockOutput } from '../../src/util/files.js';

const deadPid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

test('lockOutput: the lock appears with its content (linked from a private temp file, none left), and a second taker is refused naming it', () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-lock-unit-'));
  const out = join(d, 'out.jsonl');
  const release = lockOutput('tag', out);
  const info = JSON.parse(readFileSync(`${out}.lock`, 'utf8')) as { pid: number; host: string };
  assert.deepEqual([info.pid, info.host], [process.pid, hostname()]);
  assert.deepEqual(readdirSync(d), ['out.jsonl.lock']);
  assert.throws(() => lockOutput('tag', out), new RegExp(`being written by another filmkw run \\(pid ${process.pid} on `, 'u'));
  release();
  assert.deepEqual(readdirSync(d), []);
});

test('lockOutput: temp files of dead processes on this host are removed (a kill between write and link); a live one is kept', () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-lock-unit-'));
  const out = join(d, 'out.jsonl');
  const dead = join(d, `out.jsonl.lock.${hostname()}.${deadPid()}.tmp`);
  const live = join(d, `out.jsonl.lock.${hostname()}.${process.ppid}.tmp`);
  const other = join(d, 'out.jsonl.lock.elsewhere.tmp');
  for (const f of [dead, live, other]) writeFileSync(f, '{"pid":');
  const release = lockOutput('tag', out);
  assert.ok(!existsSync(dead), 'the dead process’s temp file is removed');
  assert.ok(existsSync(live) && existsSync(other), 'a live process’s or an unrelated file is kept');
  release();
});
