/**
 * The scheduler's choice of the next request at concurrency > 1 (issue 27, the per-host queues): states
 * and counts only (which request, how many frontier entries popped), with a host-readiness predicate in
 * place of the clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FrontierEntry } from '../../src/crawl/frontier.js';
import { resolveCrawlOptions } from '../../src/crawl/options.js';
import { CrawlScheduler, type CrawlRequest } from '../../src/crawl/scheduler.js';

/** A scheduler whose frontier holds one page per host of `hosts` (best first), each with one child on that host. */
function schedulerWith(hosts: readonly string[]): CrawlScheduler {
  const s = new CrawlScheduler(resolveCrawlOptions(), () => undefined);
  hosts.forEach((h, i) => {
    const key = 0.9 - i * 0.01;
    const e: FrontierEntry = { seq: s.nextSeq(), url: `http://${h}/p${i}`, depth: 1, sim: key, key, links: `http://${h}/c${i}\t${key}`, inherited: 0 };
    s.frontier.push(e);
  });
  return s;
}

function next(s: CrawlScheduler, waiting: ReadonlySet<string> | null, maxActive: number): { request: CrawlRequest | null; popped: number } {
  let popped = 0;
  const request = s.nextRequest({
    budgetOk: () => true,
    ...(waiting ? { ready: (h: string) => !waiting.has(h) } : {}),
    maxActive,
    popped: () => popped++,
    done: () => assert.fail('no expansion ends here'),
  });
  return { request, popped };
}

test('a host whose work sits behind the children of waiting hosts still gets a request: one more expansion per waiting host', () => {
  const busy = ['h0.example', 'h1.example', 'h2.example', 'h3.example', 'h4.example', 'h5.example'];
  const s = schedulerWith([...busy, 'free.example', 'h6.example']);
  const { request, popped } = next(s, new Set(busy), 2);
  assert.equal(request?.url, 'http://free.example/c6', 'the ready host is reached past six waiting ones');
  assert.equal(popped, 7);
  assert.equal(s.active.length, 7);
  assert.equal(s.frontier.size, 1, 'the entry after it stays in the frontier');
});

test('the expansions in progress stay bounded: maxActive plus the hosts waiting', () => {
  // every entry's child is on one waiting host: maxActive + 1 expansions, then no request
  const one = schedulerWith(Array(10).fill('slow.example'));
  assert.deepEqual(next(one, new Set(['slow.example']), 2), { request: null, popped: 3 });
  assert.equal(one.frontier.size, 7);
  // three waiting hosts, nothing ready: maxActive + 3
  const three = schedulerWith(['a.example', 'b.example', 'c.example', 'a.example', 'b.example', 'c.example', 'a.example', 'b.example']);
  assert.deepEqual(next(three, new Set(['a.example', 'b.example', 'c.example']), 2), { request: null, popped: 5 });
});

test('without a readiness test (concurrency 1) the order is the frontier order, one expansion at a time', () => {
  const s = schedulerWith(['h0.example', 'h1.example']);
  const { request, popped } = next(s, null, 1);
  assert.equal(request?.url, 'http://h0.example/c0');
  assert.equal(popped, 1);
  assert.equal(s.active.length, 1);
});
