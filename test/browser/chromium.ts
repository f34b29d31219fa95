/**
 * Test helper of the browser suite (`npm run test:browser`): Debian chromium at /usr/bin/chromium, driven
 * through playwright-core (never a downloaded browser). Without it the tests skip with a message, unless
 * FILMKW_REQUIRE_CHROMIUM=1 (set by .ci/run): then they fail, so CI never skips them silently.
 */
import { existsSync } from 'node:fs';
import { CHROMIUM_PATH } from '../../src/html/records.js';

/** `false` when chromium is there; otherwise the skip message. Throws when FILMKW_REQUIRE_CHROMIUM=1 and it is not. */
export function chromiumSkip(): string | false {
  if (existsSync(CHROMIUM_PATH)) return false;
  const why = `${CHROMIUM_PATH} is absent (apt-get install chromium; .ci/run installs it)`;
  if (process.env.FILMKW_REQUIRE_CHROMIUM === '1') throw new Error(`FILMKW_REQUIRE_CHROMIUM=1 but ${why}`);
  return why;
}
