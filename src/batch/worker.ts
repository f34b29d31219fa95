/**
 * Worker thread of the tag pool (engine.ts). Builds its Extractor once from the factory spec, posts
 * `{type:'ready'}` (or `{type:'fatal'}` if that fails), then answers each `{type:'batch', id, docs}` with
 * `{type:'done', id, results}` in the order received.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FilmkwError } from '../errors.js';
import { tagTexts, type TagCallOptions, type TagInput, type TagResult } from './tag-texts.js';
import { loadFactory, type ExtractorFactorySpec } from './factory.js';
import type { Extractor } from '../pipeline/api.js';

export interface WorkerData {
  factory: ExtractorFactorySpec;
  call: TagCallOptions;
  index: number;
}
export type WorkerRequest = { type: 'batch'; id: number; docs: readonly TagInput[] };
export type WorkerReply =
  | { type: 'ready'; preset: string; kgHash: string | null }
  | { type: 'fatal'; message: string; code?: string }
  | { type: 'done'; id: number; results: TagResult[] };

const port = parentPort;
if (port) {
  const data = workerData as WorkerData;
  const post = (m: WorkerReply) => port.postMessage(m);
  let extractor: Extractor | null = null;
  const queue: WorkerRequest[] = [];
  port.on('message', (req: WorkerRequest) => {
    if (extractor) post({ type: 'done', id: req.id, results: tagTexts(extractor, req.docs, data.call) });
    else queue.push(req);
  });
  loadFactory(data.factory).then(
    (ex) => {
      extractor = ex;
      const kg = (ex.options as { kg?: { contentHash?: string } | null }).kg;
      post({ type: 'ready', preset: ex.preset, kgHash: kg?.contentHash ?? null });
      for (const req of queue.splice(0)) post({ type: 'done', id: req.id, results: tagTexts(ex, req.docs, data.call) });
    },
    (err: unknown) => {
      post({ type: 'fatal', message: (err as Error)?.message ?? String(err), code: err instanceof FilmkwError ? err.code : undefined });
    },
  );
}
