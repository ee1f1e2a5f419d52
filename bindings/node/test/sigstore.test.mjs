// verifyBlob: Sigstore bundles verified offline, equal to the CLI's
// verify-blob --json on every case of the conformance suite
// (tests/conformance/bundle-verify) and of the local Sigstore
// (tests/sigstore/mkcases), by path and by digest, a refusal rejecting
// with the PacksignError the CLI's report names; verify with bundles
// logged by the local Sigstore (trustedRoot, a signature's "sigstore").
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';

import { AGENTPACK, cli, cliJson, copyPack, EXAMPLES, packsign, REPO, tmp,
  toolEnv } from './lib/world.mjs';

const SUITE = path.join(REPO, 'tests', 'conformance', 'bundle-verify');
const LOCAL = path.join(REPO, 'tests', 'sigstore');
const ID = 'https://github.com/sigstore-conformance/extremely-dangerous-' +
  'public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml' +
  '@refs/heads/main';
const ISS = 'https://token.actions.githubusercontent.com';

function read(dir, name, fallback) {
  const f = path.join(dir, name);
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim() : fallback;
}

// A case's CLI arguments and verifyBlob options, as tests/conformance/
// run-cases gives them: key.pub or identity/issuer, trusted_root.json.
function caseOf(cases, dir) {
  const bundle = path.join(dir, 'bundle.sigstore.json');
  const artifact = fs.existsSync(path.join(dir, 'artifact')) ?
    path.join(dir, 'artifact') : path.join(cases, 'a.txt');
  const args = ['--bundle', bundle];
  const o = { bundle };
  if (fs.existsSync(path.join(dir, 'key.pub'))) {
    o.key = path.join(dir, 'key.pub');
    args.push('--key', o.key);
  } else {
    o.identity = read(dir, 'identity', ID);
    o.issuer = read(dir, 'issuer', ISS);
    args.push('--certificate-identity', o.identity,
      '--certificate-oidc-issuer', o.issuer);
  }
  if (fs.existsSync(path.join(dir, 'trusted_root.json'))) {
    o.trustedRoot = path.join(dir, 'trusted_root.json');
    args.push('--trusted-root', o.trustedRoot);
  }
  return { artifact, args, o };
}

// verifyBlob(target) against `packsign verify-blob target --json`: the
// same object when it verified; else a PacksignError with the report's
// code, exit, subject, expected and found and the report as its result
// (no report: the trusted root could not be loaded, the code on stderr).
async function agree(name, target, args, o) {
  const r = cli(['verify-blob', target, ...args, '--json'], { check: false });
  const got = await packsign.verifyBlob(target, o).then((v) => ({ v }),
    (e) => ({ e }));
  if (r.status === 0) {
    assert.ok(got.v, `${name}: the CLI verified it, verifyBlob rejected ` +
      `${got.e}`);
    assert.deepEqual(got.v, JSON.parse(r.stdout), name);
    assert.equal(got.v.ok, true);
    return 0;
  }
  assert.ok(got.e instanceof packsign.PacksignError, `${name}: exit ` +
    `${r.status}, verifyBlob gave ${JSON.stringify(got.v ?? got.e)}`);
  const e = got.e;
  assert.equal(e.exit, r.status, name);
  if (r.stdout === '') {
    assert.equal(e.result, undefined, name);
    assert.match(r.stderr, new RegExp(`\\[${e.code}\\]\\n$`), name);
    return r.status;
  }
  const js = JSON.parse(r.stdout);
  if (js.code === 'signing_time_future') {
    // expected is the present, read by each run (rekor2-timestamp-in-future)
    assert.match(e.expected, /^\d{4}-\d\d-\d\dT[\d:.]+Z$/, name);
    js.expected = e.result.expected = e.expected;
  }
  assert.deepEqual(e.result, js, name);
  assert.deepEqual([e.code, e.exit, e.subject, e.expected || null,
    e.found || null], [js.code, js.exit, js.subject, js.expected, js.found],
  name);
  return r.status;
}

async function allCases(cases) {
  const seen = { verified: 0, refused: 0, failed: 0 };
  for (const name of fs.readdirSync(cases).sort()) {
    const dir = path.join(cases, name);
    if (!fs.statSync(dir).isDirectory()) {
      continue;
    }
    const { artifact, args, o } = caseOf(cases, dir);
    const digest = 'sha256:' + createHash('sha256')
      .update(fs.readFileSync(artifact)).digest('hex');
    for (const target of [artifact, digest]) {
      const status = await agree(`${name} ${target}`, target, args, o);
      seen[['verified', 'refused', 'failed'][status]]++;
      if (target === artifact) {
        assert.equal(status === 0, !name.endsWith('_fail'),
          `${name}: verified iff its name does not end in _fail`);
      }
    }
  }
  return seen;
}

