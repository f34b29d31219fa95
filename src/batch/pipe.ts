/**
 * The Unix-filter contract of `filmkw tag` for Spark `RDD.pipe`, Hadoop Streaming and friends, where
 * each process gets one partition of the input on stdin and the partitions' outputs are concatenated
 * (or zipped with the input) afterwards. It is what `filmkw tag - --format txt|jsonl` does when it writes
 * to stdout (no flag needed; `--pipe` asks for it elsewhere, e.g. with `--out` or an input file):
 *
 * - exactly one output line per input line, in order — a blank line gives `{"id":null,"keywords":[]}`;
 * - nothing in a line depends on where the partition starts: a record whose id would be its line number
 *   (every txt line; a jsonl record without an id of its own, without --id-field) gets `"id":null`, and
 *   error records carry no `line` field — so the concatenated outputs of the partitions equal the output
 *   of one run over the whole input, byte for byte; a line's place in the output is its place in the input;
 * - everything else as `filmkw tag`: same keywords, error records for bad lines, the KG loaded once per
 *   process, nothing but records on stdout.
 *
 * Only `txt` and `jsonl` (one record per physical line).
 */
import { usageError } from '../errors.js';
import { readRecords, type InputFormat, type InputRecord, type ReaderOptions, type ReadStats } from '../io/readers.js';
import type { OutputLine } from './ordered.js';

export const PIPE_FORMATS: readonly InputFormat[] = ['txt', 'jsonl'];

/** The records of a pipe input, and the rewrite of each output line (see module header). */
export interface PipeInput {
  records: AsyncGenerator<InputRecord>;
  line(l: OutputLine): string;
}

export function pipeInput(input: string, opts: ReaderOptions): PipeInput {
  if (!PIPE_FORMATS.includes(opts.format)) throw usageError(`tag: --pipe reads one record per line: --format ${PIPE_FORMATS.join(' or ')}, not ${opts.format}`);
  // the reader counts the physical lines it decoded (blank ones included), to fill in the blank ones at the end
  const stats: ReadStats = opts.stats ?? { invalidUtf8: 0 };
  // lines whose record has its line number as id (blank lines, and see ReaderOptions.onLineId)
  const lineIds = new Set<number>();
  const blankRecord = (line: number): InputRecord => {
    lineIds.add(line);
    return { line, id: String(line), text: '' };
  };
  const onLineId = (line: number) => {
    lineIds.add(line);
    opts.onLineId?.(line);
  };
  async function* records(): AsyncGenerator<InputRecord> {
    let next = 1;
    for await (const r of readRecords(input, { ...opts, stats, onLineId })) {
      while (next < r.line) yield blankRecord(next++);
      yield r;
      next = r.line + 1;
    }
    while (next <= (stats.lines ?? 0)) yield blankRecord(next++);
  }
  return {
    records: records(),
    line(l) {
      let text = l.text;
      if (lineIds.delete(l.line)) {
        const prefix = `{"id":${JSON.stringify(String(l.line))},`;
        if (text.startsWith(prefix)) text = `{"id":null,${text.slice(prefix.length)}`;
      }
      // quotes inside JSON strings are escaped, so this sequence is the record's own line field
      if (l.error) text = text.replace(`,"line":${l.line},"error":`, ',"error":');
      return text;
    },
  };
}
