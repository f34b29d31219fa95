#!/usr/bin/env node
// Maintenance: after `npm install` changes the lock, run this to re-add the per-platform optional
// packages of @node-rs/jieba. The registry mirror on our build machines has only the linux-x64
// binaries, so npm records no entries for the others and `npm ci` then rejects the lock as out of
// sync. Entries for foreign platforms are skipped by `npm ci` (os/cpu mismatch), and resolved from the
// public registry on those platforms.
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const base = lock.packages['node_modules/@node-rs/jieba'];
if (!base) process.exit(0);
const platform = (suffix) => {
  const [os, cpu] = suffix.split('-');
  return { os: [os], cpu: [cpu === 'arm' ? 'arm' : cpu] };
};
for (const name of Object.keys(base.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const suffix = name.replace('@node-rs/jieba-', '');
  lock.packages[key] = { version: base.version, ...platform(suffix), license: 'MIT', optional: true, engines: { node: '>= 10' } };
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
