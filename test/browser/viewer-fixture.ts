// What the browser tests of the viewer share: the bundled samples, the skip reason without chromium, the
// samples tagged into a batch file, and a page of the viewer opened and ready (page errors and dialogs
// collected).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Browser, Page } from 'playwright-core';
import { runTag } from '../../src/batch/tag-run.js';
import { defaultWebDir } from '../../src/serve/server.js';
import { chromiumSkip } from './chromium.js';

export const SAMPLES = 'datasets/samples/reviews.jsonl';
export const samples = readFileSync(SAMPLES, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { id: string; text: string; tag: string[] });
/** The skip reason without chromium (a failure instead with FILMKW_REQUIRE_CHROMIUM=1, ./chromium.ts). */
export const skip = chromiumSkip();
export const hasChromium = skip === false;

/** `filmkw tag` of the samples (top 5, ids from the records) into `dir`/tags.jsonl. */
export async function tagSamples(dir: string): Promise<string> {
  assert.ok(existsSync(join(defaultWebDir(), 'app.js')), 'dist/web/app.js is missing: run npm run build');
  const tags = join(dir, 'tags.jsonl');
  await runTag({ input: SAMPLES, format: 'jsonl', idField: 'id', out: tags, topK: 5, stderr: new PassThrough() });
  return tags;
}

/** A new page of the viewer at `url`, once it says it is ready; its errors and dialogs go to `errors`. */
export async function openViewer(browser: Browser, url: string, errors: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(url);
  await page.waitForFunction('window.filmkw?.ready === true');
  return page;
}