test('every conformance case: verifyBlob is verify-blob --json, by path and by digest', async () => {
  const seen = await allCases(SUITE);
  assert.ok(seen.verified >= 20 && seen.refused >= 40 && seen.failed >= 2,
    JSON.stringify(seen));
});

let localCases = null;

function mkcases() {
  if (localCases === null) {
    localCases = path.join(tmp('mkcases'), 'cases');
    const r = spawnSync('python3', [path.join(LOCAL, 'mkcases'), localCases],
      { encoding: 'utf8', env: toolEnv() });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  }
  return localCases;
}

test('every local Sigstore case (mkcases): verifyBlob is verify-blob --json', async () => {
  const seen = await allCases(mkcases());
  assert.ok(seen.verified >= 10 && seen.refused >= 20, JSON.stringify(seen));
});

test('a sha256 option is the CLI\'s sha256:HEX; a refusal names what it compared', async () => {
  const { artifact, o } = caseOf(SUITE, path.join(SUITE, 'happy-path-v0.3'));
  const hex = createHash('sha256').update(fs.readFileSync(artifact))
    .digest('hex');
  const byFile = await packsign.verifyBlob(artifact, o);
  const byHex = await packsign.verifyBlob(null, { ...o, sha256: hex });
  assert.deepEqual(byHex, { ...byFile, artifact: `sha256:${hex}` });
  assert.equal(byFile.certificate.san, ID);
  assert.equal(byFile.log_entries[0].log_index, 79571823);
  const e = await packsign.verifyBlob(new URL(`file://${artifact}`),
    { ...o, identity: `${ID}x` }).catch((x) => x);
  assert.ok(e instanceof packsign.PacksignError);
  assert.equal(e.code, 'identity_mismatch');
  assert.equal(e.exit, 1);
  assert.equal(e.expected, `${ID}x`);
  assert.equal(e.found, ID);
  assert.equal(e.result.steps.certificate, true);
  assert.equal(e.result.steps.identity, false);
  const late = await packsign.verifyBlob(artifact, { ...o,
    at: new Date('2024-01-01T00:00:00Z') }).catch((x) => x);
  assert.equal(late.code, 'signing_time_future');
  const [, cliLate] = cliJson(['verify-blob', artifact, '--bundle', o.bundle,
    '--certificate-identity', ID, '--certificate-oidc-issuer', ISS, '--at',
    '2024-01-01T00:00:00Z']);
  assert.deepEqual(late.result, cliLate);
});

