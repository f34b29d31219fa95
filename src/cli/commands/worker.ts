/**
 * `filmkw worker --queue redis://host:port[/db]`: a queue worker for `filmkw tag --queue`
 * (src/batch/queue/worker.ts). Runs until SIGINT/SIGTERM, then finishes the chunks it holds and exits 0;
 * a second signal ends it at once (cli/signals.ts: ended by that signal, 130 / 143).
 * Exit 8 when Redis cannot be reached at start or the worker refused a run made by another build.
 */
import { Command, Option } from 'commander';
import { integerIn } from './option-parsers.js';
import { runQueueWorker } from '../../batch/queue/worker.js';
import { checkRedisUrl } from '../../batch/queue/protocol.js';
import { TAG_LIMITS } from '../../batch/tag-run.js';
import { endBySignal } from '../signals.js';

interface WorkerFlags {
  queue: string;
  workers: number;
  kg?: string;
  stallTimeout: number;
  name?: string;
}

export async function runWorkerCommand(flags: WorkerFlags): Promise<void> {
  const queue = checkRedisUrl(flags.queue, 'worker: --queue');
  const workers = flags.workers;
  const stallTimeoutMs = flags.stallTimeout;
  const ac = new AbortController();
  const stop = (sig: 'SIGINT' | 'SIGTERM') => {
    if (ac.signal.aborted) endBySignal(sig); // a second signal: do not wait (cli/signals.ts ends the process)
    process.stderr.write('filmkw worker: stopping after the chunks in hand (signal again to quit now)\n');
    ac.abort();
  };
  process.once('SIGINT', stop).once('SIGTERM', stop);
  const s = await runQueueWorker({ queue, workers, kg: flags.kg, stallTimeoutMs, name: flags.name, signal: ac.signal });
  process.stderr.write(`filmkw worker: stopped after ${s.chunks} chunks (${s.documents} documents${s.refused ? `, ${s.refused} refused` : ''})\n`);
}

/** Registers `filmkw worker`. */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('Tag chunks from a Redis queue for `filmkw tag --queue` (run any number, on any machine)')
    .requiredOption('--queue <url>', 'Redis URL of the queue: redis://host:port[/db]')
    .option('--workers <n>', 'tagging threads in this process', integerIn(1, TAG_LIMITS.workers), 1)
    .addOption(new Option('--kg <file>', "local copy of the runs' KG snapshot (default: the location each run names; its content hash is checked either way)"))
    .option('--stall-timeout <ms>', 'lock time of a chunk: a chunk held by a dead worker is re-delivered after it', integerIn(500, 3_600_000), 30_000)
    .addOption(new Option('--name <name>', 'name shown by `filmkw queue status` and in refusals (default: host:pid)'))
    .action((flags: WorkerFlags) => runWorkerCommand(flags));
}
