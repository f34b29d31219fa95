/**
 * commander's own usage errors (an unknown option or command, a missing argument or value, two options
 * that conflict, a value outside an option's `.choices()` or refused by its parser) in the CLI's form: one line
 * `filmkw: <command path>: <message>` on stderr, exit 2, no help after it, no stack trace.
 *
 * Every command gets an exit callback ({@link routeUsageErrors}) that knows the command: commander's
 * message (`error: …`, sometimes with a second line `(Did you mean …?)`) becomes a FilmkwError USAGE
 * carrying the command path, which run() (main.ts) prints like every other error of the CLI. commander
 * itself prints nothing for an error (main.ts configureOutput). Help and --version go through unchanged.
 *
 * A bad value is `--flag must …, got "x"`: what it must be is the option's `.choices()` (`must be a, b or
 * c`) or the error of its parser (commands/option-parsers.ts). Two options given together are `--a cannot
 * be used with --b`, with the reason the command declared ({@link conflicts}). The other messages keep
 * commander's words.
 */
import { Command, CommanderError, Option } from 'commander';
import { usageError } from '../errors.js';
import { orList } from './commands/option-parsers.js';

/** Why two options do not go together, by option and the attribute name of the other (conflicts()). */
const REASONS = new WeakMap<Option, Map<string, string>>();

/**
 * `option.conflicts(names)` (attribute names, as commander's Option.conflicts: `neo4j`, `checkpointRecords`),
 * with the reason said after the message when the two are given together.
 */
export function conflicts(option: Option, names: string | readonly string[], why?: string): Option {
  const list = typeof names === 'string' ? [names] : [...names];
  option.conflicts(list);
  if (why !== undefined) {
    const byName = REASONS.get(option) ?? new Map<string, string>();
    for (const n of list) byName.set(n, why);
    REASONS.set(option, byName);
  }
  return option;
}

/** `kg import` for that command; '' for the program itself. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** commander's message on one line: its `(Did you mean --top?)` line joined as ` (did you mean --top?)`. */
const oneLine = (text: string): string =>
  text
    .replace(/\n\(Did you mean (.*)\?\)/u, ' (did you mean $1?)')
    .replace(/\s*\n\s*/gu, ' ')
    .trim();

/** The option a message names as `option '--kg <path>'` or `environment variable 'NAME'`, with the name to show. */
function namedOption(cmd: Command, phrase: string): { option: Option; label: string } | undefined {
  const m = /^(option|environment variable) '([^']+)'$/u.exec(phrase);
  if (!m) return undefined;
  const option = cmd.options.find((o) => (m[1] === 'option' ? o.flags === m[2] : o.envVar === m[2]));
  if (!option) return undefined;
  return { option, label: m[1] === 'option' ? (option.long ?? option.flags) : `${m[2]} (environment)` };
}

/** `option '--kg <path>' cannot be used with option '--neo4j'` → `--kg cannot be used with --neo4j (why)`. */
function conflictMessage(cmd: Command, text: string): string | undefined {
  const parts = text.split(' cannot be used with ');
  if (parts.length !== 2) return undefined;
  const a = namedOption(cmd, parts[0]!);
  const b = namedOption(cmd, parts[1]!);
  if (!a || !b) return undefined;
  const why = REASONS.get(a.option)?.get(b.option.attributeName()) ?? REASONS.get(b.option)?.get(a.option.attributeName());
  return `${a.label} cannot be used with ${b.label}${why ? ` (${why})` : ''}`;
}

/**
 * A bad option value, `option '--port <n>' argument 'x' is invalid. <why>`: with `.choices()`,
 * `--backend must be a or b, got "x"`; from an argParser of commands/option-parsers.ts (whose error says
 * what the value must be), `--port must be an integer from 0 to 65535, got "x"`.
 */
function invalidValueMessage(cmd: Command, text: string): string | undefined {
  const m = /^option '([^']+)' argument '([\s\S]*)' is invalid\. ([\s\S]*)$/u.exec(text);
  const option = m ? cmd.options.find((o) => o.flags === m[1]) : undefined;
  if (!m || !option) return undefined;
  const flag = option.long ?? option.flags;
  const must = option.argChoices ? `must be ${orList(option.argChoices)}` : m[3]!;
  return `${flag} ${must}, got ${JSON.stringify(m[2])}`;
}

/** The message (without `filmkw: <command>: `) of one of commander's usage errors. */
export function usageMessage(cmd: Command, err: CommanderError): string {
  const text = err.message.replace(/^error: /u, '');
  switch (err.code) {
    case 'commander.conflictingOption':
      return conflictMessage(cmd, text) ?? oneLine(text);
    case 'commander.invalidArgument':
      return invalidValueMessage(cmd, text) ?? oneLine(text);
    case 'commander.unknownOption':
      return /\n\(Did you mean/u.test(text) ? oneLine(text) : `${oneLine(text)} (see ${['filmkw', commandPath(cmd)].filter(Boolean).join(' ')} --help)`;
    case 'commander.unknownCommand':
      return `${oneLine(text)}; commands: ${cmd.commands.map((c) => c.name()).join(', ')}`;
    case 'commander.excessArguments':
      // the command is named by the prefix already
      return oneLine(text.replace(/^too many arguments for '[^']*'\. Expected/u, 'too many arguments: expected').replace(/\.$/u, ''));
    default:
      return oneLine(text);
  }
}

/** commander's exits that are not errors: help shown (also `filmkw kg` without a subcommand), --version. */
export const helpOrVersion = (err: CommanderError): boolean => err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version';

/**
 * Gives `cmd` and every subcommand an exit callback that throws commander's usage errors as FilmkwError
 * USAGE (`<command path>: <message>`) and help / --version as they are; no help after an error.
 */
export function routeUsageErrors(cmd: Command): void {
  const path = commandPath(cmd);
  cmd.showHelpAfterError(false).exitOverride((err) => {
    if (helpOrVersion(err)) throw err;
    const message = usageMessage(cmd, err);
    throw usageError(path === '' ? message : `${path}: ${message}`);
  });
  for (const sub of cmd.commands) routeUsageErrors(sub);
}