test('verifyBlob\'s arguments are checked before anything is read', async () => {
  const o = { bundle: '/nonexistent.json', identity: ID, issuer: ISS };
  for (const [artifact, opts] of [
    [null, o],
    ['a.txt', { ...o, sha256: 'ab'.repeat(32) }],
    [null, { ...o, sha256: 'xyz' }],
    ['a.txt', { bundle: o.bundle, identity: ID }],
    ['a.txt', { ...o, key: 'k.pem' }],
    ['a.txt', { identity: ID, issuer: ISS }],
    ['a.txt', { ...o, certificateIdentity: ID }],
  ]) {
    await assert.rejects(packsign.verifyBlob(artifact, opts),
      { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  }
  const missing = await packsign.verifyBlob(path.join(SUITE, 'a.txt'), o)
    .catch((x) => x);
  assert.equal(missing.code, 'not_found');
  assert.equal(missing.exit, 2);
  assert.equal(missing.result.bundle, '/nonexistent.json');
  const noRoot = await packsign.verifyBlob(path.join(SUITE, 'a.txt'),
    { ...o, trustedRoot: '/nonexistent-root.json' }).catch((x) => x);
  assert.ok(noRoot instanceof packsign.PacksignError);
  assert.deepEqual([noRoot.code, noRoot.exit, noRoot.subject, noRoot.result],
    ['not_found', 2, '/nonexistent-root.json', undefined]);
});

test('100 concurrent verifyBlobs agree', async () => {
  const { artifact, o } = caseOf(SUITE, path.join(SUITE, 'happy-path-v0.3'));
  const all = await Promise.all(Array.from({ length: 100 }, (_, i) =>
    packsign.verifyBlob(artifact, i % 2 === 0 ? o : { ...o, issuer: 'x' })
      .catch((e) => e)));
  for (const [i, r] of all.entries()) {
    assert.equal(r instanceof packsign.PacksignError, i % 2 === 1);
  }
  assert.deepEqual(all[0], all[98]);
  assert.deepEqual(all[1].result, all[99].result);
});

// bundle.bats's log_bundle: the archive's bundle logged by the local
// Sigstore to Rekor V and timestamped, its trusted root written to ROOT.
const LOG_BUNDLE = String.raw`
import json, sys
v, path, pem, root, lib = sys.argv[1:]
sys.path.insert(0, lib)
from cryptography.hazmat.primitives import serialization
from localsigstore import bundle, instance, util
b = json.load(open(path))
env = b["dsseEnvelope"]
pub = open(pem, "rb").read()

class Key:
    key_details = "PKIX_ED25519"
    def public_pem(self):
        return pub
    def spki_der(self):
        return serialization.load_pem_public_key(pub).public_bytes(
            serialization.Encoding.DER,
            serialization.PublicFormat.SubjectPublicKeyInfo)

s = instance.LocalSigstore(b"packsign node sigstore.test")
sig = util.unb64(env["signatures"][0]["sig"])
signed = instance.Signed(Key(), None, None, sig, None, "sha256", envelope=env)
when = util.utc(2026, 6, 1, 12, 1, 0)
entry = s.rekor1.entry(s.log_v1(signed, when)) if v == "1" else \
    s.rekor2.entry(s.log_v2(signed, kind="dsse"))
b["verificationMaterial"]["tlogEntries"] = [entry]
b["verificationMaterial"]["timestampVerificationData"] = bundle.timestamps(
    [s.timestamp(signed, when)])
json.dump(b, open(path, "w"))
json.dump(s.trusted_root().to_json(), open(root, "w"))
`;

test('verify with a bundle logged to Rekor v1 and v2: trustedRoot, the signature\'s sigstore evidence', async () => {
  const d = tmp('logged');
  cli(['keygen', '-o', path.join(d, 'alice'), '--identity', 'alice',
    '--no-passphrase']);
  const pub = path.join(d, 'alice.pub');
  const pem = path.join(d, 'alice.pem');
  cli(['key', 'export', '--pem-pub', '-p', pub, '-o', pem]);
  const archive = path.join(d, 'p.tar.gz');
  // A copy: the work tree's own origin is no remote URL in CI (tests/run).
  cli(['sign', copyPack(path.join(d, 'pack')), '-s',
    path.join(d, 'alice.key'), '-o', archive, '--bundle']);
  const b = `${archive}.1.sigstore.json`;
  const root = path.join(d, 'root.json');
  const plain = fs.readFileSync(b);
  for (const [v, times] of [['1', 2], ['2', 1]]) {
    fs.writeFileSync(b, plain);
    const r = spawnSync('python3', ['-', v, b, pem, root, LOCAL],
      { input: LOG_BUNDLE, encoding: 'utf8', env: toolEnv() });
    assert.equal(r.status, 0, r.stderr);
    const got = await packsign.verify(archive, { publicKey: pub,
      bundles: [b], trustedRoot: root });
    const [status, js] = cliJson(['verify', archive, '-p', pub, '--bundle', b,
      '--trusted-root', root]);
    assert.equal(status, 0);
    assert.deepEqual(got, js.results[0]);
    assert.deepEqual(got.signatures[0].sigstore, { log_entries: 1,
      timestamps: 1, signing_times: Array(times).fill('2026-06-01T12:01:00Z') });
    const publicGood = await packsign.verify(archive, { publicKey: pub,
      bundles: [b] });
    assert.equal(publicGood.code, 'tlog_unknown_log');
    assert.deepEqual(publicGood, cliJson(['verify', archive, '-p', pub,
      '--bundle', b])[1].results[0]);
  }
  await assert.rejects(packsign.verify(archive, { publicKey: pub,
    bundles: [b], trustedRoot: '/nonexistent-root.json' }),
  { name: 'PacksignError', code: 'not_found', exit: 2 });
  await assert.rejects(packsign.verify(archive, { publicKey: pub,
    trustedRoot: root }), { name: 'TypeError' });
});
