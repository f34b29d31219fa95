/**
 * `filmkw tag --pipe`: the Unix-filter contract for Spark `RDD.pipe`, Hadoop Streaming and friends,
 * where each process gets one partition of the input on stdin and the partitions' outputs are
 * concatenated (or zipped with the input) afterwards:
 *
 * - exactly one output line per input line, in order — a blank line gives `{"id":null,"keywords":[]}`;
 * - nothing in a line depends on where the partition starts: a txt document (whose id would be its line
 *   number) gets `"id":null`, and error records carry no `line` field — so the concatenated outputs of
 *   the partitions equal the output of one run over the whole input, byte for byte (jsonl records keep
 *   their id; give them one, or the id is the line number within the partition);
 * - everything else as `filmkw tag`: same keywords, error records for bad lines, the KG loaded once per
 *   process, nothing but records on stdout.
 *
 * Only `txt` and `jsonl` (one record per physical line).
 */
import { createReadStream } from 'node:fs';
import { usageError } from '../errors.js';
import { readRecords, type InputFormat, type InputRecord, type ReaderOptions } from '../io/readers.js';
import type { OutputLine } from './ordered.js';

export const PIPE_FORMATS: readonly InputFormat[] = ['txt', 'jsonl'];

const LF = 0x0a;

/** The records of a pipe input, and the rewrite of each output line (see module header). */
export interface PipeInput {
  records: AsyncGenerator<InputRecord>;
  line(l: OutputLine): string;
}

export function pipeInput(input: string, opts: ReaderOptions): PipeInput {
  if (!PIPE_FORMATS.includes(opts.format)) throw usageError(`tag: --pipe reads one record per line: --format ${PIPE_FORMATS.join(' or ')}, not ${opts.format}`);
  // physical lines of the input (LF count, plus an unterminated last line), to fill in the blank ones
  let lfs = 0;
  let bytes = 0;
  let lastByte = LF;
  async function* counted(src: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
    for await (const c of src) {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      for (let i = b.indexOf(LF); i >= 0; i = b.indexOf(LF, i + 1)) lfs++;
      if (b.length > 0) lastByte = b[b.length - 1];
      bytes += b.length;
      yield b;
    }
  }
  const src = input === '-' ? process.stdin : createReadStream(input, { highWaterMark: 256 * 1024 });
  const blank = new Set<number>();
  const blankRecord = (line: number): InputRecord => {
    blank.add(line);
    return { line, id: String(line), text: '' };
  };
  async function* records(): AsyncGenerator<InputRecord> {
    let next = 1;
    for await (const r of readRecords(counted(src), opts)) {
      while (next < r.line) yield blankRecord(next++);
      yield r;
      next = r.line + 1;
    }
    const total = lfs + (bytes > 0 && lastByte !== LF ? 1 : 0);
    while (next <= total) yield blankRecord(next++);
  }
  const txt = opts.format === 'txt';
  return {
    records: records(),
    line(l) {
      let text = l.text;
      if (txt || blank.delete(l.line)) {
        const prefix = `{"id":${JSON.stringify(String(l.line))},`;
        if (text.startsWith(prefix)) text = `{"id":null,${text.slice(prefix.length)}`;
      }
      // quotes inside JSON strings are escaped, so this sequence is the record's own line field
      if (l.error) text = text.replace(`,"line":${l.line},"error":`, ',"error":');
      return text;
    },
  };
}
