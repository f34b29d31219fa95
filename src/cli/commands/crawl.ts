/**
 * `filmkw replay <manifest.tsv>… [--port N] [--host H] [--latency MS|MIN-MAX [--per-host]] [--slow-host HOST=MS…]`:
 * serve saved pages at their original URLs
 * (src/crawl/replay.ts) until SIGINT/SIGTERM; prints `replay: listening on http://H:PORT …` on stdout.
 * `filmkw crawl …`, `crawl testweb`, `crawl eval`: registered here, run by src/crawl/cli.ts.
 * Exit codes: 0 done, 2 usage, 3 input (bad manifest, port in use), 7 output not writable.
 */
import { Option, type Command } from 'commander';
import { usageError } from '../../errors.js';
import { parseLatency, startReplay } from '../../crawl/replay.js';
import { checked, integerFrom, integerIn, numberIn } from './option-parsers.js';

/** `replay --latency`: MS or MIN-MAX. */
const LATENCY = checked((raw) => parseLatency(raw) ?? undefined, 'must be MS or MIN-MAX (milliseconds, MIN ≤ MAX)');

/** `replay --slow-host HOST=MS`, repeatable: the host (lower case) and its added milliseconds. */
const slowHost = checked((raw) => {
  const m = /^([a-z0-9.-]+(?::\d+)?)=(\d{1,7})$/iu.exec(raw);
  return m ? ([m[1]!.toLowerCase(), Number(m[2])] as const) : undefined;
}, 'must be HOST=MS');
const SLOW_HOSTS = (raw: string, previous: Map<string, number> | undefined): Map<string, number> => new Map([...(previous ?? []), slowHost(raw)]);

