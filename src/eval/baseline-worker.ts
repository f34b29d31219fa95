/**
 * Worker thread of the nodejieba baselines (see baselines.ts). nodejieba keeps its dictionaries in
 * module-global native handles, so each baseline configuration gets its own worker: the dictionaries
 * are loaded exactly once, explicitly, and cannot leak into (or be replaced under) the pipeline's
 * segmenter in the main thread.
 *
 * Protocol: workerData = {@link BaselineWorkerData}; the worker loads the dictionaries and posts
 * `{type:'ready'}`; each `{type:'run', texts, topK}` is answered by `{type:'progress', done}` messages and
 * one `{type:'result', predictions}`; failures are posted as `{type:'error', message}`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import nodejieba from 'nodejieba';

/** Data the worker starts with. */
export interface BaselineWorkerData {
  method: 'extract' | 'textRankExtract';
  /** Value passed to `nodejieba.load({ userDict })` (paths joined by `|`). */
  userDict: string;
}

export type BaselineWorkerRequest = { type: 'run'; texts: string[]; topK: number };
export type BaselineWorkerReply =
  | { type: 'ready' }
  | { type: 'progress'; done: number }
  | { type: 'result'; predictions: string[][] }
  | { type: 'error'; message: string };

const port = parentPort;
if (port) {
  const data = workerData as BaselineWorkerData;
  const post = (m: BaselineWorkerReply) => port.postMessage(m);
  try {
    nodejieba.load({ userDict: data.userDict });
    post({ type: 'ready' });
  } catch (err) {
    post({ type: 'error', message: `loading nodejieba dictionaries failed: ${(err as Error).message}` });
  }
  port.on('message', (req: BaselineWorkerRequest) => {
    try {
      const fn = data.method === 'extract' ? nodejieba.extract : nodejieba.textRankExtract;
      const predictions: string[][] = [];
      for (let i = 0; i < req.texts.length; i++) {
        const out = fn(req.texts[i], req.topK);
        predictions.push(Array.isArray(out) ? out.map((k) => k.word) : []);
        if ((i + 1) % 20 === 0 || i + 1 === req.texts.length) post({ type: 'progress', done: i + 1 });
      }
      post({ type: 'result', predictions });
    } catch (err) {
      post({ type: 'error', message: (err as Error).message });
    }
  });
}
