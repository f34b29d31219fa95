/**
 * commander's declared validation (`.conflicts()`, `.choices()`, unknown options and commands, missing
 * arguments and values) through the CLI entry: one stderr line `filmkw: <command>: …`, exit 2, no help
 * after it, no stack trace, nothing on stdout (src/cli/usage-errors.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { buildProgram } from '../../src/cli/main.js';
import { commandPath, conflicts, routeUsageErrors } from '../../src/cli/usage-errors.js';
import { FilmkwError } from '../../src/errors.js';
import { filmkw, type CliResult } from './in-process.js';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

/** Exit 2 and exactly one stderr line `filmkw: <path>: …` matching `re`; no help, no stack, no stdout. */
function usageLine(r: CliResult, path: string, re: RegExp, what: string): void {
  assert.equal(r.status, 2, `${what}: ${r.stderr}`);
  assert.equal(r.stdout, '', what);
  assert.ok(r.stderr.endsWith('\n') && r.stderr.indexOf('\n') === r.stderr.length - 1, `${what}: one line: ${JSON.stringify(r.stderr)}`);
  assert.ok(r.stderr.startsWith(path === '' ? 'filmkw: ' : `filmkw: ${path}: `), `${what}: ${r.stderr}`);
  assert.doesNotMatch(r.stderr, /Usage:|\n\s+at |Error:/u, what);
  assert.match(r.stderr, re, what);
}

/** Every `.conflicts()` declared on the commands, as `<command path>: --a ↔ --b`. */
const DECLARED = [
  'corpus build: --kg ↔ --neo4j',
  'crawl: --kg ↔ --kg-source',
  'dict export: --kg ↔ --neo4j',
  'eval: --baseline ↔ --placement',
  'eval: --baseline ↔ --preset',
  'eval: --baseline ↔ --set',
  'kg import: --out ↔ --neo4j',
  'kg show: --kg ↔ --neo4j',
  'kg stats: --kg ↔ --neo4j',
  'serve: --kg ↔ --neo4j',
  'tag: --checkpoint-records ↔ --queue',
  'tag: --kg ↔ --neo4j',
  'tag: --pipe ↔ --queue',
  'tag: --worker-heap-mb ↔ --queue',
  'tag: --workers ↔ --queue',
];

function* allCommands(cmd: Command): Generator<Command> {
  yield cmd;
  for (const c of cmd.commands) yield* allCommands(c);
}

/** The command line that gives `a` and `b` together, with every required option and argument given. */
function bothArgs(cmd: Command, a: Option, b: Option): string[] {
  const given = (o: Option): string[] => (o.required || o.optional ? [o.long!, o.argChoices?.[0] ?? '2'] : [o.long!]);
  const mandatory = cmd.options.filter((o) => o.mandatory && o !== a && o !== b).flatMap(given);
  const args = cmd.registeredArguments.filter((x) => x.required).map(() => 'x');
  return [...commandPath(cmd).split(' '), ...args, ...mandatory, ...given(a), ...given(b)];
}

test('every declared conflict: both options given → one line naming both, exit 2, before any work', { timeout: 120_000 }, async () => {
  const program = await buildProgram();
  const found: string[] = [];
  for (const cmd of allCommands(program)) {
    for (const a of cmd.options) {
      // commander keeps an option's .conflicts() in conflictsWith (set, not in its type declarations)
      for (const name of (a as Option & { conflictsWith: string[] }).conflictsWith) {
        const b = cmd.options.find((o) => o.attributeName() === name && !o.negate);
        assert.ok(b, `${commandPath(cmd)}: ${a.long} conflicts with an option it does not have: ${name}`);
        const path = commandPath(cmd);
        found.push(`${path}: ${a.long} ↔ ${b.long}`);
        const args = bothArgs(cmd, a, b);
        const r = await filmkw(args);
        usageLine(r, path, new RegExp(`^filmkw: ${esc(path)}: ${esc(a.long!)} cannot be used with ${esc(b.long!)}( \\(.+\\))?\\n$`, 'u'), args.join(' '));
      }
    }
  }
  assert.deepEqual(found.sort(), DECLARED);
});

