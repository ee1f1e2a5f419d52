// installUrl, fetch, readIndex of a URL, installIndexed and an aborted
// download, against the loopback HTTPS server of the CLI tests
// (tests/cli/net_server.py) with a throwaway CA: nothing leaves 127.0.0.1.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { AGENTPACK, REPO, cli, makeWorld, packsign, tmp,
  toolEnv } from './lib/world.mjs';

const w = makeWorld();
const net = {};

function openssl(args, cwd) {
  execFileSync('openssl', args, { cwd, stdio: 'ignore', env: toolEnv() });
}

before(async () => {
  const d = tmp('net');
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt',
    'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=ca', '-days', '2',
    '-keyout', 'ca.key', '-out', 'ca.pem'], d);
  openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt',
    'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=srv', '-keyout',
    'srv.key', '-out', 'srv.csr'], d);
  fs.writeFileSync(path.join(d, 'srv.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(['x509', '-req', '-in', 'srv.csr', '-CA', 'ca.pem', '-CAkey',
    'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'srv.ext', '-out',
    'srv.pem'], d);
  const www = path.join(d, 'www');
  fs.mkdirSync(www);
  for (const f of [w.v1, w.v2]) {
    fs.copyFileSync(f, path.join(www, path.basename(f)));
    fs.copyFileSync(`${f}.sig`, path.join(www, `${path.basename(f)}.sig`));
  }
  const port = path.join(d, 'port');
  net.server = spawn('python3', [path.join(REPO, 'tests/cli/net_server.py'),
    www, path.join(d, 'srv.pem'), path.join(d, 'srv.key'), port],
  { stdio: 'ignore', env: toolEnv() });
  for (let i = 0; i < 200 && !fs.existsSync(port); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  net.origin = `https://127.0.0.1:${fs.readFileSync(port, 'utf8').trim()}`;
  net.base = `${net.origin}/files/`;
  net.fetch = { caFile: path.join(d, 'ca.pem'), timeout: 30 };
  net.index = path.join(d, 'index.json');
  cli(['index', 'build', w.v1, w.v2, '-o', net.index, '-s', w.aliceKey,
    '--trust', w.policy, '--base-url', net.base]);
  fs.copyFileSync(net.index, path.join(www, 'index.json'));
});

after(() => {
  net.server?.kill();
});

function dataDir() {
  return path.join(tmp('netdata'), 'data');
}

test('installUrl downloads, verifies and installs', async () => {
  const d = dataDir();
  const r = await packsign.installUrl(`${net.base}${path.basename(w.v1)}`,
    { trust: w.policy, dataDir: d, fetch: net.fetch });
  assert.equal(r.action, 'installed');
  assert.equal(r.version, '0.1.0');
  assert.deepEqual((await packsign.list(d)).map((p) => p.version), ['0.1.0']);
});

test('without the CA it is a TLS failure; http is refused', async () => {
  const d = dataDir();
  await assert.rejects(packsign.installUrl(`${net.base}${path.basename(w.v1)}`,
    { trust: w.policy, dataDir: d }), { code: 'fetch_tls', exit: 2 });
  await assert.rejects(packsign.installUrl('http://127.0.0.1:1/a.tar.gz',
    { trust: w.policy, dataDir: d }), { code: 'url_scheme_refused' });
});

test('fetch downloads and verifies without installing', async () => {
  const out = path.join(tmp('fetch'), 'a.tar.gz');
  const r = await packsign.fetch(`${net.base}${path.basename(w.v1)}`, out,
    { trust: w.policy, fetch: net.fetch });
  assert.equal(r.ok, true);
  assert.equal(r.id, AGENTPACK);
  assert.deepEqual(fs.readFileSync(out), fs.readFileSync(w.v1));
  assert.ok(fs.existsSync(`${out}.sig`));
  const bad = await packsign.fetch(`${net.origin}/status500/x.tar.gz`, out,
    { trust: w.policy, fetch: net.fetch });
  assert.equal(bad.ok, false);
  assert.equal(bad.code, 'fetch_http_status');
});

test('an aborted download rejects with fetch_cancelled and leaves nothing', async () => {
  const dir = tmp('abort');
  const out = path.join(dir, 'a.tar.gz');
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('stop')), 300);
  const e = await packsign.fetch(`${net.origin}/stall/${path.basename(w.v1)}`,
    out, { trust: w.policy, fetch: net.fetch, signal: ac.signal })
    .catch((x) => x);
  assert.ok(e instanceof packsign.PacksignError);
  assert.equal(e.code, 'fetch_cancelled');
  assert.equal(e.exit, 2);
  assert.equal(e.cause.message, 'stop');
  assert.deepEqual(fs.readdirSync(dir), []);
  const d = dataDir();
  const ac2 = new AbortController();
  setTimeout(() => ac2.abort(), 300);
  await assert.rejects(packsign.installUrl(
    `${net.origin}/stall/${path.basename(w.v1)}`, { trust: w.policy,
      dataDir: d, fetch: net.fetch, signal: ac2.signal }),
  { code: 'fetch_cancelled' });
  assert.deepEqual(await packsign.list(d), []);
});

test('installIndexed from an index read over https, then an upgrade by consent', async () => {
  const d = dataDir();
  const ix = await packsign.verifyIndex(`${net.base}index.json`,
    { trust: w.policy, fetch: net.fetch });
  const r = await packsign.installIndexed(ix, ix.resolve(AGENTPACK, '0.1.0'),
    { trust: w.policy, dataDir: d, fetch: net.fetch });
  assert.equal(r.version, '0.1.0');
  const seen = await packsign.indexStateLoad(d, 'alice');
  assert.equal(seen.index_sha256, ix.index_sha256);
  await assert.rejects(packsign.installIndexed(ix, ix.resolve(AGENTPACK),
    { trust: w.policy, dataDir: d, fetch: net.fetch }),
  { code: 'consent_required' });
  const up = await packsign.installIndexed(ix, ix.resolve(AGENTPACK),
    { trust: w.policy, dataDir: d, fetch: net.fetch,
      consent: async (plan) => plan.consent_needed.includes('permissions') });
  assert.equal(up.version, '0.2.0');
  assert.equal(up.upgrade.consent_by, 'callback');
  await assert.rejects(packsign.installIndexed(ix, { id: 'x', version: '1.0.0' },
    { trust: w.policy, dataDir: d }), /not one of this index/);
  ix.close();
});
