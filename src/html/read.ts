/**
 * Reading saved pages with a size cap (issue 26: `html text /dev/zero` grew to 15 GB). Every reader of
 * page files goes through {@link readPage}: `html text`, `html records`, `kg import html-list:` and the
 * library's `htmlToRecord`. The default cap is the crawler's (5 MiB), so a page the crawler would refuse is
 * refused here too.
 */
import { FilmkwError, inputError } from '../errors.js';
import { readCapped } from '../util/files.js';

/** How saved pages are read (`html text`, `html records`, `kg import html-list:`, the library). */
export interface PageReadOptions {
  /**
   * Largest page read, bytes: a bigger file, or a pipe that gives more, is refused without reading
   * further (the crawler's size cap; `/dev/zero` is never read whole). Range 1 KiB to 1 GiB.
   * @default 5242880
   */
  maxBytes?: number;
}

/** Defaults of {@link PageReadOptions} (frozen). */
export const PAGE_READ_DEFAULTS = Object.freeze({ maxBytes: 5 * 1024 * 1024 });

/** Valid range of {@link PageReadOptions.maxBytes} (the crawler's). */
export const PAGE_MAX_BYTES_RANGE = [1024, 1 << 30] as const;

/**
 * The bytes of one saved page, read with the cap of {@link PageReadOptions.maxBytes} (`flag`: the option
 * that raises it, named in the message). Throws FilmkwError
 * INPUT `<cmd>: <id>: larger than the cap of N bytes (…); page skipped` and the like (the callers turn it
 * into an error record), or the file system's error.
 */
export async function readPage(path: string, id: string, cmd: string, opts: PageReadOptions & { flag?: string } = {}): Promise<Uint8Array> {
  const max = opts.maxBytes ?? PAGE_READ_DEFAULTS.maxBytes;
  try {
    const b = await readCapped(path, max);
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  } catch (err) {
    if (err instanceof FilmkwError) throw inputError(`${cmd}: ${id}: ${err.message}; page skipped${opts.flag && /cap/.test(err.message) ? ` (${opts.flag} raises the cap)` : ''}`, err);
    throw err;
  }
}

