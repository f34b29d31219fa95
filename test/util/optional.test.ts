import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FilmkwError } from '../../src/errors.js';
import { importOptional } from '../../src/util/optional.js';

test('importOptional: a missing optional package is a usage error that says how to add it', async () => {
  await assert.rejects(
    importOptional('filmkw-no-such-package', 'html records --mode rendered'),
    (e: unknown) =>
      e instanceof FilmkwError &&
      e.code === 'USAGE' &&
      e.message === 'html records --mode rendered needs the optional package filmkw-no-such-package, which is not installed: run `npm install filmkw-no-such-package` where filmkw is installed',
  );
  const mod = await importOptional<typeof import('csv-parse/sync')>('csv-parse/sync', 'test');
  assert.equal(typeof mod.parse, 'function');
});
