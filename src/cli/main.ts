/**
 * filmkw command-line entry. Thin: each command lives in src/cli/commands/<name>.ts and registers itself
 * on the commander program; library code does the work. Only bin/filmkw sets the process exit code.
 */
import { Command, CommanderError } from 'commander';
import { FilmkwError, EXIT } from '../errors.js';
import { registerKg } from './commands/kg.js';
import { registerDict } from './commands/dict.js';
import { registerTag } from './commands/tag.js';
import { registerEval } from './commands/eval.js';
import { registerHtml } from './commands/html.js';
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export function buildProgram(): Command {
  const program = new Command('filmkw')
    .description('Keyword extraction for Chinese film texts with a film knowledge graph')
    .version(packageVersion())
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  registerTag(program);
  registerKg(program);
  registerDict(program);
  registerEval(program);
  registerHtml(program);
  // Subcommands inherit exitOverride so errors reach run() below.
  for (const c of program.commands) {
    c.exitOverride();
    for (const s of c.commands) s.exitOverride();
  }
  return program;
}

/** Runs the CLI and returns the exit code; never calls process.exit. */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.OK;
      return err.exitCode === 0 ? EXIT.OK : EXIT.USAGE; // commander already printed the message
    }
    if (err instanceof FilmkwError) {
      process.stderr.write(`filmkw: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`filmkw: internal error (please report): ${(err as Error)?.stack ?? String(err)}\n`);
    return EXIT.INTERNAL;
  }
}
