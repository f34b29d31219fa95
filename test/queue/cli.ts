/** Test helper: the real `filmkw` entry point (bin/filmkw → dist/, so `npm run build` first) as child processes. */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const bin = join(root, 'bin', 'filmkw');
export const tmp = () => mkdtempSync(join(tmpdir(), 'filmkw-queue-'));
/** Asserts that a child's stderr holds no stack trace. */
export const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at /u, 'no stack trace');

export function filmkw(args: string[], input?: string, cwdBin = bin) {
  return spawnSync(process.execPath, [cwdBin, ...args], { cwd: root, encoding: 'utf8', input, maxBuffer: 1 << 26 });
}

/** A child `filmkw` process whose stderr is collected; `exited` resolves with its exit code. */
export class Proc {
  readonly child: ChildProcess;
  stderr = '';
  stdout = '';
  readonly exited: Promise<number | null>;
  constructor(args: string[], binPath = bin, env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(process.execPath, [binPath, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => (this.stdout += d));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  }
  /** Wait until stderr matches (the deadline only turns a hang into a failure; a loaded machine is slow). */
  async waitFor(re: RegExp, ms = 180_000): Promise<void> {
    const end = Date.now() + ms;
    while (!re.test(this.stderr)) {
      if (this.child.exitCode !== null) throw new Error(`process exited (${this.child.exitCode}) before ${re}: ${this.stderr}`);
      if (Date.now() > end) throw new Error(`timed out waiting for ${re}: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

/** `filmkw worker` on the queue; resolves once it waits for chunks. */
export async function startWorker(url: string, extra: string[] = [], binPath = bin): Promise<Proc> {
  const w = new Proc(['worker', '--queue', url, ...extra], binPath);
  await w.waitFor(/waiting for chunks/u);
  return w;
}

export async function flushDb(url: string): Promise<void> {
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    await r.flushdb();
  } finally {
    r.disconnect();
  }
}

/** Chunks of the queue in a state (waiting, active, completed, failed), read directly from Redis. */
export async function countJobs(url: string, state: 'wait' | 'active' | 'completed' | 'failed'): Promise<number> {
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const key = `bull:filmkw-tag:${state}`;
    const type = await r.type(key);
    return type === 'list' ? r.llen(key) : type === 'zset' ? r.zcard(key) : 0;
  } finally {
    r.disconnect();
  }
}

const samples = join(root, 'datasets', 'samples', 'reviews.jsonl');

/**
 * A jsonl corpus: the 12 bundled samples repeated `times` times with fresh ids, and bad records among
 * them (invalid JSON, a missing text field, a number as text), so error records travel through the
 * queue too.
 */
export function corpus(dir: string, times: number, name = 'corpus.jsonl'): string {
  const texts = readFileSync(samples, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { text: string }).text);
  const lines: string[] = [];
  for (let r = 0; r < times; r++) {
    texts.forEach((t, i) => lines.push(JSON.stringify({ id: `d${r}-${i}`, text: t })));
    if (r % 7 === 3) lines.push('{"id":"broken", "text": "unterminated', JSON.stringify({ id: `nofield${r}` }), JSON.stringify({ id: `num${r}`, text: 42 }));
  }
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The output of a local `filmkw tag` run (the reference a queue run must equal byte for byte). */
export function localTag(input: string, out: string, extra: string[] = []): string {
  const r = filmkw(['tag', input, '--id-field', 'id', '--out', out, ...extra]);
  if (r.status !== 0) throw new Error(`local tag failed: ${r.stderr}`);
  return readFileSync(out, 'utf8');
}

/** Request handler of a test server for a KG URL: the snapshot `kg` at /kg.fkg, 404 elsewhere; `onRequest` counts the requests. */
export function kgHandler(kg: string, onRequest: () => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    onRequest();
    if (req.url !== '/kg.fkg') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(readFileSync(kg));
  };
}
