// examples/node/install-pack.mjs, run as a user runs it: from a directory
// whose node_modules/packsign is the package under test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';

import { PACKAGE, REPO, makeWorld, packsign, tmp } from './lib/world.mjs';

const w = makeWorld();
const app = tmp('app');
fs.mkdirSync(path.join(app, 'node_modules'));
fs.symlinkSync(PACKAGE, path.join(app, 'node_modules', 'packsign'));
fs.copyFileSync(path.join(REPO, 'examples', 'node', 'install-pack.mjs'),
  path.join(app, 'install-pack.mjs'));

function run(...args) {
  return spawnSync(process.execPath, [path.join(app, 'install-pack.mjs'),
    ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

test('the example verifies, describes and installs', () => {
  const d = path.join(tmp('ex'), 'data');
  const r = run(w.v1, w.policy, d);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^verified research\.top-journal-reviewer 0\.1\.0, signed by alice/m);
  assert.match(r.stdout, /does not access the network/);
  assert.match(r.stdout, /^installed research\.top-journal-reviewer 0\.1\.0 to /m);
  assert.match(run(w.v1, w.policy, d).stdout, /^already installed/m);
});

test('the example shows the upgrade diff and asks through its callback', async () => {
  const d = path.join(tmp('ex'), 'data');
  assert.equal(run(w.v1, w.policy, d).status, 0);
  const no = run(w.v2, w.policy, d);
  assert.equal(no.status, 2, no.stderr);
  assert.match(no.stdout, /^upgrade from 0\.1\.0:$/m);
  assert.match(no.stdout, /changed permissions\.network: false -> true  \[widening: permissions\]/);
  assert.match(no.stdout, /^consent needed for: permissions /m);
  assert.match(no.stderr, /not a terminal and no --answer: refusing/);
  assert.match(no.stderr, /\[consent_required\]/);
  const yes = run(w.v2, w.policy, d, '--answer', 'yes');
  assert.equal(yes.status, 0, yes.stderr);
  assert.match(yes.stdout, /^installed research\.top-journal-reviewer 0\.2\.0/m);
  const [newest] = (await packsign.list(d)).filter((p) => p.newest);
  assert.equal(newest.version, '0.2.0');
});

test('the example refuses tampered bytes with exit 1', () => {
  const r = run(w.tampered, w.policy, path.join(tmp('ex'), 'data'));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /code: {5}subject_mismatch/);
});
