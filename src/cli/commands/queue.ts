/**
 * `filmkw queue status --queue redis://…`: chunks per state and per run, connected workers, recent
 * failures of the tag queue (src/batch/queue/status.ts).
 */
import { Command } from 'commander';
import { formatQueueStatus, queueStatus } from '../../batch/queue/status.js';

/** Registers `filmkw queue`. */
export function registerQueue(program: Command): void {
  const queue = program.command('queue').description('Inspect the Redis queue of `filmkw tag --queue`');
  queue
    .command('status')
    .description('chunks waiting / active / completed / failed, per run; connected workers; recent failures')
    .requiredOption('--queue <url>', 'Redis URL of the queue: redis://host:port[/db]')
    .option('--json', 'print JSON', false)
    .action(async (flags: { queue: string; json: boolean }) => {
      const s = await queueStatus(flags.queue);
      process.stdout.write(flags.json ? `${JSON.stringify(s, null, 2)}\n` : formatQueueStatus(s));
    });
}
