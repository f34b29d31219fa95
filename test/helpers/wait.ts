/**
 * Waiting in tests for a state, never for a time: poll `ready` until it holds, failing with `what` after a
 * generous deadline (a hang becomes a clear failure, and a loaded machine only makes the wait longer).
 */
export async function until(what: string, ready: () => boolean | Promise<boolean>, deadlineMs = 120_000, everyMs = 20): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await ready())) {
    if (Date.now() > end) throw new Error(`timed out after ${deadlineMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
