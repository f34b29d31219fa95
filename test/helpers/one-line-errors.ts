/**
 * Bad arguments of a script or command, each one line on stderr with its exit code: the shared loop of the
 * experiment scripts' tests (test/integration/eval/train-rerank-cli.test.ts, rerank-heldout-cli.test.ts).
 */
import assert from 'node:assert/strict';

/** A run of the script with these arguments (spawnSync's shape). */
export type Run = (...args: string[]) => { status: number | null; stderr: string };

/**
 * For each case `[args, exit code, message]`: `run(...args)` exits with that code and its stderr is exactly
 * one line `filmkw: PREFIX: …` that matches `message`.
 */
export function expectOneLineErrors(run: Run, prefix: string, cases: readonly (readonly [string[], number, RegExp])[]): void {
  const oneLine = new RegExp(`^filmkw: ${prefix.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')}: [^\\n]+\\n$`, 'u');
  for (const [args, code, message] of cases) {
    const r = run(...args);
    assert.equal(r.status, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, oneLine);
    assert.match(r.stderr, message);
  }
}
