// install: the CLI's --json, refusals, consent by classes, by the exact
// diff and by callbacks (one that awaits, one that rejects), confirm,
// waiting, AbortSignal, and threads that callbacks cannot starve.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import test from 'node:test';

import { AGENTPACK, cliJson, holdLock, makeWorld, packsign, relative,
  tmp } from './lib/world.mjs';

const w = makeWorld();
const base = { trust: w.policy };

function dataDirs() {
  const d = tmp('install');
  return [path.join(d, 'node'), path.join(d, 'cli')];
}

test('install is the CLI\'s install --json, then a no-op', async () => {
  const [a, b] = dataDirs();
  const r = await packsign.install(w.v1, { ...base, dataDir: a });
  const [status, js] = cliJson(['install', w.v1, '--trust', w.policy,
    '--data-dir', b, '--yes']);
  assert.equal(status, 0);
  assert.deepEqual(relative(r, a, b), js);
  assert.equal(r.action, 'installed');
  assert.ok(fs.existsSync(path.join(a, 'agentpacks', AGENTPACK, '0.1.0',
    'manifest.yml')));
  const again = await packsign.install(w.v1, { ...base, dataDir: a });
  assert.equal(again.action, 'already_installed');
});

test('a refused install rejects; its result is the CLI\'s --json', async () => {
  const [a, b] = dataDirs();
  const e = await packsign.install(w.tampered, { ...base, dataDir: a })
    .catch((x) => x);
  const [status, js] = cliJson(['install', w.tampered, '--trust', w.policy,
    '--data-dir', b, '--yes']);
  assert.equal(status, 1);
  assert.ok(e instanceof packsign.PacksignError);
  assert.equal(e.code, 'subject_mismatch');
  assert.equal(e.exit, 1);
  assert.equal(e.expected, js.expected);
  assert.equal(e.found, js.found);
  assert.deepEqual(relative(e.result, a, b), js);
});

test('an upgrade needs consent; accept names classes', async () => {
  const [d] = dataDirs();
  await packsign.install(w.v1, { ...base, dataDir: d });
  const e = await packsign.install(w.v2, { ...base, dataDir: d })
    .catch((x) => x);
  assert.equal(e.code, 'consent_required');
  assert.equal(e.exit, 2);
  assert.deepEqual(e.result.upgrade.consent_needed, ['permissions']);
  await assert.rejects(packsign.install(w.v2, { ...base, dataDir: d,
    accept: ['code'] }), { code: 'consent_required' });
  const r = await packsign.install(w.v2, { ...base, dataDir: d,
    accept: ['permissions'] });
  assert.equal(r.version, '0.2.0');
  assert.equal(r.upgrade.consent_by, 'accept');
  await assert.rejects(packsign.install(w.v2, { ...base, dataDir: d,
    accept: ['everything'] }), TypeError);
});

test('acceptDiff takes the diff() object or its exact text', async () => {
  const [d] = dataDirs();
  await packsign.install(w.v1, { ...base, dataDir: d });
  const diff = await packsign.diff({ installed: AGENTPACK }, w.v2,
    { ...base, dataDir: d });
  const [, js] = cliJson(['diff', '--installed', AGENTPACK, w.v2, '--trust',
    w.policy, '--data-dir', d]);
  assert.deepEqual(diff, js);
  assert.equal(packsign.diffText(diff), JSON.stringify(js));
  await assert.rejects(packsign.install(w.v2, { ...base, dataDir: d,
    acceptDiff: { ...diff } }), /diffText\(\) takes a diff/);
  const r = await packsign.install(w.v2, { ...base, dataDir: d,
    acceptDiff: `${packsign.diffText(diff)}\n` });
  assert.equal(r.upgrade.consent_by, 'accept-diff');
});

test('diff of two archives is the CLI\'s diff --json', async () => {
  const d = await packsign.diff(w.v1, w.v2, base);
  const [status, js] = cliJson(['diff', w.v1, w.v2, '--trust', w.policy]);
  assert.equal(status, 1);
  assert.deepEqual(d, js);
  assert.ok(d.changes.some((c) => c.field === 'permissions.network'));
  await assert.rejects(packsign.diff(w.v1, w.v2), { code: 'invalid_argument' });
});

test('a consent callback that awaits gets the plan and its diff', async () => {
  const [d] = dataDirs();
  await packsign.install(w.v1, { ...base, dataDir: d });
  const seen = [];
  const r = await packsign.install(w.v2, { ...base, dataDir: d,
    consentBy: 'node-test',
    consent: async (plan) => {
      seen.push(plan);
      await new Promise((res) => setTimeout(res, 50));
      return true;
    } });
  assert.equal(r.version, '0.2.0');
  assert.equal(r.upgrade.consent_by, 'node-test');
  const plan = seen[0];
  assert.equal(plan.replaces_newest, '0.1.0');
  assert.equal(plan.version, '0.2.0');
  assert.deepEqual(plan.consent_needed, ['permissions']);
  assert.ok(plan.diff.changes.some((c) => c.field === 'permissions.network'));
  assert.equal(typeof packsign.diffText(plan.diff), 'string');
});

test('a consent callback that rejects declines, and its error is re-raised', async () => {
  const [d] = dataDirs();
  await packsign.install(w.v1, { ...base, dataDir: d });
  class Boom extends Error {}
  await assert.rejects(packsign.install(w.v2, { ...base, dataDir: d,
    consent: async () => { throw new Boom('no'); } }), Boom);
  await assert.rejects(packsign.install(w.v2, { ...base, dataDir: d,
    consent: () => { throw new Boom('sync'); } }), Boom);
  const e = await packsign.install(w.v2, { ...base, dataDir: d,
    consent: () => 'yes' }).catch((x) => x);
  assert.ok(e instanceof packsign.PacksignError, 'only true consents');
  const list = await packsign.list(d);
  assert.deepEqual(list.map((p) => p.version), ['0.1.0']);
});

