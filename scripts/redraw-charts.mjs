#!/usr/bin/env node
// Re-draws the charts, report.html and results.md of the committed runs under eval/results/ from their
// results.json, with the titles and descriptions of eval/configs/experiments.json, without running any
// system again (npm run experiments:charts; builds first). For a change to the charts or the config's
// wording; a change to what the systems compute needs `npm run experiments`.
// Arguments: run folders (default: every folder of eval/results with a results.json).
import { existsSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const build = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  process.stderr.write('experiments:charts: npm run build failed; nothing re-drawn\n');
  process.exit(1);
}
const mod = (p) => import(pathToFileURL(join(root, 'dist', p)).href);
const { readExperimentConfig } = await mod('eval/experiments.js');
const { redrawExperimentOutputs } = await mod('eval/output.js');
const configPath = join(root, 'eval', 'configs', 'experiments.json');
const config = readExperimentConfig(configPath, 'eval/configs/experiments.json');
const results = join(root, 'eval', 'results');
const dirs = process.argv.length > 2 ? process.argv.slice(2).map((d) => resolve(d)) : readdirSync(results).map((d) => join(results, d)).filter((d) => existsSync(join(d, 'results.json')));
for (const dir of dirs) {
  const { files } = await redrawExperimentOutputs(dir, config);
  process.stderr.write(`experiments:charts: ${dir.slice(root.length + 1)}: ${files.length} files\n`);
}
