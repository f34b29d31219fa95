#!/usr/bin/env node
// Runs a test suite with node's built-in test runner (TypeScript through tsx).
//
//   node scripts/run-tests.mjs [--suite NAME|all] [--no-build] [node --test flags…] [FILE…]
//
// A test file's suite is its folder (the rule, README "Development"):
//   test/integration/       integration   shared-data sweeps, crawl kill/resume loops, long multi-process runs
//   test/queue/             queue         a real redis-server (BullMQ): tag --queue, filmkw worker, Redis faults
//   test/neo4j/             neo4j         a real Neo4j 5 (NEO4J_URI …), one file at a time
//   test/browser/           browser       Debian chromium through playwright-core
//   test/reliability/slow/  reliability   kill -9 / resume, disk full, signals, npm pack
//   anything else           fast          `npm test`: unit and small CLI tests, no server, no browser
// `--suite all` runs every suite, one after the other. FILE arguments run just those files (any suite), one
// process each, as --isolate does for a whole suite.
// `--list` prints the suite of every test file (suite, TAB, file) and runs nothing.
//
// First, side by side: the build (tsc → dist/, which bin/filmkw and the CLI tests run) and a type check of
// src, test and bench (tsconfig.json); a type error anywhere fails the run before any test. --no-build skips
// both (a run right after `npm run build`, or the second suite of a CI run). Both are incremental (their
// state in node_modules/.cache/filmkw/): a second run rechecks only what changed. tsc does not notice a
// deleted output, so the build state is dropped when a source file has no compiled file in dist/.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

/**
 * The suites: folder, test concurrency (processes at once), and whether the files of one folder share a
 * process (`group`: the fast suite's many small files would otherwise each pay a Node start and the load of
 * the same modules; the runner's reports still name each test's own file). --isolate gives every file its
 * own process, as the other suites always do.
 */
const SUITES = {
  fast: { dir: null, concurrency: 2, group: true },
  integration: { dir: join('test', 'integration'), concurrency: 2, group: false },
  queue: { dir: join('test', 'queue'), concurrency: 2, group: false },
  neo4j: { dir: join('test', 'neo4j'), concurrency: 1, group: false },
  browser: { dir: join('test', 'browser'), concurrency: 1, group: false },
  reliability: { dir: join('test', 'reliability', 'slow'), concurrency: 2, group: false },
};

/** The suite of a test file (path relative to the repository root). */
function suiteOf(file) {
  for (const [name, s] of Object.entries(SUITES)) if (s.dir && (file + sep).startsWith(s.dir + sep)) return name;
  return 'fast';
}

function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('close', (code) => resolve({ code, out }));
  });
}

/**
 * CPU seconds (user + system) used so far by the finished child processes of this one and theirs (Linux:
 * cutime + cstime of /proc/self/stat, in clock ticks); null where there is no /proc. The runner prints the
 * CPU time of the build and of each suite beside its wall time: on a shared machine the wall time measures
 * the load, the CPU time the suite.
 */
let ticksPerSecond = null;
function childCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 of proc(5)
    ticksPerSecond ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
    return (Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
  } catch {
    return null;
  }
}
const cpuSince = (c0) => {
  const c = childCpuSeconds();
  return c === null || c0 === null ? '' : `, CPU ${(c - c0).toFixed(1)} s`;
};

/** Files under `dir` whose name ends with `suffix`, sorted. */
function filesUnder(dir, suffix) {
  const files = [];
  (function walk(d) {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(suffix)) files.push(p);
    }
  })(dir);
  return files;
}
const testFiles = () => filesUnder('test', '.test.ts');

/** Files of one folder per process at most: few enough to share the start-up, small enough to spread over the cores. */
const GROUP_SIZE = 8;

/**
 * Where the durations reporter (scripts/test-durations.mjs) keeps the time of each test file of the last
 * runs, for the order of the next run's processes. Only an order: no test reads it.
 */
