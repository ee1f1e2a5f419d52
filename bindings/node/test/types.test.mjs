// index.d.ts: tsc --noEmit --strict on an example that makes every call,
// and every declared result interface against the objects the calls
// really return (keys, null, strings, numbers, booleans, arrays, nested
// objects), read from the declarations with TypeScript's own checker.
// TypeScript and @types/node are the ones tests/node/package-lock.json
// pins, installed into build/node by scripts/install-deps.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import { AGENTPACK, copyPack, EXAMPLES, haveCryptography, keylessPolicy,
  localSigstore, makeWorld, packsign, REPO, tmp,
  toolEnv } from './lib/world.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TOOLS = process.env.PACKSIGN_NODE_TOOLS ||
  path.join(REPO, 'build', 'node', 'node_modules');
const DTS = path.join(HERE, '..', 'index.d.ts');
const require = createRequire(import.meta.url);

function typescript() {
  const p = path.join(TOOLS, 'typescript');
  if (!fs.existsSync(p)) {
    throw new Error(`no TypeScript in ${TOOLS} (scripts/install-deps installs ` +
      'tests/node/package-lock.json into build/node)');
  }
  return require(p);
}

test('tsc --noEmit --strict accepts the example', () => {
  const tsc = path.join(TOOLS, 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict',
    '--target', 'es2022', '--module', 'nodenext', '--moduleResolution',
    'nodenext', '--types', 'node', '--typeRoots', path.join(TOOLS, '@types'),
    '--skipLibCheck', path.join(HERE, 'types', 'example.mts')],
  { encoding: 'utf8', env: toolEnv() });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

// -------------------------------------------- declarations vs. objects

// One program: index.d.ts (its own diagnostics must be none) and a file
// that passes a passphrase and an identity token as strings (both must be
// refused).
function checker() {
  const ts = typescript();
  const bad = path.join(tmp('ts'), 'bad.mts');
  fs.writeFileSync(bad, `import * as p from ${JSON.stringify(path.join(HERE,
    '..', 'index.js'))};
await p.sign('dir', { key: 'alice.key', passphrase: 'secret' });
await p.sign('dir', { keyless: true, identityToken: 'eyJ.x.y' });
`);
  const program = ts.createProgram([DTS, bad], { strict: true,
    types: ['node'], typeRoots: [path.join(TOOLS, '@types')], noEmit: true,
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext });
  const tc = program.getTypeChecker();
  const file = program.getSourceFile(DTS);
  assert.deepEqual(program.getSemanticDiagnostics(file).map((x) =>
    ts.flattenDiagnosticMessageText(x.messageText, '\n')), []);
  const refused = program.getSemanticDiagnostics(program.getSourceFile(bad));
  assert.equal(refused.length, 2);
  assert.equal(refused[0].code, 2322, 'a string is no passphrase');
  assert.equal(refused[1].code, 2322, 'a string is no identity token');
  const named = new Map();
  ts.forEachChild(file, (n) => {
    if ((ts.isInterfaceDeclaration(n) || ts.isClassDeclaration(n)) && n.name) {
      named.set(n.name.text, tc.getTypeAtLocation(n.name));
    }
  });
  return { ts, tc, named, file };
}

// The problems of `value` against `type`, with their paths.
function mismatches(c, value, type, where) {
  const { ts, tc } = c;
  const f = type.flags;
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) {
    return [];
  }
  if (type.isUnion()) {
    const all = type.types.map((t) => mismatches(c, value, t, where));
    return all.some((m) => m.length === 0) ? [] : all.flat().slice(0, 3);
  }
  const bad = (what) => [`${where}: ${JSON.stringify(value)?.slice(0, 60)} ` +
    `is not ${what}`];
  if (f & ts.TypeFlags.Null) {
    return value === null ? [] : bad('null');
  }
  if (f & ts.TypeFlags.Undefined) {
    return value === undefined ? [] : bad('undefined');
  }
  if (type.isStringLiteral() || type.isNumberLiteral()) {
    return value === type.value ? [] : bad(JSON.stringify(type.value));
  }
  if (f & ts.TypeFlags.BooleanLiteral) {
    return value === (tc.typeToString(type) === 'true') ? [] :
      bad(tc.typeToString(type));
  }
  if (f & ts.TypeFlags.String) {
    return typeof value === 'string' ? [] : bad('a string');
  }
  if (f & ts.TypeFlags.Number) {
    return typeof value === 'number' ? [] : bad('a number');
  }
  if (f & ts.TypeFlags.Boolean) {
    return typeof value === 'boolean' ? [] : bad('a boolean');
  }
  if (tc.isArrayType(type) || tc.isTupleType(type)) {
    if (!Array.isArray(value)) {
      return bad('an array');
    }
    const el = tc.getTypeArguments(type)[0];
    return value.flatMap((v, i) => mismatches(c, v, el, `${where}[${i}]`));
  }
  if (f & ts.TypeFlags.Object) {
    if (value === null || typeof value !== 'object') {
      return bad('an object');
    }
    const props = tc.getPropertiesOfType(type);
    const out = [];
    const declared = new Set(props.map((p) => p.name));
    for (const k of Object.keys(value)) {
      if (!declared.has(k)) {
        out.push(`${where}.${k}: not declared`);
      }
    }
    for (const p of props) {
      const t = tc.getTypeOfSymbolAtLocation(p, c.file);
      const optional = (p.flags & ts.SymbolFlags.Optional) !== 0;
      if (!(p.name in value)) {
        if (!optional) {
          out.push(`${where}.${p.name}: missing`);
        }
        continue;
      }
      if (typeof value[p.name] === 'function') {
        continue;
      }
      out.push(...mismatches(c, value[p.name], t, `${where}.${p.name}`));
    }
    return out;
  }
  return bad(tc.typeToString(type));
}

