/**
 * `filmkw glossary` through bin/filmkw (run `npm run build` first): the sentences of src/pipeline/glossary.ts,
 * one term or all, as text or JSON; a name that is both a term and a feature (idf) lists both; an unknown
 * term is a usage error naming the known ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FEATURE_GLOSSARY, TERM_GLOSSARY } from '../../src/pipeline/glossary.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = (args: string[]) => spawnSync(process.execPath, ['bin/filmkw', 'glossary', ...args], { cwd: root, encoding: 'utf8' });

test('glossary: one term, a name shared by a term and a feature, all as JSON, an unknown term', () => {
  const bias = run(['bias']);
  assert.equal(bias.status, 0, bias.stderr);
  assert.equal(bias.stdout, `bias  ${TERM_GLOSSARY.bias.means}\n`);
  const idf = run(['idf', 'titleMarks']);
  assert.equal(idf.stdout, [`IDF                   ${TERM_GLOSSARY.idf.means}`, `idf (feature)         ${FEATURE_GLOSSARY.idf.means}`, `titleMarks (feature)  ${FEATURE_GLOSSARY.titleMarks.means}`, ''].join('\n'));
  const all = run(['--json']);
  assert.equal(all.status, 0, all.stderr);
  const rows = JSON.parse(all.stdout) as { name: string; type: string; label: string; means: string }[];
  assert.equal(rows.length, Object.keys(TERM_GLOSSARY).length + Object.keys(FEATURE_GLOSSARY).length);
  assert.deepEqual(rows.find((r) => r.name === 'sigmoid'), { name: 'sigmoid', type: 'term', label: 'σ(logit)', means: TERM_GLOSSARY.sigmoid.means });
  assert.equal(run(['σ(logit)']).stdout, `σ(logit)  ${TERM_GLOSSARY.sigmoid.means}\n`, 'found by its label too');
  const bad = run(['kindOrder']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^filmkw: glossary: unknown term "kindOrder" \(known: score, sigmoid, .*kindOrderInv.*\)\n$/u);
});
