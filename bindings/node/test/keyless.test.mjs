// Keyless signing and keyless verify results (issues 28-30): sign() with
// keyless: true against the local Sigstore on 127.0.0.1
// (tests/sigstore/serve), the identity token a Buffer zeroed after use;
// the bundle verified by verifyBlob and by verify() under a policy with a
// keyless signer, each equal to the CLI's --json (signatures[i].keyless,
// source.certified, read); install() from a descriptor as `install - --sig`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';

import { cli, cliJson, copyPack, haveCryptography, keylessPolicy,
  localSigstore as serve, makeWorld, packsign, REPO, relative, tmp,
  toolEnv } from './lib/world.mjs';

const ISS = 'https://token.actions.githubusercontent.com';

test('sign keyless with a Buffer token (zeroed); verifyBlob and verify equal the CLI\'s --json', { skip: !haveCryptography() && 'no python3 cryptography' }, async (t) => {
  const srv = await serve(t);
  const d = tmp('keyless');
  const archive = path.join(d, 'p.tar.gz');
  const token = fs.readFileSync(srv.f('token'));
  const opts = { output: archive, keyless: true, identityToken: token,
    signingConfig: srv.f('signing_config.json'),
    trustedRoot: srv.f('trusted_root.json'), caFile: srv.f('ca.pem') };
  const r = await packsign.sign(copyPack(path.join(d, 'pack')), opts);
  assert.ok(token.every((b) => b === 0), 'the token Buffer is zeroed');
  const bundle = `${archive}.1.sigstore.json`;
  assert.deepEqual([r.archive, r.sig, r.minisig, r.bundles],
    [archive, null, null, [bundle]]);
  assert.equal(r.identity, srv.identity);
  assert.ok(!fs.existsSync(`${archive}.sig`));
  // the CLI's sign --keyless --json of the same pack, in another directory
  const d2 = tmp('keyless-cli');
  const [cs, cjs] = cliJson(['sign', copyPack(path.join(d2, 'pack')), '-o',
    path.join(d2, 'p.tar.gz'), '--keyless', '--identity-token',
    srv.f('token'), '--signing-config', srv.f('signing_config.json'),
    '--trusted-root', srv.f('trusted_root.json'), '--ca-file',
    srv.f('ca.pem')]);
  assert.equal(cs, 0);
  // Under the sanitizers node's own zlib compressed the tar (sign.test.mjs)
  const nd = packsign.DEEP_BIND ? {} : { archive_digest: null };
  assert.deepEqual({ ...relative(r, d, d2), ...nd }, { ...cjs, ...nd });

  const blobOpts = { bundle, identity: srv.identity, issuer: ISS,
    trustedRoot: srv.f('trusted_root.json') };
  const blob = await packsign.verifyBlob(archive, blobOpts);
  const [bs, bjs] = cliJson(['verify-blob', archive, '--bundle', bundle,
    '--certificate-identity', srv.identity, '--certificate-oidc-issuer', ISS,
    '--trusted-root', srv.f('trusted_root.json')]);
  assert.equal(bs, 0);
  assert.deepEqual(blob, bjs);

  const policy = keylessPolicy(path.join(d, 'trust.yaml'), srv);
  const v = await packsign.verify(archive, { trust: policy,
    bundles: [bundle] });
  const [vs, vjs] = cliJson(['verify', archive, '--trust', policy,
    '--bundle', bundle]);
  assert.equal(vs, 0);
  assert.deepEqual(v, vjs.results[0]);
  const k = v.signatures[0].keyless;
  assert.equal(v.signatures[0].fingerprint, k.signer_id);
  assert.match(k.signer_id, /^KEYLESS:/);
  assert.deepEqual([k.issuer, k.subject, k.repository_id, k.policy_line,
    k.trusted_root, k.reusable_workflow], [ISS, srv.identity, '601234567', 6,
    srv.f('trusted_root.json'), false]);
  assert.match(k.signing_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // no source recorded: the certificate's is the source, certified
  assert.equal(v.source.certified, true);
  assert.equal(v.source.certificate_checked, false);
  assert.equal(v.source.repository, k.repository);
  assert.deepEqual(v.read, { how: 'chunks', lease_declined: null });

  // predicateVersion 1: no chunk digests, the archive read another way
  const v1 = path.join(d, 'v1.tar.gz');
  const token1 = Buffer.from(fs.readFileSync(srv.f('token')));
  await packsign.sign(copyPack(path.join(d, 'pack1')), { ...opts,
    output: v1, identityToken: token1, predicateVersion: 1 });
  assert.ok(token1.every((b) => b === 0));
  const r1 = await packsign.verify(v1, { trust: policy,
    bundles: [`${v1}.1.sigstore.json`] });
  assert.deepEqual(r1, cliJson(['verify', v1, '--trust', policy, '--bundle',
    `${v1}.1.sigstore.json`])[1].results[0]);
  assert.notEqual(r1.read.how, 'chunks');
});

test('sign with bundle, tsaUrl and caFile: the bundle\'s timestamp counts, as in the CLI\'s verify --json', { skip: !haveCryptography() && 'no python3 cryptography' }, async (t) => {
  const srv = await serve(t);
  const d = tmp('tsa');
  cli(['keygen', '-o', path.join(d, 'alice'), '--identity', 'alice',
    '--no-passphrase']);
  const archive = path.join(d, 'p.tar.gz');
  const r = await packsign.sign(copyPack(path.join(d, 'pack')), {
    key: path.join(d, 'alice.key'), output: archive, bundle: true,
    tsaUrl: `${srv.url}/api/v1/timestamp`, caFile: srv.f('ca.pem') });
  const b = `${archive}.1.sigstore.json`;
  assert.deepEqual(r.bundles, [b]);
  const pub = path.join(d, 'alice.pub');
  const v = await packsign.verify(archive, { publicKey: pub, bundles: [b],
    trustedRoot: srv.f('trusted_root.json') });
  const [status, js] = cliJson(['verify', archive, '-p', pub, '--bundle', b,
    '--trusted-root', srv.f('trusted_root.json')]);
  assert.equal(status, 0);
  assert.deepEqual(v, js.results[0]);
  assert.equal(v.signatures[0].sigstore.timestamps, 1);
  // without caFile the loopback TSA's certificate is not trusted
  const e = await packsign.sign(archive, { key: path.join(d, 'alice.key'),
    bundle: true, force: true, tsaUrl: `${srv.url}/api/v1/timestamp` })
    .catch((x) => x);
  assert.equal(e.code, 'timestamp_failed', String(e));
});

test('keyless sign: the token is a Buffer, never a string; no key with it; a refusal zeroes it too', async () => {
  const d = tmp('keyless-args');
  const pack = copyPack(path.join(d, 'pack'));
  await assert.rejects(packsign.sign(pack, { keyless: true,
    identityToken: 'eyJhbGciOi.x.y' }), { name: 'TypeError',
    message: /identityToken must be a Buffer/ });
  await assert.rejects(packsign.sign(pack, { keyless: true }),
    { name: 'TypeError' });
  const nul = Buffer.from('eyJ\0.x.y');
  await assert.rejects(packsign.sign(pack, { keyless: true,
    identityToken: nul }), { name: 'TypeError', message: /NUL/ });
  assert.ok(nul.every((b) => b === 0));
  const tok = Buffer.from('eyJ.token.');
  await assert.rejects(packsign.sign(pack, { keyless: true,
    identityToken: tok, key: path.join(d, 'x.key') }), { name: 'TypeError' });
  assert.ok(tok.every((b) => b === 0));
  await assert.rejects(packsign.sign(pack, { key: path.join(d, 'x.key'),
    identityToken: Buffer.from('t') }), { name: 'TypeError' });
  await assert.rejects(packsign.sign(pack, { key: path.join(d, 'x.key'),
    predicateVersion: 3 }), { name: 'TypeError' });
  // not a JWT: the library refuses it before any request
  const bad = Buffer.from('not a token\n');
  const e = await packsign.sign(pack, { keyless: true, identityToken: bad,
    output: path.join(d, 'p.tar.gz'), signingConfig: '/nonexistent.json' })
    .catch((x) => x);
  assert.ok(e instanceof packsign.PacksignError, String(e));
  assert.ok(bad.every((b) => b === 0));
  assert.ok(!fs.existsSync(path.join(d, 'p.tar.gz')));
});

test('install from a descriptor (archiveFd) and a stream (archiveStream), as install - --sig F, equals the CLI\'s --json', async () => {
  const w = makeWorld();
  const d = tmp('install-fd');
  const [a, b] = [path.join(d, 'node'), path.join(d, 'cli')];
  const fd = fs.openSync(w.v1, 'r');
  let r;
  try {
    // the name only, as the CLI names standard input after --sig
    r = await packsign.install(path.basename(w.v1), { trust: w.policy,
      dataDir: a,
      archiveFd: fd, sigPath: `${w.v1}.sig` });
  } finally {
    fs.closeSync(fd);
  }
  const c = spawnSync(process.env.PACKSIGN || path.join(REPO, 'build',
    'packsign'), ['install', '-', '--sig', `${w.v1}.sig`, '--trust',
    w.policy, '--data-dir', b, '--yes', '--json'],
  { input: fs.readFileSync(w.v1), encoding: 'utf8', env: toolEnv() });
  assert.equal(c.status, 0, c.stderr);
  assert.deepEqual(relative(r, a, b), JSON.parse(c.stdout));
  assert.equal(r.action, 'installed');
  assert.equal(r.verify.read.how, 'chunks');
  // a Readable (archiveStream): the same install, in a third data dir
  const c3 = path.join(d, 'stream');
  const s = await packsign.install(path.basename(w.v1), { trust: w.policy,
    dataDir: c3, archiveStream: fs.createReadStream(w.v1),
    sigPath: `${w.v1}.sig` });
  assert.deepEqual(relative(s, c3, b), JSON.parse(c.stdout));
  // a tampered stream is refused, the pipe closed behind it (no hang)
  const bad = await packsign.install(path.basename(w.v1), { trust: w.policy,
    dataDir: path.join(d, 'bad'), sigPath: `${w.v1}.sig`,
    archiveStream: (async function* tampered() {
      const data = Buffer.from(fs.readFileSync(w.v1));
      data[data.length - 1] ^= 1;
      yield data;
    })() }).catch((x) => x);
  assert.equal(bad.code, 'subject_mismatch', String(bad));
  // a stream that fails half way: the archive is cut short, refused
  const cut = await packsign.install(path.basename(w.v1), { trust: w.policy,
    dataDir: path.join(d, 'cut'), sigPath: `${w.v1}.sig`,
    archiveStream: (async function* broken() {
      yield fs.readFileSync(w.v1).subarray(0, 100);
      throw new Error('source failed');
    })() }).catch((x) => x);
  assert.ok(cut instanceof packsign.PacksignError, String(cut));
  assert.ok(!fs.existsSync(path.join(d, 'cut', 'agentpacks')));
  await assert.rejects(packsign.install(w.v1, { trust: w.policy,
    dataDir: a, archiveStream: 'bytes', sigPath: `${w.v1}.sig` }),
  TypeError);
  await assert.rejects(packsign.install(w.v1, { trust: w.policy,
    dataDir: a, archiveFd: 0 }), /archiveFd needs sigPath/);
  await assert.rejects(packsign.install(w.v1, { trust: w.policy,
    dataDir: a, archiveFd: -1, sigPath: `${w.v1}.sig` }), TypeError);
});
