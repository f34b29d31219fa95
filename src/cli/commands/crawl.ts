/**
 * `filmkw replay <manifest.tsv>… [--port N] [--host H]`: serve saved pages at their original URLs
 * (src/crawl/replay.ts) until SIGINT/SIGTERM; prints `replay: listening on http://H:PORT …` on stdout.
 * `filmkw crawl …` (focused crawler, test web, evaluation): src/crawl/cli.ts.
 * Exit codes: 0 done, 2 usage, 3 input (bad manifest, port in use), 7 output not writable.
 */
import type { Command } from 'commander';
import { usageError } from '../../errors.js';

export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('serve saved pages (manifest: url, file, label) at their original URLs on a local port, dispatching on Host + path')
    .argument('<manifest...>', 'manifest TSV file(s): url<TAB>file<TAB>label[<TAB>content_type]')
    .option('--port <n>', 'port to listen on (0 = any free port)', '0')
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .action(async (manifests: string[], flags: { port: string; host: string }) => {
      const port = Number(flags.port);
      if (!/^\d+$/u.test(flags.port) || port > 65535) throw usageError(`replay: --port must be an integer in [0, 65535], got ${JSON.stringify(flags.port)}`);
      const { startReplay } = await import('../../crawl/replay.js');
      const server = await startReplay(manifests, { port, host: flags.host });
      process.stdout.write(`replay: listening on ${server.url} (${server.entries} URLs on ${server.hosts} hosts)\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
      process.stderr.write(`replay: stopped after ${server.stats.requests} request(s)\n`);
    });
}

export function registerCrawl(program: Command): void {
  // the crawler's own module graph (KG, relevance, WARC) loads only when `crawl` is run
  const crawl = program.command('crawl').description('focused crawler for film pages (seeds 003/004), its local test web and evaluation');
  crawl.allowExcessArguments(false);
  void crawl;
}
