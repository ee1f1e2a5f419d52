// verify and verifyInstalled: the CLI's --json, refusals, 200 at once.
import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';

import { cliJson, makeWorld, packsign, tmp } from './lib/world.mjs';

const w = makeWorld();

test('verify of a good archive is the CLI\'s verify --json result', async () => {
  const r = await packsign.verify(w.v1, { trust: w.policy });
  const [status, js] = cliJson(['verify', w.v1, '--trust', w.policy]);
  assert.equal(status, 0);
  assert.deepEqual(r, js.results[0]);
  assert.equal(r.ok, true);
  assert.equal(r.identities[0].identity, 'alice');
});

test('a refusal resolves with ok false, as the CLI reports it', async () => {
  const r = await packsign.verify(w.tampered, { trust: w.policy });
  const [status, js] = cliJson(['verify', w.tampered, '--trust', w.policy]);
  assert.equal(status, 1);
  assert.deepEqual(r, js.results[0]);
  assert.equal(r.ok, false);
  assert.equal(r.exit, 1);
  assert.equal(r.code, 'subject_mismatch');
  assert.match(r.expected, /^sha256:/);
  const m = await packsign.verify(w.v1, { trust: w.malloryPolicy });
  assert.deepEqual(m, cliJson(['verify', w.v1, '--trust', w.malloryPolicy])[1]
    .results[0]);
  assert.equal(m.ok, false);
});

test('verify with one public key and with checks, as -p and --signed-by', async () => {
  const r = await packsign.verify(w.v1, { publicKey: w.alicePub,
    signedBy: 'bob' });
  const [, js] = cliJson(['verify', w.v1, '-p', w.alicePub, '--signed-by',
    'bob']);
  assert.deepEqual(r, js.results[0]);
  assert.equal(r.code, 'signer_missing');
  const at = await packsign.verify(w.v1, { trust: w.policy,
    at: new Date('2030-01-01T00:00:00Z') });
  assert.equal(at.ok, true);
});

test('a policy that cannot be loaded rejects', async () => {
  await assert.rejects(packsign.verify(w.v1, { trust: '/nonexistent.yaml' }),
    { name: 'PacksignError', code: 'not_found', exit: 2 });
});

test('200 concurrent verifies on the thread pool all agree', async () => {
  const all = await Promise.all(Array.from({ length: 200 }, (_, i) =>
    packsign.verify(i % 2 === 0 ? w.v1 : w.tampered, { trust: w.policy })));
  for (const [i, r] of all.entries()) {
    assert.equal(r.ok, i % 2 === 0);
  }
  assert.deepEqual(all[0], all[198]);
  assert.deepEqual(all[1], all[199]);
});

test('verifyInstalled is the CLI\'s verify --installed --json result', async () => {
  const d = path.join(tmp('vi'), 'data');
  const res = await packsign.install(w.v1, { trust: w.policy, dataDir: d });
  const r = await packsign.verifyInstalled(res.path, { trust: w.policy });
  const [status, js] = cliJson(['verify', '--installed', res.path, '--trust',
    w.policy]);
  assert.equal(status, 0);
  assert.deepEqual(r, js.results[0]);
  assert.equal(r.ok, true);
  assert.equal(r.check.signature_checked, true);
  const noTrust = await packsign.verifyInstalled(res.path);
  assert.equal(noTrust.ok, true);
  assert.equal(noTrust.check.signature_checked, false);
});