test('conflicts: the reason declared with the pair ends the line; the order on the command line does not matter', async () => {
  const cases: [string[], string][] = [
    [['tag', '-', '--queue', 'redis://127.0.0.1:1', '--workers', '2'], 'filmkw: tag: --workers cannot be used with --queue (give it to `filmkw worker`)\n'],
    [['tag', '-', '--pipe', '--queue', 'redis://127.0.0.1:1'], 'filmkw: tag: --pipe cannot be used with --queue (a filter runs where its partition is)\n'],
    [['tag', '-', '--neo4j', '--kg', 'kg/demo'], 'filmkw: tag: --kg cannot be used with --neo4j\n'],
    [['eval', '--gold', 'g.jsonl', '--set', 'graph.window=3', '--baseline', 'nodejieba-tfidf'], 'filmkw: eval: --baseline cannot be used with --set (--set applies to presets, not to baselines)\n'],
    [['kg', 'import', '--neo4j', '--out', 'x.fkg', 'demo'], 'filmkw: kg import: --out cannot be used with --neo4j\n'],
  ];
  for (const [args, line] of cases) {
    const r = await filmkw(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stderr, line, args.join(' '));
    assert.equal(r.stdout, '');
  }
});

test('conflicts only see what the command line gives: a default, or one of the pair alone, is no conflict', async () => {
  // --workers has the default 1 and --neo4j the default false: neither counts as given
  const q = await filmkw(['tag', '-', '--format', 'txt', '--queue', 'http://x']);
  usageLine(q, 'tag', /--queue must start with redis:\/\//u, 'tag --queue alone reaches the command');
  const kg = await filmkw(['kg', 'import', 'demo']);
  usageLine(kg, 'kg import', /^filmkw: kg import: give exactly one of --out FILE or --neo4j\n$/u, 'kg import with neither');
  const ev = await filmkw(['eval', '--gold', 'test/fixtures/eval/tiny.jsonl']);
  usageLine(ev, 'eval', /^filmkw: eval: give exactly one of --preset <name> or --baseline <name> \(baselines: /u, 'eval with neither');
});

test('a value outside .choices(): `<flag> must be a, b or c, got "x"`', async () => {
  const cases: [string[], string, string][] = [
    [['tag', '-', '--backend', 'hanlp'], 'tag', '--backend must be node-rs or nodejieba, got "hanlp"'],
    [['tag', '-', '--format', 'xml'], 'tag', '--format must be jsonl, json, csv, tsv, txt or html, got "xml"'],
    [['tag', '-', '--backend', "it's\nnot"], 'tag', '--backend must be node-rs or nodejieba, got "it\'s\\nnot"'],
    [['corpus', 'build', 'a.jsonl', '--out', 'x.tsv', '--format', 'xml'], 'corpus build', '--format must be jsonl, json, csv, tsv, txt or html, got "xml"'],
    [['html', 'text', 'x.html', '--stop-at', 'parent'], 'html text', '--stop-at must be current or child, got "parent"'],
    [['html', 'records', 'x.html', '--mode', 'fast'], 'html records', '--mode must be auto, rendered or structural, got "fast"'],
    [['kg', 'import', '--out', 'x.fkg', '--openkg-composer', 'maybe', 'demo'], 'kg import', '--openkg-composer must be wrote or skip, got "maybe"'],
    [['eval', '--gold', 'g.jsonl', '--precision-denominator', 'all'], 'eval', '--precision-denominator must be returned or k, got "all"'],
    [['eval', '--gold', 'g.jsonl', '--format', 'tsv'], 'eval', '--format must be jsonl or csl, got "tsv"'],
    [['experiments', '--gold', 'g.jsonl', '--out', 'o', '--backend', 'x'], 'experiments', '--backend must be node-rs or nodejieba, got "x"'],
    [['dict', 'export', '--out', 'u.dict', '--common-phrases', 'maybe'], 'dict export', '--common-phrases must be include or exclude, got "maybe"'],
  ];
  for (const [args, path, message] of cases) usageLine(await filmkw(args), path, new RegExp(`^filmkw: ${esc(path)}: ${esc(message)}\\n$`, 'u'), args.join(' '));
});

test('crawl and crawl eval: the numeric flags are parsed by their argParsers, one line before any work', async () => {
  const crawl = ['crawl', '--seeds', 'http://films.example/', '--out', 'never-made'];
  const cases: [string[], string, string][] = [
    [[...crawl, '--max-pages', '0'], 'crawl', '--max-pages must be an integer ≥ 1, got "0"'],
    [[...crawl, '--max-pages', '1e3'], 'crawl', '--max-pages must be an integer ≥ 1, got "1e3"'],
    [[...crawl, '--max-depth', '-1'], 'crawl', '--max-depth must be an integer ≥ 0, got "-1"'],
    [[...crawl, '--concurrency', 'eight'], 'crawl', '--concurrency must be an integer ≥ 1, got "eight"'],
    [[...crawl, '--delay-ms', '0.5'], 'crawl', '--delay-ms must be an integer ≥ 0, got "0.5"'],
    [[...crawl, '--threshold', '1.5'], 'crawl', '--threshold must be a number in [0, 1], got "1.5"'],
    [[...crawl, '--threshold', 'high'], 'crawl', '--threshold must be a number in [0, 1], got "high"'],
    [['crawl', 'eval', '--max-pages', '9'], 'crawl eval', '--max-pages must be an integer ≥ 10, got "9"'],
  ];
  for (const [args, path, message] of cases) usageLine(await filmkw(args), path, new RegExp(`^filmkw: ${esc(path)}: ${esc(message)}\\n$`, 'u'), args.join(' '));
});

test('--format takes its choices in any case, as the file readers do; --help lists every choice', async () => {
  const r = await filmkw(['tag', '-', '--format', ' TXT', '--preset', 'textrank', '--top', '2'], { input: '易烊千玺主演的长津湖\n' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.split('\n').length, 2, r.stdout);
  const help = (await filmkw(['tag', '--help'])).stdout.replace(/\s+/gu, ' ');
  assert.match(help, /\(choices: "jsonl", "json", "csv", "tsv", "txt", "html"\)/u);
  assert.match(help, /--backend <name> segmenter backend \(choices: "node-rs", "nodejieba", default: "node-rs"\)/u);
});

test("commander's other usage errors: one line naming the command", async () => {
  const cases: [string[], string, RegExp][] = [
    [['tag', '-', '--bogus'], 'tag', /^filmkw: tag: unknown option '--bogus' \(see filmkw tag --help\)\n$/u],
    [['kg', 'show', 'x', '--limt', '3'], 'kg show', /^filmkw: kg show: unknown option '--limt' \(did you mean --limit\?\)\n$/u],
    [['--bogus'], '', /^filmkw: unknown option '--bogus' \(see filmkw --help\)\n$/u],
    [['tag', '-', '--bo\ngus'], 'tag', /^filmkw: tag: unknown option '--bo gus' \(see filmkw tag --help\)\n$/u],
    [['bogus'], '', /^filmkw: unknown command 'bogus' \(did you mean corpus\?\); commands: tag, kg, dict, eval, experiments, html, serve, crawl, replay, worker, queue, glossary, corpus\n$/u],
    [['kg', 'bogus'], 'kg', /^filmkw: kg: unknown command 'bogus'; commands: import, show, stats\n$/u],
    [['kg', 'import', '--out', 'x.fkg'], 'kg import', /^filmkw: kg import: missing required argument 'source'\n$/u],
    [['kg', 'show'], 'kg show', /^filmkw: kg show: missing required argument 'entity'\n$/u],
    [['kg', 'import', '--out'], 'kg import', /^filmkw: kg import: option '--out <file>' argument missing\n$/u],
    [['dict', 'export'], 'dict export', /^filmkw: dict export: required option '--out <path>' not specified\n$/u],
    [['tag', 'a.txt', 'b.txt'], 'tag', /^filmkw: tag: too many arguments: expected 1 argument but got 2\n$/u],
    [['crawl', 'testweb'], 'crawl testweb', /^filmkw: crawl testweb: required option '--out <dir>' not specified\n$/u],
  ];
  for (const [args, path, re] of cases) usageLine(await filmkw(args), path, re, args.join(' '));
});

test('help and --version are no errors (exit 0, on stdout)', async () => {
  for (const args of [['--version'], ['tag', '--help'], ['help', 'kg']]) {
    const r = await filmkw(args);
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.notEqual(r.stdout, '');
  }
});

test('an option given from the environment (.env()) is named by its variable in a conflict', () => {
  const program = new Command('filmkw').configureOutput({ outputError: () => undefined });
  program
    .command('demo')
    .addOption(new Option('--uri <uri>').env('FILMKW_TEST_URI'))
    .addOption(conflicts(new Option('--file <file>'), 'uri', 'one source at a time'))
    .action(() => undefined);
  routeUsageErrors(program);
  const saved = process.env.FILMKW_TEST_URI;
  process.env.FILMKW_TEST_URI = 'bolt://x';
  try {
    assert.throws(
      () => program.parse(['demo', '--file', 'a'], { from: 'user' }),
      (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && e.message === 'demo: --file cannot be used with FILMKW_TEST_URI (environment) (one source at a time)',
    );
  } finally {
    if (saved === undefined) delete process.env.FILMKW_TEST_URI;
    else process.env.FILMKW_TEST_URI = saved;
  }
});

test('bin/filmkw: a declared conflict and a missing argument exit 2 with one line', () => {
  const bin = fileURLToPath(new URL('../../bin/filmkw', import.meta.url));
  for (const [args, line] of [
    [['tag', '-', '--kg', 'kg/demo', '--neo4j'], 'filmkw: tag: --kg cannot be used with --neo4j\n'],
    [['kg', 'import', '--out', 'x.fkg'], "filmkw: kg import: missing required argument 'source'\n"],
  ] as const) {
    const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', input: '' });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, line);
    assert.equal(r.stdout, '');
  }
});
