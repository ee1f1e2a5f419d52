// sign: a key file's path or its bytes in a Buffer (zeroed), never a
// string; an encrypted key with a passphrase Buffer; the CLI's --json.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';

import { AGENTPACK, cli, cliJson, copyPack, makeWorld, packsign,
  tmp } from './lib/world.mjs';

const w = makeWorld();

function pack() {
  return copyPack(path.join(tmp('sign'), 'p'));
}

test('sign with a key path is the CLI\'s sign --json, and verifies', async () => {
  const p = pack();
  const out = path.join(path.dirname(p), 'node.tar.gz');
  const r = await packsign.sign(p, { key: w.aliceKey, output: out });
  const cliOut = path.join(path.dirname(p), 'cli.tar.gz');
  const [status, js] = cliJson(['sign', p, '-s', w.aliceKey, '-o', cliOut]);
  assert.equal(status, 0);
  const same = JSON.parse(JSON.stringify(r).split(out).join(cliOut));
  assert.equal(r.id, AGENTPACK);
  assert.equal(r.identity, 'alice');
  assert.equal(r.signatures, 1);
  assert.equal((await packsign.digest(out)).tar_digest,
    (await packsign.digest(cliOut)).tar_digest);
  if (packsign.DEEP_BIND) {
    // libarchive compressed with its own zlib, as the CLI's did.
    assert.deepEqual(same, js);
    assert.deepEqual(fs.readFileSync(out), fs.readFileSync(cliOut));
  } else {
    // Under the sanitizers the addon is not opened RTLD_DEEPBIND: node's
    // own zlib compressed the same tar (index.js, load()).
    assert.deepEqual({ ...same, archive_digest: null },
      { ...js, archive_digest: null });
  }
  const v = await packsign.verify(out, { trust: w.policy });
  assert.equal(v.ok, true);
});

test('a key in a Buffer is zeroed before sign() returns', async () => {
  const p = pack();
  const key = fs.readFileSync(w.aliceKey);
  const promise = packsign.sign(p, { key,
    output: path.join(path.dirname(p), 'b.tar.gz'), publicKey: w.alicePub });
  assert.ok(key.every((b) => b === 0), 'zeroed at once');
  const r = await promise;
  assert.equal(r.identity, 'alice');
  const u8 = new Uint8Array(fs.readFileSync(w.aliceKey));
  await packsign.sign(p, { key: u8, output: path.join(path.dirname(p),
    'c.tar.gz') });
  assert.ok(u8.every((b) => b === 0));
});

test('key text or a passphrase in a string is refused without echoing it', async () => {
  const p = pack();
  const text = fs.readFileSync(w.aliceKey, 'utf8');
  const e = await packsign.sign(p, { key: text }).catch((x) => x);
  assert.ok(e instanceof TypeError);
  assert.ok(!e.message.includes(text.split('\n')[1]));
  await assert.rejects(packsign.sign(p, { key: w.aliceKey,
    passphrase: 'secret' }), /passphrase must be a Buffer/);
  const buf = Buffer.from(text);
  await assert.rejects(packsign.sign(p, { key: buf, compression: 'rar' }),
    /compression/);
  assert.ok(buf.every((b) => b === 0), 'zeroed on a refusal too');
});

test('an encrypted key takes a passphrase Buffer', async () => {
  const d = tmp('enc');
  fs.writeFileSync(path.join(d, 'pass'), 'correct horse\n');
  cli(['keygen', '-o', path.join(d, 'enc'), '--identity', 'alice',
    '--kdf', 'interactive', '--passphrase-file', path.join(d, 'pass')]);
  const p = pack();
  const key = path.join(d, 'enc.key');
  await assert.rejects(packsign.sign(p, { key }), { code: 'passphrase_required',
    exit: 2 });
  await assert.rejects(packsign.sign(p, { key,
    passphrase: Buffer.from('wrong\n') }), { code: 'wrong_passphrase' });
  const pass = Buffer.from('correct horse\n');
  const r = await packsign.sign(p, { key, passphrase: pass,
    output: path.join(d, 'e.tar.gz') });
  assert.ok(pass.every((b) => b === 0));
  assert.equal(r.signatures, 1);
});

test('an invalid manifest is refused with its diagnostics', async () => {
  const p = pack();
  const m = path.join(p, 'manifest.yml');
  fs.writeFileSync(m, fs.readFileSync(m, 'utf8').replace('version: 0.1.0',
    'version: one'));
  const e = await packsign.sign(p, { key: w.aliceKey,
    output: path.join(path.dirname(p), 'x.tar.gz') }).catch((x) => x);
  assert.equal(e.code, 'manifest_invalid');
  assert.equal(e.exit, 1);
  assert.equal(e.result.diagnostics[0].code, 'version_invalid');
});
