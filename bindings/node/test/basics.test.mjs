// Loading the addon (its ABI check), digest, validate, describe, errors.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { pathToFileURL } from 'node:url';

import { AGENTPACK, EXAMPLES, PACKAGE, REPO, cli, cliJson, copyPack, packsign,
  tmp, toolEnv } from './lib/world.mjs';

const pack = path.join(EXAMPLES, AGENTPACK);

test('the loaded library is the ABI the addon was built for', () => {
  const v = packsign.libraryVersion();
  assert.equal(v.library, '0.1.0');
  assert.equal(v.abi, v.headerAbi);
  assert.equal(packsign.ABI_VERSION, 1);
  assert.equal(v.napi, 8);
});

test('a library of another ABI is refused, naming both versions', () => {
  // A stand-in libpacksign.so.1 whose ps_abi_version() says 99; every
  // other public function exists (the addon binds them at load) and is
  // never called.  LD_LIBRARY_PATH comes before the addon's RUNPATH.
  const d = tmp('abi');
  const names = execFileSync(path.join(REPO, 'scripts', 'public-symbols'),
    [path.join(REPO, 'include', 'packsign.h')], { encoding: 'utf8',
      env: toolEnv() })
    .split('\n').filter((n) => n !== '' && n !== 'ps_abi_version' &&
      n !== 'ps_version');
  fs.writeFileSync(path.join(d, 'fake.c'), [
    'int ps_abi_version(void) { return 99; }',
    'const char *ps_version(void) { return "9.9.9"; }',
    ...names.map((n) => `void ${n}(void) {}`), ''].join('\n'));
  execFileSync('cc', ['-shared', '-fPIC', '-o', path.join(d, 'libpacksign.so.1'),
    '-Wl,-soname,libpacksign.so.1', path.join(d, 'fake.c')],
  { env: toolEnv() });
  const r = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(PACKAGE)})`],
    { encoding: 'utf8', env: { ...process.env, LD_LIBRARY_PATH: d } });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /the loaded libpacksign 9\.9\.9 has ABI 99, this addon was built for ABI 1 \(packsign\.h 0\.1\.0\)/);
});

test('ESM named imports see every export', async () => {
  const m = await import(pathToFileURL(path.join(PACKAGE, 'index.js')).href);
  for (const k of Object.keys(packsign)) {
    assert.equal(m[k], packsign[k], k);
  }
  assert.equal(typeof m.installIndexed, 'function');
});

test('digest is the CLI\'s digest --json', async () => {
  const d = await packsign.digest(pack, { files: true });
  const [status, js] = cliJson(['digest', pack, '--files']);
  assert.equal(status, 0);
  assert.deepEqual(d, js);
  assert.equal(d.source, 'directory');
  assert.match(d.tree_digest, /^sha256:[0-9a-f]{64}$/);
  const plain = await packsign.digest(new URL(`file://${pack}`));
  assert.equal(plain.files, undefined);
  assert.equal(plain.tree_digest, d.tree_digest);
});

test('validate is the CLI\'s validate --json, valid and invalid', async () => {
  const v = await packsign.validate(pack);
  assert.deepEqual(v, cliJson(['validate', pack])[1]);
  assert.equal(v.valid, true);
  const bad = copyPack(path.join(tmp('bad'), 'p'));
  const m = path.join(bad, 'manifest.yml');
  fs.writeFileSync(m, fs.readFileSync(m, 'utf8').replace('version: 0.1.0',
    'version: one'));
  const w = await packsign.validate(bad);
  const [status, js] = cliJson(['validate', bad]);
  assert.equal(status, 1);
  assert.deepEqual(w, js);
  assert.equal(w.valid, false);
  assert.equal(w.diagnostics[0].severity, 'error');
});

test('describe in English and Chinese, as the CLI says it', async () => {
  const en = await packsign.describe(pack);
  assert.match(en, /does not access the network/);
  const zh = await packsign.describe(pack, { lang: 'zh' });
  assert.match(zh, /不访问网络/);
  assert.equal(cli(['describe', pack, '--lang', 'zh']).stdout.trim(),
    zh.trim());
  await assert.rejects(packsign.describe(pack, { lang: 'fr' }), TypeError);
});

test('a failure rejects with PacksignError: code, exit, subject, expected, found', async () => {
  const e = await packsign.validate('/nonexistent/pack').catch((x) => x);
  assert.ok(e instanceof packsign.PacksignError);
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'PacksignError');
  assert.equal(e.code, 'not_found');
  assert.equal(e.exit, 2);
  assert.equal(e.subject, '/nonexistent/pack');
  assert.equal(typeof e.detail, 'string');
  assert.equal(e.expected, '');
  assert.equal(e.found, '');
  assert.match(e.message, /^\/nonexistent\/pack: .*\[not_found\]$/);
});

test('arguments are checked before anything runs', async () => {
  await assert.rejects(packsign.digest(42), { code: 'ERR_INVALID_ARG_TYPE' });
  await assert.rejects(packsign.verify(pack, { trust: 'x', colour: true }),
    /unknown option "colour"/);
  await assert.rejects(packsign.verify(pack, {}), /trust or publicKey/);
  await assert.rejects(packsign.verify(pack, { trust: 'a', publicKey: 'b' }),
    /one at a time/);
  await assert.rejects(packsign.validate(pack, { format: 'docker' }),
    /format must be one of/);
  await assert.rejects(packsign.validate(pack, { format: 'agentpack\u0000x' }),
    /format must be one of/);
  await assert.rejects(packsign.digest(pack, { mtime: 1.5 }), /mtime must be/);
  await assert.rejects(packsign.digest('a\u0000b'), /without NUL/);
});

test('dataDirDefault follows PACKSIGN_DATA_DIR', () => {
  const saved = process.env.PACKSIGN_DATA_DIR;
  try {
    process.env.PACKSIGN_DATA_DIR = '/srv/packs';
    assert.equal(packsign.dataDirDefault(), '/srv/packs');
  } finally {
    if (saved === undefined) {
      delete process.env.PACKSIGN_DATA_DIR;
    } else {
      process.env.PACKSIGN_DATA_DIR = saved;
    }
  }
});
