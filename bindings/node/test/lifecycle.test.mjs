// What happens to calls nobody waits for: dropped promises, indexes never
// closed, a worker thread terminated while its install waits for consent.
// Under make check's ASan run, LeakSanitizer checks this process when it
// exits: anything the addon or the library failed to free is a report.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Worker } from 'node:worker_threads';

import { PACKAGE, makeWorld, packsign, tmp } from './lib/world.mjs';

const w = makeWorld();
const HERE = path.dirname(fileURLToPath(import.meta.url));

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

async function until(cond) {
  while (!cond()) {
    await new Promise((r) => setImmediate(r));
  }
}

test('dropped promises free what their calls made', async () => {
  let done = 0;
  const count = () => { done++; };
  const d = path.join(tmp('drop'), 'data');
  for (let i = 0; i < 50; i++) {
    packsign.verify(i % 2 ? w.v1 : w.tampered, { trust: w.policy }).then(count);
  }
  for (let i = 0; i < 10; i++) {
    packsign.digest(w.v1).then(count);
    packsign.diff(w.v1, w.v2, { trust: w.policy }).then(count);
  }
  packsign.install(w.v1, { trust: w.policy, dataDir: d }).then(count);
  packsign.install(w.tampered, { trust: w.policy, dataDir: d })
    .catch(count);
  await until(() => done === 72);
});

test('an Index never closed is freed by the garbage collector', async () => {
  let made = 0;
  for (let i = 0; i < 20; i++) {
    await packsign.verifyIndex(w.index, { trust: w.policy });
    made++;
  }
  assert.equal(made, 20);
  gc();
  await new Promise((r) => setImmediate(r));
  gc();
});

function worker(code) {
  return new Worker(`
    const { parentPort, workerData } = require('node:worker_threads');
    const packsign = require(workerData.pkg);
    ${code}`, { eval: true, workerData: { pkg: PACKAGE, w } });
}

test('the addon loads in worker threads and verifies there', async () => {
  const results = await Promise.all([0, 1].map(() => new Promise((res, rej) => {
    const t = worker(`packsign.verify(workerData.w.v1,
      { trust: workerData.w.policy }).then((r) => parentPort.postMessage(r));`);
    t.once('message', (m) => { res(m); t.terminate(); });
    t.once('error', rej);
  })));
  assert.ok(results.every((r) => r.ok === true));
});

// The worker's promise can never settle: Node-API keeps the persistent
// handle of its napi_deferred (8 bytes, napi_create_promise) for good.  So
// this runs in a child process without the leak check (LeakSanitizer would
// report that handle); ASan and UBSan still judge every access the orphaned
// thread makes.
test('a worker terminated while its install waits for consent leaves nothing behind', async () => {
  const d = path.join(tmp('worker'), 'data');
  await packsign.install(w.v1, { trust: w.policy, dataDir: d });
  const env = { ...process.env, ASAN_OPTIONS: `${process.env.ASAN_OPTIONS ?
    `${process.env.ASAN_OPTIONS}:` : ''}detect_leaks=0` };
  const r = spawnSync(process.execPath, [path.join(HERE, 'lib', 'orphan.cjs'),
    PACKAGE, w.v2, w.policy, d], { encoding: 'utf8', env });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'installed 0.2.0');
  assert.deepEqual((await packsign.list(d)).map((p) => p.version),
    ['0.1.0', '0.2.0']);
});
