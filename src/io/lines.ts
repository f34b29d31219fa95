/**
 * Streaming physical-line splitter shared by every input reader.
 *
 * - Splits a byte stream on LF (0x0A); a CR before the LF is dropped, so CRLF files read like LF files
 *   (a lone CR inside a line is kept as data). Line numbers are 1-based and count LFs, i.e. they are what
 *   `wc -l`, editors and `sed -n Np` show.
 * - A UTF-8 byte order mark at the very start of the stream is removed (only there).
 * - Each line is decoded on its own (an LF byte never occurs inside a multi-byte UTF-8 sequence, so this
 *   is exact). Invalid UTF-8 is replaced by U+FFFD and the line is flagged `invalidUtf8`; it is still a
 *   line (readers turn it into a normal record, never drop it).
 * - Memory is bounded by the longest line: chunks are kept only until the next LF. A line longer than
 *   `maxLineBytes` is not buffered: its bytes are discarded as they arrive and one line with
 *   `tooLong: true` (and empty text) is yielded at its end, so one runaway line cannot exhaust memory.
 */

/** One physical line of the input. */
export interface RawLine {
  /** 1-based line number. */
  line: number;
  /** Decoded text without the line terminator (empty when `tooLong`). */
  text: string;
  /** Byte length of the line (without LF and the CR before it). */
  bytes: number;
  /** Invalid UTF-8 was replaced by U+FFFD. */
  invalidUtf8?: boolean;
  /** The line exceeded `maxLineBytes` and was discarded. */
  tooLong?: boolean;
  /** The line ended with CRLF (the CR was dropped from `text`). */
  crlf?: boolean;
}

/** Options of {@link splitLines}. */
export interface SplitLinesOptions {
  /**
   * Longest line kept, in bytes; longer lines are yielded as `tooLong` without their text.
   * @default DEFAULT_MAX_RECORD_BYTES (16777216)
   */
  maxLineBytes?: number;
  /** Called with the number of bytes consumed so far, after each chunk (for progress bars). */
  onBytes?: (bytesSoFar: number) => void;
}

/** Default cap on a line (and on a CSV record) in bytes: 16 MiB. */
export const DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024;

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Decode UTF-8 bytes; invalid sequences become U+FFFD (flagged). */
export function decodeUtf8(bytes: Uint8Array): { text: string; invalid: boolean } {
  try {
    return { text: strict.decode(bytes), invalid: false };
  } catch {
    return { text: lenient.decode(bytes), invalid: true };
  }
}

/** Split a byte stream into decoded physical lines (see module header). */
export async function* splitLines(source: AsyncIterable<Uint8Array | string>, opts: SplitLinesOptions = {}): AsyncGenerator<RawLine> {
  const max = opts.maxLineBytes ?? DEFAULT_MAX_RECORD_BYTES;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let discarding = false;
  let discardedBytes = 0;
  let lineNo = 0;
  let consumed = 0;
  let first = true;

  const finish = (tail: Buffer | null): RawLine => {
    lineNo++;
    if (discarding) {
      const bytes = discardedBytes;
      discarding = false;
      discardedBytes = 0;
      parts = [];
      partBytes = 0;
      return { line: lineNo, text: '', bytes, tooLong: true };
    }
    let buf = parts.length === 0 ? (tail ?? Buffer.alloc(0)) : Buffer.concat(tail ? [...parts, tail] : parts);
    parts = [];
    partBytes = 0;
    if (first) {
      first = false;
      if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
    }
    const crlf = buf.length > 0 && buf[buf.length - 1] === 0x0d && tail !== null;
    if (buf.length > 0 && buf[buf.length - 1] === 0x0d) buf = buf.subarray(0, buf.length - 1);
    const { text, invalid } = decodeUtf8(buf);
    const out: RawLine = { line: lineNo, text, bytes: buf.length };
    if (invalid) out.invalidUtf8 = true;
    if (crlf) out.crlf = true;
    return out;
  };

  for await (const raw of source) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    consumed += chunk.length;
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(0x0a, pos);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(pos, end);
      if (discarding) {
        discardedBytes += piece.length;
      } else if (partBytes + piece.length > max) {
        // Runaway line: stop buffering it (its first line is still "first" for the BOM rule).
        first = false;
        discarding = true;
        discardedBytes = partBytes + piece.length;
        parts = [];
        partBytes = 0;
      } else if (nl === -1) {
        // Copy: the caller may reuse its chunk buffer.
        parts.push(Buffer.from(piece));
        partBytes += piece.length;
      }
      if (nl === -1) break;
      yield finish(discarding ? null : piece);
      pos = nl + 1;
    }
    opts.onBytes?.(consumed);
  }
  if (partBytes > 0 || discarding) yield finish(null);
}
