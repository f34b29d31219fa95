/**
 * `filmkw queue status`: what the queue holds (chunks per state, per run), which workers are connected,
 * and why the last chunks failed.
 */
import { Queue } from 'bullmq';
import { closeQueue, lastRedisError, redisClient, retrying } from './connection.js';
import { checkRedisUrl, QUEUE_NAME, showUrl } from './protocol.js';

const STATES = ['waiting', 'active', 'completed', 'failed', 'delayed'] as const;
type State = (typeof STATES)[number];

export interface QueueStatus {
  queue: string;
  name: string;
  counts: Record<State, number>;
  /** Per run id: chunks in each state (completed = done but not yet collected by the submitter). */
  runs: ({ run: string } & Record<State, number>)[];
  workers: { name: string; addr: string; ageSeconds: number }[];
  /** The reasons of the most recent failures. */
  failures: { id: string; reason: string }[];
}

/** Read the queue's state (at most `limit` job ids per state are grouped by run). */
export async function queueStatus(url: string, opts: { timeoutMs?: number; limit?: number } = {}): Promise<QueueStatus> {
  checkRedisUrl(url, 'queue status: --queue');
  const client = redisClient(url);
  const queue = new Queue(QUEUE_NAME, { connection: client as never });
  queue.on('error', () => {});
  try {
    const timeout = opts.timeoutMs ?? 5000;
    const c = await retrying(url, timeout, 'queue status', () => queue.getJobCounts(...STATES), undefined, () => lastRedisError(client));
    const counts = Object.fromEntries(STATES.map((s) => [s, c[s] ?? 0])) as Record<State, number>;
    const runs = new Map<string, { run: string } & Record<State, number>>();
    for (const state of STATES) {
      for (const id of await queue.getRanges([state], 0, (opts.limit ?? 10_000) - 1)) {
        const run = id.replace(/-\d+$/u, '');
        let r = runs.get(run);
        if (!r) runs.set(run, (r = { run, waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0 }));
        r[state]++;
      }
    }
    // the client name of a BullMQ worker is bull:<queue, base64>:w:<worker name>
    // CLIENT LIST covers every database of the server: keep this one's
    const db = String(Number(new URL(url).pathname.replace(/^\//u, '') || 0));
    const workers = (await queue.getWorkers()).filter((w) => w.db === undefined || String(w.db) === db).map((w) => ({ name: String(w.rawname ?? w.name ?? '').replace(/^.*?:w:/u, ''), addr: String(w.addr ?? ''), ageSeconds: Number(w.age ?? 0) }));
    const failures = (await queue.getFailed(0, 4)).map((j) => ({ id: String(j.id), reason: j.failedReason }));
    return { queue: showUrl(url), name: QUEUE_NAME, counts, runs: [...runs.values()].sort((a, b) => a.run.localeCompare(b.run)), workers, failures };
  } finally {
    await closeQueue(queue, client);
  }
}

/** The status as text lines. */
export function formatQueueStatus(s: QueueStatus): string {
  const c = s.counts;
  const out = [`queue ${s.name} at ${s.queue}: ${c.waiting} waiting, ${c.active} active, ${c.completed} completed (not yet collected), ${c.failed} failed, ${c.delayed} delayed`];
  out.push(`workers: ${s.workers.length}${s.workers.map((w) => `\n  ${w.name || '(unnamed)'} ${w.addr} (connected ${w.ageSeconds} s)`).join('')}`);
  out.push(`runs: ${s.runs.length}${s.runs.map((r) => `\n  ${r.run}: ${r.waiting} waiting, ${r.active} active, ${r.completed} completed, ${r.failed} failed`).join('')}`);
  if (s.failures.length > 0) out.push(`recent failures:${s.failures.map((f) => `\n  ${f.id}: ${f.reason}`).join('')}`);
  return `${out.join('\n')}\n`;
}