const TIMES_FILE = join('node_modules', '.cache', 'filmkw', 'test-times.json');
function lastTimes() {
  try {
    return JSON.parse(readFileSync(TIMES_FILE, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * Entry files (under `dir`) that each import up to GROUP_SIZE test files of one folder, in order: node:test
 * runs the tests of every imported file in that one process. The longer processes start first: by the sum
 * of their files' times in the last run (TIMES_FILE), then the fuller groups (a first run, a fresh
 * clone). A file that fails to load becomes a failing test naming it, and the files after it still run.
 */
function groupFiles(files, dir) {
  const folders = new Map();
  for (const f of files) {
    const rel = relative('test', f).split(sep);
    const key = rel.length > 1 ? rel[0] : 'top';
    if (!folders.has(key)) folders.set(key, []);
    folders.get(key).push(f);
  }
  const groups = [];
  for (const [key, members] of folders) {
    for (let i = 0; i < members.length; i += GROUP_SIZE) groups.push([`${key}-${i / GROUP_SIZE + 1}`, members.slice(i, i + GROUP_SIZE)]);
  }
  const times = lastTimes();
  const cost = (members) => members.reduce((sum, m) => sum + (Number(times[m.split(sep).join('/')]) || 0), 0);
  groups.sort((a, b) => cost(b[1]) - cost(a[1]) || b[1].length - a[1].length);
  return groups.map(([key, members]) => {
    const entry = join(dir, `${key}.test.mjs`);
    const lines = [
      `// ${members.length} test file(s) in one process (scripts/run-tests.mjs)`,
      "import { test } from 'node:test';",
      ...members.map((m) => `try { await import(${JSON.stringify(pathToFileURL(resolve(m)).href)}); } catch (err) { test(${JSON.stringify(`load ${m.split(sep).join('/')}`)}, () => { throw err; }); }`),
    ];
    writeFileSync(entry, `${lines.join('\n')}\n`);
    return entry;
  });
}

/** tsc --incremental state files; the build's is dropped when dist/ lacks the output of a source file. */
function tscState() {
  const dir = join('node_modules', '.cache', 'filmkw');
  mkdirSync(dir, { recursive: true });
  const build = join(dir, 'build.tsbuildinfo');
  const missing = filesUnder('src', '.ts').some((f) => !f.endsWith('.d.ts') && !existsSync(join('dist', relative('src', f)).replace(/\.ts$/u, '.js')));
  if (missing) rmSync(build, { force: true });
  return { build, check: join(dir, 'check.tsbuildinfo') };
}

async function main(argv) {
  const args = [...argv];
  const take = (flag) => {
    const i = args.indexOf(flag);
    if (i === -1) return false;
    args.splice(i, 1);
    return true;
  };
  let suite = 'fast';
  const si = args.indexOf('--suite');
  if (si !== -1) {
    suite = args[si + 1] ?? '';
    args.splice(si, 2);
  }
  // the flags of earlier versions
  if (take('--reliability')) suite = 'reliability';
  if (take('--neo4j')) suite = 'neo4j';
  if (suite !== 'all' && !(suite in SUITES)) {
    process.stderr.write(`run-tests: unknown --suite ${JSON.stringify(suite)} (valid: ${Object.keys(SUITES).join(', ')}, all)\n`);
    return 2;
  }
  if (take('--list')) {
    for (const f of testFiles()) process.stdout.write(`${suiteOf(f)}\t${f.split(sep).join('/')}\n`);
    return 0;
  }
  const noBuild = take('--no-build');
  const isolate = take('--isolate');
  const named = args.filter((a) => a.endsWith('.test.ts')).map((a) => relative(process.cwd(), a));
  const extra = args.filter((a) => !a.endsWith('.test.ts'));

  if (!noBuild) {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const t0 = Date.now();
    const c0 = childCpuSeconds();
    const state = tscState();
    const [build, check] = await Promise.all([
      run([tsc, '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', state.build]),
      run([tsc, '--noEmit', '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', state.check]),
    ]);
    for (const [what, r] of [['build (tsc -p tsconfig.build.json)', build], ['type check of src, test and bench (tsc --noEmit -p tsconfig.json)', check]]) {
      if (r.code !== 0) {
        process.stderr.write(`${r.out}\nnpm test: the ${what} failed; no test was run\n`);
        return 1;
      }
    }
    process.stderr.write(`npm test: built dist/ and type-checked src, test and bench in ${((Date.now() - t0) / 1000).toFixed(1)} s${cpuSince(c0)}\n`);
  }

  const all = testFiles();
  const runs = named.length > 0 ? [['named files', named, 1, false]] : (suite === 'all' ? Object.keys(SUITES) : [suite]).map((s) => [s, all.filter((f) => suiteOf(f) === s), SUITES[s].concurrency, SUITES[s].group && !isolate]);
  // The KG-derived cache (src/lexicon/cache.ts) of a test run goes to its own directory: the tests' many
  // toy KGs would otherwise evict the entries of the user's real KGs from the shared one.
  const cacheDir = process.env.FILMKW_CACHE_DIR ? null : mkdtempSync(join(tmpdir(), 'filmkw-test-cache-'));
  const groupDir = mkdtempSync(join(tmpdir(), 'filmkw-test-groups-'));
  const env = { ...process.env, ...(cacheDir ? { FILMKW_CACHE_DIR: cacheDir } : {}), FILMKW_TEST_GROUPS: groupDir, FILMKW_TEST_TIMES: TIMES_FILE };
  const reporters = extra.some((a) => a.startsWith('--test-reporter'))
    ? []
    : ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./scripts/test-durations.mjs', '--test-reporter-destination=stderr'];
  let status = 0;
  try {
    for (const [name, files, concurrency, group] of runs) {
      if (files.length === 0) continue;
      if (runs.length > 1) process.stderr.write(`\nrun-tests: suite ${name} (${files.length} files)\n`);
      const t0 = Date.now();
      const c0 = childCpuSeconds();
      const targets = group ? groupFiles(files, groupDir) : files;
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...reporters, ...extra, ...targets], { stdio: 'inherit', env });
      process.stderr.write(`run-tests: ${name}: ${files.length} files, ${r.status === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(1)} s${cpuSince(c0)}\n`);
      if (r.status !== 0) status = r.status ?? 1;
    }
  } finally {
    if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
    rmSync(groupDir, { recursive: true, force: true });
  }
  return status;
}

process.exit(await main(process.argv.slice(2)));
