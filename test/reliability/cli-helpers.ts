/**
 * Helpers of the issue-17 reliability tests: long documents to interrupt a run, and bin/filmkw started in
 * the background with its exit code (or 128 + the signal that ended it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** `{"id":"d<i>","text":…}` lines; tagging 10,000 of them takes a few seconds (long enough to interrupt). */
export function longDocs(n: number): string[] {
  const texts = readFileSync(join(root, 'datasets', 'samples', 'reviews.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l).text as string);
  return Array.from({ length: n }, (_, i) => JSON.stringify({ id: `d${i}`, text: `${texts[i % texts.length]}第${i}条。` }));
}

/** `bin/filmkw args` in the background (stdin closed), stderr (and stdout when piped) collected. */
export function startCli(args: string[], stdio: 'pipe' | 'ignore' = 'pipe'): { child: ChildProcess; stderr: () => string; stdout: () => string; done: Promise<number> } {
  const child = spawn(process.execPath, [join(root, 'bin', 'filmkw'), ...args], { cwd: root, stdio: ['ignore', stdio, 'pipe'] });
  let err = '';
  let out = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  const done = new Promise<number>((r) => child.on('close', (code, sig) => r(code ?? 128 + (sig === 'SIGTERM' ? 15 : sig === 'SIGINT' ? 2 : 9))));
  return { child, stderr: () => err, stdout: () => out, done };
}