test('confirm: false declines, a throw declines and is re-raised', async () => {
  const [d] = dataDirs();
  await assert.rejects(packsign.install(w.v1, { ...base, dataDir: d,
    confirm: () => false }), { code: 'install_declined', exit: 1 });
  await assert.rejects(packsign.install(w.v1, { ...base, dataDir: d,
    confirm: (plan) => { throw new RangeError(plan.id); } }),
  { name: 'RangeError', message: AGENTPACK });
  assert.deepEqual(await packsign.list(d), []);
  const plans = [];
  const r = await packsign.install(w.v1, { ...base, dataDir: d,
    confirm: (p) => plans.push(p) > 0 });
  assert.equal(plans[0].destination, r.path);
  assert.match(plans[0].summary.join('\n'), /network/);
});

test('a dry run keeps nothing', async () => {
  const [d] = dataDirs();
  const r = await packsign.install(w.v1, { ...base, dataDir: d, dryRun: true });
  assert.equal(r.action, 'dry_run');
  assert.deepEqual(await packsign.list(d), []);
});

test('waiting is called while another run holds the lock', async () => {
  const [d] = dataDirs();
  const lock = holdLock(d);
  await lock.ready();
  let waited = null;
  const p = packsign.install(w.v1, { ...base, dataDir: d,
    waiting: (lockPath) => {
      waited = lockPath;
      lock.release();
    } });
  const r = await p;
  assert.equal(waited, path.join(d, '.lock'));
  assert.equal(r.action, 'installed');
});

test('four pending consents do not starve fs.promises', async () => {
  const dirs = [0, 1, 2, 3].map(() => dataDirs()[0]);
  await Promise.all(dirs.map((d) => packsign.install(w.v1,
    { ...base, dataDir: d })));
  let release;
  const gate = new Promise((r) => { release = r; });
  let asked = 0;
  const installs = dirs.map((d) => packsign.install(w.v2, { ...base,
    dataDir: d,
    consent: async () => { asked++; await gate; return true; } }));
  while (asked < 4) {
    await new Promise((r) => setTimeout(r, 10));
  }
  // All four wait in JavaScript; libuv's four threads are free (were the
  // installs on the pool, these reads would never run: the race fails).
  const reads = await Promise.race([Promise.all(Array.from({ length: 8 }, () =>
    fsp.readFile(w.policy, 'utf8'))), new Promise((_, no) => setTimeout(() =>
    no(new Error('fs.promises starved')), 20000).unref())]);
  assert.ok(reads.every((t) => t.includes('alice')));
  const v = await packsign.verify(w.v1, base);
  assert.equal(v.ok, true);
  release();
  const done = await Promise.all(installs);
  assert.deepEqual(done.map((r) => r.version), ['0.2.0', '0.2.0', '0.2.0',
    '0.2.0']);
});

test('an AbortSignal declines a pending consent and rejects', async () => {
  const [d] = dataDirs();
  await packsign.install(w.v1, { ...base, dataDir: d });
  const ac = new AbortController();
  const e = await packsign.install(w.v2, { ...base, dataDir: d,
    signal: ac.signal,
    consent: () => {
      setTimeout(() => ac.abort(new Error('user closed the window')), 20);
      return new Promise(() => {});
    } }).catch((x) => x);
  assert.ok(e instanceof packsign.PacksignError);
  assert.equal(e.code, 'consent_required');
  assert.equal(e.cause.message, 'user closed the window');
  assert.deepEqual((await packsign.list(d)).map((p) => p.version), ['0.1.0']);
});

test('an AbortSignal stops a local install before its tree is in place', async () => {
  const [d] = dataDirs();
  const ac = new AbortController();
  await assert.rejects(packsign.install(w.v1, { ...base, dataDir: d,
    signal: AbortSignal.abort() }), { name: 'AbortError' });
  const e = await packsign.install(w.v1, { ...base, dataDir: d,
    signal: ac.signal,
    confirm: () => { ac.abort(); return true; } }).catch((x) => x);
  assert.equal(e.code, 'install_declined');
  assert.deepEqual(await packsign.list(d), []);
});

test('list and uninstall are the CLI\'s --json', async () => {
  const [d] = dataDirs();
  await packsign.install(w.v1, { ...base, dataDir: d });
  await packsign.install(w.v2, { ...base, dataDir: d, accept: 'permissions' });
  const items = await packsign.list(d);
  const [status, js] = cliJson(['list', '--data-dir', d]);
  assert.equal(status, 0);
  assert.deepEqual(items, js.packs);
  assert.deepEqual(items.map((i) => [i.version, i.newest]),
    [['0.1.0', false], ['0.2.0', true]]);
  assert.equal(items[1].pins.signers[0].identity, 'alice');
  const removed = await packsign.uninstall(AGENTPACK, { version: '0.1.0',
    dataDir: d });
  assert.deepEqual(removed.removed.map((r) => r.version), ['0.1.0']);
  assert.equal(removed.ok, true);
  const gone = await packsign.uninstall(AGENTPACK, { dataDir: d,
    forget: true });
  assert.equal(gone.pins_forgotten, true);
  assert.deepEqual(await packsign.list(d), []);
  await assert.rejects(packsign.uninstall(AGENTPACK, { dataDir: d }),
    { code: 'not_installed', exit: 1 });
});