export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('serve saved pages (manifest: url, file, label) at their original URLs on a local port, dispatching on Host + path')
    .argument('<manifest...>', 'manifest TSV file(s): url<TAB>file<TAB>label[<TAB>content_type]')
    .option('--port <n>', 'port to listen on (0 = any free port)', integerIn(0, 65535), 0)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--latency <ms|min-max>', 'answer every request after a latency (ms), fixed or uniform in min-max (drawn from a hash: the same each run)', LATENCY)
    .option('--per-host', 'with --latency: one latency per host instead of per request')
    .option('--slow-host <host=ms...>', 'add ms to every answer of this host (host:port as in the URLs)', SLOW_HOSTS)
    .action(async (manifests: string[], flags: { port: number; host: string; latency?: { minMs: number; maxMs: number }; perHost?: boolean; slowHost?: Map<string, number> }) => {
      if (flags.perHost && flags.latency === undefined) throw usageError('replay: --per-host needs --latency');
      const latency = flags.latency ? { ...flags.latency, perHost: flags.perHost === true } : undefined;
      const slowHosts = flags.slowHost;
      const server = await startReplay(manifests, { port: flags.port, host: flags.host, ...(latency ? { latency } : {}), ...(slowHosts?.size ? { slowHosts } : {}) });
      process.stdout.write(`replay: listening on ${server.url} (${server.entries} URLs on ${server.hosts} hosts)\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
      process.stderr.write(`replay: stopped after ${server.stats.requests} request(s), at most ${server.stats.maxInFlight} at once (${server.stats.maxHostInFlight} for one host)\n`);
    });
}

/** `crawl --help`: the six modes, one line each (their presets: src/crawl/options.ts MODE_PRESETS). */
const MODES_HELP = `
Modes (--mode):
  focused     the default: 003's topic library with learned terms, 004's two-step score
              (a page's children fetched ahead); links the focused order leaves out
              (navigation bars) wait in the tunnel, below every other link
  bfs         breadth-first: every link, in the order found
  static      focused without learned terms (003's baseline)
  one-step    focused ranked by each page's own relevance (α = 1, 004's baseline)
  best-first  the most relevant page's children, all of them, in document order
  shark       Shark-Search: unfetched links ranked by inherited relevance, anchor and context
Strict filtering (no tunnel: the crawl stops when no link on topic is left): --set tunnel=false
Depth budget (focused, static, one-step): a page below τ_low spends one unit of its parent's
  budget, a page at or above τ_low restores it (3); a spent page's links wait below the tunnel.
  Off (the depth limit 8 of bfs, best-first and shark): --set depthBudget=0 --max-depth 8

Examples:
  filmkw crawl --seeds https://movie.douban.com/ --out scratch/douban/ --contact you@example.org
  filmkw crawl --seeds seeds.txt --out scratch/crawl/ --via http://127.0.0.1:8080 --mode bfs
`;

export function registerCrawl(program: Command): void {
  // the crawler's module graph (KG, relevance, WARC) loads only when a crawl command runs.
  // `crawl testweb --out X` / `crawl eval --out X`: options after a subcommand belong to it, which
  // commander allows only with positional options on the program and on `crawl` (the program has no
  // options of its own but --version/--help, so nothing else changes)
  program.enablePositionalOptions();
  const crawl = program
    .command('crawl')
    .description('focused crawler for film pages (seeds 003/004): WARC + index.jsonl + texts for `filmkw tag`; `crawl testweb`, `crawl eval`')
    // `crawl eval --out X`: the subcommand's options are its own, not the crawl's
    .enablePositionalOptions()
    .option('--seeds <url|file...>', 'seed URLs and/or seed files (one URL per line)')
    .option('--out <dir>', 'output directory (refused when it already holds a crawl, unless --resume)')
    .option('--via <url>', 'send every request to this replay server (http://127.0.0.1:N) with the original Host')
    // not .choices(): `--set mode=…` names a mode too, and resolveCrawlOptions checks both with one message
    .option('--mode <mode>', 'focused (default) | bfs | static | one-step | best-first | shark (see Modes below)')
    .option('--max-pages <n>', 'page budget (default 1000)', integerFrom(1))
    .option('--max-depth <n>', 'largest link depth from a seed (default 1000, a guard: the depth budget bounds off-topic chains; 8 in bfs, best-first, shark)', integerFrom(0))
    .option('--threshold <eta>', 'relevance threshold η (default 0.12)', numberIn(0, 1))
    .option('--concurrency <n>', 'requests in flight at once, at most one per host (default 8; 1 = the deterministic sequential order)', integerFrom(1))
    .option('--delay-ms <n>', 'least delay between two requests to one host (default 1000 on the real web, 0 with --via; robots Crawl-delay raises it)', integerFrom(0))
    .option('--contact <url|email>', 'how site operators reach you, sent in the User-Agent (filmkw-crawler (+contact))')
    .option('--allow-host <host...>', 'fetch only these hosts (and their subdomains)')
    .option('--deny-host <host...>', 'never fetch these hosts (and their subdomains)')
    .option('--set <key=value...>', 'any crawler option (src/crawl/options.ts), JSON value')
    .addOption(new Option('--kg <file|dir>', 'KG snapshot or csv directory for the topic library (default: the bundled demo KG)').conflicts('kgSource'))
    .option('--kg-source <spec...>', 'build the KG from import sources instead (as `kg import`: openkg:DIR kgqa:DIR douban-csv:DIR …)')
    .option('--resume', 'continue the interrupted crawl in --out (same seeds and options)')
    .option('--json', 'print the summary as JSON on stdout')
    .addHelpText('after', MODES_HELP)
    .action(async (flags: Record<string, unknown>) => {
      const { runCrawlCommand } = await import('../../crawl/cli.js');
      await runCrawlCommand(flags);
    });
  crawl
    .command('testweb')
    .description('build the local test web (real pages + KG-rendered pages + portal/tunnel pages): manifest.tsv, gold.tsv, seeds.tsv')
    .requiredOption('--out <dir>', 'output directory (must be new or empty)')
    .option('--data <dir>', 'shared data folder with html/ and kg/ (default: $FILMKW_DATA or ../shared/data)')
    .action(async (flags: { out: string; data?: string }) => {
      const { runTestWebCommand } = await import('../../crawl/cli.js');
      await runTestWebCommand(flags);
    });
  crawl
    .command('eval')
    .description('run every mode on the test web seed sets and write the results table and charts')
    .option('--web <dir>', 'a test web built by `crawl testweb` (default: build one in a temporary folder)')
    .option('--data <dir>', 'shared data folder (default: $FILMKW_DATA or ../shared/data)')
    .option('--out <dir>', 'where results.md, results.json and the SVG charts go', 'eval/crawl')
    .option('--max-pages <n>', 'page budget per run', integerFrom(10), 1000)
    .action(async (flags: { web?: string; data?: string; out: string; maxPages: number }) => {
      const { runCrawlEvalCommand } = await import('../../crawl/cli.js');
      await runCrawlEvalCommand(flags);
    });
}
