/**
 * The KG of a queue run as an https URL (README "Queue mode"): a real HTTPS server on 127.0.0.1 whose
 * certificate is signed by a private CA made here with openssl. The submitter and the worker trust it
 * through NODE_EXTRA_CA_CERTS (read by Node at process start, used by its fetch); a process that does not
 * trust it stops with one line naming the certificate problem and the documented exit code (3 for the
 * submitter's own download, 8 when a worker refuses the chunk), never a stack trace.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { demoSnapshot } from '../batch/demo-kg.js';
import { corpus, flushDb, kgHandler, localTag, noStack, Proc, tmp } from './cli.js';
import { redisSkipReason, sharedRedis, stopShared } from './redis.js';

const noOpenssl = spawnSync('openssl', ['version'], { encoding: 'utf8' }).status === 0 ? null : 'no openssl binary to make the test certificates (apt-get install openssl; .ci/run does)';
const skip = redisSkipReason(false) ?? noOpenssl;

let redis = '';
let dir = '';
let kg = '';
let server: Server;
let base = '';
let requests = 0;
/** CA of the server's certificate, and another CA that did not sign it. */
let ca = '';
let otherCa = '';

function openssl(args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr}`);
}

/** A CA (self-signed, EC P-256: fast to make) in `<name>.pem` / `<name>.key`. */
function makeCa(name: string): string {
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '1', '-subj', `/CN=filmkw test ${name}`]);
  return join(dir, `${name}.pem`);
}

before(async () => {
  if (skip) return;
  redis = await sharedRedis(2);
  await flushDb(redis);
  dir = tmp();
  ca = makeCa('ca');
  otherCa = makeCa('other-ca');
  // the server's certificate for 127.0.0.1, signed by the CA
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'san.ext']);
  kg = await demoSnapshot();
  server = createServer({ key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) }, kgHandler(kg, () => requests++));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server?.close();
  await stopShared();
});

test('the KG as an https URL with a private CA: submitter and worker trust it through NODE_EXTRA_CA_CERTS and tag like a local run', { skip: skip ?? false }, async () => {
  const d = tmp();
  const input = corpus(d, 2);
  const expected = localTag(input, join(d, 'local.jsonl'), ['--kg', kg]);
  const w = new Proc(['worker', '--queue', redis], undefined, { FILMKW_CACHE_DIR: join(d, 'cache'), NODE_EXTRA_CA_CERTS: ca });
  try {
    await w.waitFor(/waiting for chunks/u);
    const before = requests;
    const out = join(d, 'q.jsonl');
    const r = new Proc(['tag', input, '--id-field', 'id', '--kg', `${base}/kg.fkg`, '--queue', redis, '--chunk-docs', '10', '--out', out], undefined, { NODE_EXTRA_CA_CERTS: ca });
    assert.equal(await r.exited, 0, r.stderr);
    assert.equal(readFileSync(out, 'utf8'), expected);
    assert.equal(requests - before, 2, 'one download by the submitter, one by the worker');
  } finally {
    await w.kill();
  }
});

test('an https KG URL whose certificate the submitter does not trust: one line, exit 3, nothing downloaded', { skip: skip ?? false }, async () => {
  const d = tmp();
  const input = corpus(d, 1);
  const before = requests;
  const out = join(d, 'q.jsonl');
  // the TLS handshake fails in the submitter before Redis is used: no worker needed
  const r = new Proc(['tag', input, '--kg', `${base}/kg.fkg`, '--queue', redis, '--out', out], undefined, { NODE_EXTRA_CA_CERTS: undefined });
  assert.equal(await r.exited, 3, r.stderr);
  assert.match(
    r.stderr,
    /^filmkw: tag: KG https:\/\/127\.0\.0\.1:\d+\/kg\.fkg: download failed: unable to verify the first certificate \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\): the server's certificate is not signed by a trusted CA; for a private CA, start filmkw with NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem\n$/u,
  );
  noStack(r.stderr);
  assert.equal(requests, before, 'no HTTP request got through the handshake');
  // trusting another CA does not help, and the line says which file was read
  const other = new Proc(['tag', input, '--kg', `${base}/kg.fkg`, '--queue', redis, '--out', out], undefined, { NODE_EXTRA_CA_CERTS: otherCa });
  assert.equal(await other.exited, 3, other.stderr);
  assert.equal(other.stderr.split('\n').length, 2, other.stderr);
  assert.ok(other.stderr.includes(`: the server's certificate is not signed by a trusted CA; NODE_EXTRA_CA_CERTS=${otherCa} does not cover it\n`), other.stderr);
});

test('a worker that does not trust the https KG URL refuses the chunk: the run stops with its reason, exit 8', { skip: skip ?? false }, async () => {
  const d = tmp();
  const input = corpus(d, 1);
  const w = new Proc(['worker', '--queue', redis, '--name', 'untrusting'], undefined, { FILMKW_CACHE_DIR: join(d, 'cache'), NODE_EXTRA_CA_CERTS: undefined });
  try {
    await w.waitFor(/waiting for chunks/u);
    const r = new Proc(['tag', input, '--id-field', 'id', '--kg', `${base}/kg.fkg`, '--queue', redis, '--out', join(d, 'q.jsonl')], undefined, { NODE_EXTRA_CA_CERTS: ca });
    assert.equal(await r.exited, 8, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('filmkw: '));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /refused by worker untrusting: KG https:\/\/127\.0\.0\.1:\d+\/kg\.fkg: download failed: unable to verify the first certificate \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\): the server's certificate is not signed by a trusted CA/u);
    noStack(r.stderr);
    await w.waitFor(/REFUSED chunk .*UNABLE_TO_VERIFY_LEAF_SIGNATURE/u);
    noStack(w.stderr);
  } finally {
    await w.kill();
    await flushDb(redis);
  }
});
