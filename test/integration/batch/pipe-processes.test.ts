/**
 * `filmkw tag - --format txt` through bin/filmkw processes with real pipes, as Spark's RDD.pipe does (run
 * `npm run build` first): partitions piped through separate processes concatenate to the output of one
 * process over the whole corpus, byte for byte, one output line per input line (test/batch/pipe-cases.ts;
 * the same contract in the test process, jsonl: test/batch/pipe.test.ts). In the integration suite: each
 * process loads the KG and the default preset.
 */
import { test } from 'node:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { partitionsConcatenate, root } from '../../batch/pipe-cases.js';

test('tag - --format txt: partitions through separate processes concatenate to one run', { skip: !existsSync(join(root, 'dist', 'cli', 'main.js')) && 'needs npm run build' }, () => partitionsConcatenate('txt', true));
