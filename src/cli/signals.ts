/**
 * Ending the process on SIGINT / SIGTERM so that it always ends (issue 26). `process.exit` runs Node's
 * teardown, which waits for the libuv thread pool: a thread blocked in `open()` or `read()` of a FIFO
 * whose writer never comes (`tag <(…) --out F` before the fix, any pipe input that stalls) kept the
 * process alive after "interrupted" was printed. So the locks are released here (the exit hook would not
 * run), and the signal is raised again with its default action: the kernel ends the process at once, and
 * the parent sees it ended by that signal (a shell reports 130 / 143, README "Exit codes").
 */
import { releaseLocks } from '../util/files.js';

export function endBySignal(sig: 'SIGINT' | 'SIGTERM'): never {
  releaseLocks();
  process.removeAllListeners(sig);
  process.kill(process.pid, sig);
  // the default action ends the process before this line; if the signal were ignored, exit the usual way
  process.exit(sig === 'SIGINT' ? 130 : 143);
}
