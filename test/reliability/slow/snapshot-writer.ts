/**
 * Child process for snapshot-kill.test.ts: builds two synthetic KGs, prints their content hashes and
 * "ready", then saves them alternately to the target path forever (until killed), printing "saved N".
 *
 *   node --import tsx test/reliability/slow/snapshot-writer.ts <target> <entities> <relations>
 */
import { saveSnapshot } from '../../../src/kg/snapshot.js';
import { syntheticKgStore } from '../../../src/kg/synthetic.js';

const [target, entities, relations] = process.argv.slice(2);
const stores = [1, 2].map((seed) => syntheticKgStore({ entities: Number(entities), relations: Number(relations), seed }));
process.stdout.write(`${JSON.stringify({ hashes: stores.map((s) => s.contentHash) })}\nready\n`);
for (let i = 0; ; i++) {
  await saveSnapshot(stores[i % 2], target);
  process.stdout.write(`saved ${i}\n`);
}
