/**
 * `filmkw ARGS` run in the test's own process: the CLI's run() (src/cli/main.ts) with stdout and stderr
 * captured, stdin given, the exit code returned, in the shape of spawnSync(bin/filmkw) ({ status, stdout,
 * stderr }). For tests of what a command does (flags, messages, exit codes, output bytes); it goes through
 * the same commander program, command modules and library code as the binary, without starting a Node
 * process and loading every module again for each call.
 *
 * Tests of the binary itself spawn `bin/filmkw` instead: its launcher (the exit of a failed command that a
 * library keeps alive), signals, a closed pipe, worker processes, `dist/` as built.
 *
 * Calls run one at a time (stdout, stdin, the environment and the working directory are process-wide).
 * While a call runs, `process.stdout.write` and `process.stderr.write` are replaced; the node:test runner
 * of this file writes its reports to stdout as V8-serialised buffers (starting 0xFF 0x0F), which pass
 * through to the real stdout.
 */
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/cli/main.js';

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** stdin of the command (default: empty). */
  input?: string | Uint8Array;
  /** Environment variables set (a string) or removed (undefined) for the call. */
  env?: Record<string, string | undefined>;
  /** Working directory for the call (default: the repository root, as the spawned tests use). */
  cwd?: string;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let chain: Promise<unknown> = Promise.resolve();

const isRunnerReport = (chunk: unknown): boolean => chunk instanceof Uint8Array && chunk.length > 1 && chunk[0] === 0xff && chunk[1] === 0x0f;

type Write = typeof process.stdout.write;

function capture(stream: NodeJS.WriteStream, into: Buffer[], passRunnerReports: boolean): () => void {
  const original = stream.write;
  stream.write = function write(this: NodeJS.WriteStream, chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
    if (passRunnerReports && isRunnerReport(chunk)) return (original as (...a: unknown[]) => boolean).call(this, chunk, encoding, cb);
    into.push(typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array));
    const done = typeof encoding === 'function' ? encoding : cb;
    if (typeof done === 'function') process.nextTick(done as () => void);
    return true;
  } as Write;
  return () => {
    stream.write = original;
  };
}

/** Listeners a command may add to process-wide emitters; those added by a call are removed after it. */
const WATCHED: [NodeJS.EventEmitter, string][] = [
  [process, 'SIGINT'],
  [process, 'SIGTERM'],
  [process.stdout, 'error'],
  [process.stdout, 'drain'],
  [process.stdout, 'close'],
  [process.stderr, 'error'],
];

async function once(args: readonly string[], opts: CliOptions): Promise<CliResult> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const before = WATCHED.map(([e, name]) => new Set(e.listeners(name)));
  const stdinDescriptor = Object.getOwnPropertyDescriptor(process, 'stdin')!;
  const input = opts.input === undefined ? [] : [typeof opts.input === 'string' ? Buffer.from(opts.input) : Buffer.from(opts.input)];
  Object.defineProperty(process, 'stdin', { configurable: true, enumerable: true, value: Readable.from(input) });
  const savedEnv = new Map<string, string | undefined>();
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    savedEnv.set(k, process.env[k]);
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  const cwd = process.cwd();
  process.chdir(opts.cwd ?? ROOT);
  process.exitCode = undefined;
  const restoreOut = capture(process.stdout, out, true);
  const restoreErr = capture(process.stderr, err, false);
  let status: number;
  try {
    status = await run([...args]);
  } finally {
    restoreOut();
    restoreErr();
    process.exitCode = undefined;
    process.chdir(cwd);
    for (const [k, v] of savedEnv) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    Object.defineProperty(process, 'stdin', stdinDescriptor);
    WATCHED.forEach(([e, name], i) => {
      for (const l of e.listeners(name)) if (!before[i]!.has(l)) e.removeListener(name, l as (...a: unknown[]) => void);
    });
  }
  return { status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

/** Runs `filmkw ...args` in this process (see the module header). */
export function filmkw(args: readonly string[], opts: CliOptions = {}): Promise<CliResult> {
  const next = chain.then(() => once(args, opts));
  chain = next.catch(() => undefined);
  return next;
}
