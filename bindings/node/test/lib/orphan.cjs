// A worker thread terminated while its install waits for consent
// (lifecycle.test.mjs runs this in a child process):
//
//   node orphan.cjs PACKAGE ARCHIVE POLICY DATA-DIR
//
// The worker's environment is torn down under a thread of the addon that
// is inside ps_install(): the cleanup hook marks the call gone, the thread
// declines, releases DIR/.lock and frees the call without touching
// JavaScript again.  The install from the main thread then waits for that
// lock and succeeds.  Prints "installed VERSION".
'use strict';
const { Worker } = require('node:worker_threads');

const [pkg, archive, policy, dataDir] = process.argv.slice(2);
const packsign = require(pkg);

async function main() {
  const t = new Worker(`
    const { parentPort, workerData: w } = require('node:worker_threads');
    require(w.pkg).install(w.archive, { trust: w.policy, dataDir: w.dataDir,
      consent: () => {
        parentPort.postMessage('asked');
        return new Promise(() => {});
      } });`, { eval: true, workerData: { pkg, archive, policy, dataDir } });
  await new Promise((resolve) => t.once('message', resolve));
  await t.terminate();
  const r = await packsign.install(archive, { trust: policy, dataDir,
    accept: ['permissions'] });
  console.log(`installed ${r.version}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
