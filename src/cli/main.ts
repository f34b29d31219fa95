/**
 * filmkw command-line entry. Thin: each command lives in src/cli/commands/<name>.ts and registers itself
 * on the commander program; library code does the work. Only bin/filmkw sets the process exit code.
 *
 * Command modules are imported lazily (issue 6, cold start): `filmkw tag ...` imports only the tag
 * command's module graph (the evaluator's module graph alone is slow to load: bench/README.md "Figures behind code comments"); anything else (no command,
 * `help`, `--help`, an unknown command) registers every command (`--version` alone, none), so help and error
 * messages are the same as with eager registration.
 */
import { Command, CommanderError } from 'commander';
import { FilmkwError, EXIT } from '../errors.js';
import { helpOrVersion, routeUsageErrors } from './usage-errors.js';
import { readFileSync } from 'node:fs';

type Register = (program: Command) => void;

/** The commands in help order, each with a loader of its register function. */
const COMMANDS: readonly { name: string; load: () => Promise<Register> }[] = [
  { name: 'tag', load: async () => (await import('./commands/tag.js')).registerTag },
  { name: 'kg', load: async () => (await import('./commands/kg.js')).registerKg },
  { name: 'dict', load: async () => (await import('./commands/dict.js')).registerDict },
  { name: 'eval', load: async () => (await import('./commands/eval.js')).registerEval },
  { name: 'html', load: async () => (await import('./commands/html.js')).registerHtml },
  { name: 'serve', load: async () => (await import('./commands/serve.js')).registerServe },
  { name: 'crawl', load: async () => (await import('./commands/crawl.js')).registerCrawl },
  { name: 'replay', load: async () => (await import('./commands/crawl.js')).registerReplay },
  { name: 'worker', load: async () => (await import('./commands/worker.js')).registerWorker },
  { name: 'queue', load: async () => (await import('./commands/queue.js')).registerQueue },
  { name: 'glossary', load: async () => (await import('./commands/glossary.js')).registerGlossary },
  { name: 'corpus', load: async () => (await import('./commands/corpus.js')).registerCorpus },
];

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * The commander program. With `argv`, only the command named by `argv[0]` is registered when it is a
 * known command (see module header); without, or otherwise, all of them.
 */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const program = new Command('filmkw')
    .description('Keyword extraction for Chinese film texts with a film knowledge graph')
    .version(packageVersion())
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      writeOut: (s) => process.stdout.write(s),
      // commander's errors are printed by run() below, in the CLI's one-line form (usage-errors.ts)
      outputError: () => undefined,
    });
  const only = argv && argv.length > 0 ? COMMANDS.find((c) => c.name === argv[0]) : undefined;
  const versionOnly = argv !== undefined && argv.length === 1 && (argv[0] === '-V' || argv[0] === '--version');
  const registers = versionOnly ? [] : await Promise.all((only ? [only] : COMMANDS).map((c) => c.load()));
  for (const register of registers) register(program);
  routeUsageErrors(program);
  return program;
}

/**
 * A closed stdout (`filmkw … | head -1`) ends every command the same way: one line, exit 7. Without a
 * listener, Node throws the EPIPE as an uncaught exception (a stack trace, exit 1). This is the one place
 * the CLI exits the process itself: the command cannot be told to stop from an event handler, and its
 * output has nowhere to go. Lock files are removed by their exit hook (src/util/files.ts `lockOutput`).
 */
let stdoutGuarded = false;

function guardStdout(): void {
  if (stdoutGuarded) return; // run() may be called more than once in a process (tests)
  stdoutGuarded = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    const why = err.code === 'EPIPE' ? 'the output was closed early (EPIPE, e.g. `| head`); stopped' : `cannot write to stdout (${err.code ?? err.message}); stopped`;
    process.stderr.write(`filmkw: ${why}\n`);
    process.exit(EXIT.OUTPUT);
  });
}

/** Runs the CLI and returns the exit code; calls process.exit only for a closed stdout (guardStdout). */
export async function run(argv: string[]): Promise<number> {
  guardStdout();
  const program = await buildProgram(argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (err) {
    // help and --version; commander's usage errors arrive as FilmkwError (usage-errors.ts)
    if (err instanceof CommanderError && helpOrVersion(err)) return EXIT.OK;
    if (err instanceof FilmkwError) {
      process.stderr.write(`filmkw: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`filmkw: internal error (please report): ${(err as Error)?.stack ?? String(err)}\n`);
    return EXIT.INTERNAL;
  }
}
