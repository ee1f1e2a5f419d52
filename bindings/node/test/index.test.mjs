// The index calls: readIndex, verifyIndex (the CLI's index verify --json),
// resolve, the client state, close.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';

import { AGENTPACK, cliJson, makeWorld, packsign, tmp } from './lib/world.mjs';

const w = makeWorld();

test('verifyIndex is the CLI\'s index verify --json', async () => {
  const d = path.join(tmp('ix'), 'data');
  const ix = await packsign.verifyIndex(w.index, { trust: w.policy });
  assert.ok(ix instanceof packsign.Index);
  const [status, js] = cliJson(['index', 'verify', w.index, '--trust', w.policy,
    '--data-dir', d]);
  assert.equal(status, 0);
  const { ok, index_state: state, recorded, ...own } = js;
  assert.equal(ok, true);
  assert.equal(state, null);
  assert.equal(recorded, false);
  assert.deepEqual({ ...ix }, own);
  const bytes = await packsign.readIndex(w.index);
  assert.ok(Buffer.isBuffer(bytes));
  assert.deepEqual(bytes, fs.readFileSync(w.index));
  const again = await packsign.verifyIndex(bytes, { trust: w.policy });
  assert.deepEqual({ ...again }, own);
  ix.close();
  again.close();
});

test('a refused index rejects; mallory may not sign it', async () => {
  await assert.rejects(packsign.verifyIndex(w.index,
    { trust: w.malloryPolicy }), { name: 'PacksignError', exit: 1 });
  const data = Buffer.from(fs.readFileSync(w.index, 'utf8').replace('"payload":"',
    '"payload":"A'));
  await assert.rejects(packsign.verifyIndex(data, { trust: w.policy }),
    packsign.PacksignError);
});

test('resolve: the newest, an exact version, a range, and its refusals', async () => {
  const ix = await packsign.verifyIndex(w.index, { trust: w.policy });
  assert.equal(ix.resolve(AGENTPACK).version, '0.2.0');
  assert.equal(packsign.resolve(ix, AGENTPACK, '0.1.0').version, '0.1.0');
  assert.equal(ix.resolve(AGENTPACK, '^0.1').version, '0.1.0');
  const e = ix.packs.find((p) => p.version === '0.1.0');
  assert.deepEqual(ix.resolve(AGENTPACK, '0.1.0'), e);
  assert.throws(() => ix.resolve('nobody'), { code: 'index_not_listed',
    exit: 1 });
  assert.throws(() => ix.resolve(AGENTPACK, '>=9'), { code: 'index_no_match' });
  // Longer than an index id may be: no entry, never the one its prefix names.
  assert.throws(() => ix.resolve(AGENTPACK.padEnd(300, 'x')), TypeError);
  assert.throws(() => ix.resolve(`${AGENTPACK}\u0000x`), TypeError);
  ix.close();
  assert.throws(() => ix.resolve(AGENTPACK), /the index is closed/);
  ix.close();
});

test('the client state: load, record, check (as index verify --record)', async () => {
  const d = path.join(tmp('state'), 'data');
  const ix = await packsign.verifyIndex(w.index, { trust: w.policy });
  assert.equal(await packsign.indexStateLoad(d, 'alice'), null);
  packsign.indexStateCheck(null, ix);
  assert.equal(await packsign.indexStateRecord(d, ix), true);
  assert.equal(await packsign.indexStateRecord(d, ix), false);
  const seen = await packsign.indexStateLoad(d, 'alice');
  const [, js] = cliJson(['index', 'verify', w.index, '--trust', w.policy,
    '--data-dir', d]);
  assert.deepEqual(seen, js.index_state);
  assert.equal(seen.index_sha256, ix.index_sha256);
  packsign.indexStateCheck(seen, ix);
  assert.throws(() => packsign.indexStateCheck({ ...seen,
    version: seen.version + 1 }, ix), { code: 'index_rollback' });
  assert.throws(() => packsign.indexStateCheck({ ...seen,
    index_sha256: `sha256:${'0'.repeat(64)}` }, ix),
  { code: 'index_equivocation' });
  assert.throws(() => packsign.indexStateCheck({ version: 'x' }, ix),
    TypeError);
  ix.close();
});

test('close while a call holds the index frees it when the call is done', async () => {
  const d = path.join(tmp('busy'), 'data');
  const ix = await packsign.verifyIndex(w.index, { trust: w.policy });
  const p = packsign.indexStateRecord(d, ix);
  ix.close();
  assert.equal(await p, true);
  assert.throws(() => ix.resolve(AGENTPACK), /closed/);
});