function conforms(c, name, value) {
  const type = c.named.get(name);
  assert.ok(type, `index.d.ts declares ${name}`);
  assert.deepEqual(mismatches(c, value, type, name), []);
}

test('every result interface of index.d.ts is what the calls return', async () => {
  const c = checker();
  // The comparison can fail: an undeclared key, a wrong type, a missing key.
  const digest = await packsign.digest(path.join(EXAMPLES, AGENTPACK));
  assert.notDeepEqual(mismatches(c, { ...digest, extra: 1 },
    c.named.get('DigestResult'), 'D'), []);
  assert.notDeepEqual(mismatches(c, { ...digest, entries: '12' },
    c.named.get('DigestResult'), 'D'), []);
  const { tree_digest: _, ...missing } = digest;
  assert.notDeepEqual(mismatches(c, missing, c.named.get('DigestResult'),
    'D'), []);
  const w = makeWorld();
  const d = path.join(tmp('dts'), 'data');
  const pack = path.join(EXAMPLES, AGENTPACK);
  conforms(c, 'LibraryVersion', packsign.libraryVersion());
  conforms(c, 'DigestResult', await packsign.digest(pack, { files: true }));
  conforms(c, 'DigestResult', await packsign.digest(w.v1));
  conforms(c, 'ValidateResult', await packsign.validate(pack));
  conforms(c, 'VerifyResult', await packsign.verify(w.v1, { trust: w.policy }));
  conforms(c, 'VerifyResult', await packsign.verify(w.tampered,
    { trust: w.policy }));
  conforms(c, 'VerifyResult', await packsign.verify('/nonexistent.tar.gz',
    { trust: w.policy }));
  const plans = [];
  conforms(c, 'InstallResult', await packsign.install(w.v1, { trust: w.policy,
    dataDir: d, confirm: (p) => plans.push(p) > 0 }));
  const up = await packsign.install(w.v2, { trust: w.policy, dataDir: d,
    consent: (p) => plans.push(p) > 0 });
  conforms(c, 'InstallResult', up);
  for (const p of plans) {
    conforms(c, 'InstallPlan', p);
  }
  const refused = await packsign.install(w.tampered, { trust: w.policy,
    dataDir: d }).catch((e) => e);
  assert.ok(refused instanceof packsign.PacksignError);
  conforms(c, 'InstallResult', refused.result);
  conforms(c, 'Diff', await packsign.diff(w.v1, w.v2, { trust: w.policy }));
  for (const p of await packsign.list(d)) {
    conforms(c, 'ListedPack', p);
  }
  conforms(c, 'InstalledCheckResult', await packsign.verifyInstalled(up.path,
    { trust: w.policy }));
  const ix = await packsign.verifyIndex(w.index, { trust: w.policy });
  conforms(c, 'Index', { ...ix, resolve: ix.resolve, close: ix.close });
  conforms(c, 'IndexEntry', ix.resolve(AGENTPACK));
  await packsign.indexStateRecord(d, ix);
  conforms(c, 'IndexSeen', await packsign.indexStateLoad(d, 'alice'));
  ix.close();
  conforms(c, 'SignResult', await packsign.sign(w.pack1, { key: w.aliceKey,
    output: path.join(tmp('dts-sign'), 'p.tar.gz') }));
  conforms(c, 'UninstallResult', await packsign.uninstall(AGENTPACK,
    { dataDir: d }));
  const V = path.join(REPO, 'tests', 'conformance', 'bundle-verify');
  const ID = 'https://github.com/sigstore-conformance/extremely-dangerous-' +
    'public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml' +
    '@refs/heads/main';
  const keyless = { bundle: path.join(V, 'happy-path-v0.3',
    'bundle.sigstore.json'), identity: ID,
  issuer: 'https://token.actions.githubusercontent.com' };
  conforms(c, 'BlobResult', await packsign.verifyBlob(path.join(V, 'a.txt'),
    keyless));
  const k = path.join(V, 'managed-key-happy-path');
  conforms(c, 'BlobResult', await packsign.verifyBlob(path.join(V, 'a.txt'),
    { bundle: path.join(k, 'bundle.sigstore.json'),
      key: path.join(k, 'key.pub') }));
  const d2 = path.join(V, 'rekor2-dsse-happy-path');
  conforms(c, 'BlobResult', await packsign.verifyBlob(path.join(V, 'a.txt'),
    { ...keyless, bundle: path.join(d2, 'bundle.sigstore.json'),
      trustedRoot: path.join(d2, 'trusted_root.json') }));
  for (const bad of [{ ...keyless, issuer: 'x' },
    { ...keyless, bundle: '/nonexistent.json' }]) {
    const e = await packsign.verifyBlob(path.join(V, 'a.txt'), bad)
      .catch((x) => x);
    assert.ok(e instanceof packsign.PacksignError);
    conforms(c, 'BlobResult', e.result);
  }
});

test('a keyless verify result (keyless, source.certified, read) is VerifyResult', { skip: !haveCryptography() && 'no python3 cryptography' }, async (t) => {
  const c = checker();
  const srv = await localSigstore(t);
  const d = tmp('dts-keyless');
  const archive = path.join(d, 'p.tar.gz');
  await packsign.sign(copyPack(path.join(d, 'pack')), { output: archive,
    keyless: true, identityToken: fs.readFileSync(srv.f('token')),
    signingConfig: srv.f('signing_config.json'),
    trustedRoot: srv.f('trusted_root.json'), caFile: srv.f('ca.pem') });
  const v = await packsign.verify(archive, { trust: keylessPolicy(
    path.join(d, 'trust.yaml'), srv), bundles: [`${archive}.1.sigstore.json`] });
  assert.ok(v.signatures[0].keyless);
  conforms(c, 'VerifyResult', v);
  conforms(c, 'VerifyKeyless', v.signatures[0].keyless);
});
