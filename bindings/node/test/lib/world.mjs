// Shared set-up of the node:test suites: the package under test, the CLI
// whose --json the results are compared with, and keys, policies and
// signed copies of the example AgentPack in a temporary directory (never
// inside the work tree: a pack signed there would record its git origin).
//
// Environment (tests/run sets both): PACKSIGN_NODE_PACKAGE, the built
// package (build/node-packsign); PACKSIGN, the CLI (build/packsign).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)),
  '..', '..', '..', '..');
export const EXAMPLES = path.join(REPO, 'examples', 'packs');
export const AGENTPACK = 'research.top-journal-reviewer';
export const PACKAGE = process.env.PACKSIGN_NODE_PACKAGE ||
  path.join(REPO, 'build', 'node-packsign');
export const CLI = process.env.PACKSIGN ||
  path.join(REPO, 'build', 'packsign');

const require = createRequire(import.meta.url);
export const packsign = require(PACKAGE);

function cleanEnv() {
  const env = { ...process.env };
  for (const v of ['PACKSIGN_PASSPHRASE', 'PACKSIGN_SECRET_KEY',
    'SOURCE_DATE_EPOCH', 'PACKSIGN_DATA_DIR']) {
    delete env[v];
  }
  return env;
}

/** The environment for a tool that is not packsign (cc, flock, openssl,
 * python3, tsc): without the sanitizer runtime tests/run preloads into
 * node for the ASan build, whose leak check would judge their exits. */
export function toolEnv() {
  const env = { ...process.env };
  for (const v of ['LD_PRELOAD', 'ASAN_OPTIONS', 'UBSAN_OPTIONS',
    'LSAN_OPTIONS']) {
    delete env[v];
  }
  return env;
}

/** Runs the CLI; throws on a non-zero exit unless check is false. */
export function cli(args, { check = true, cwd } = {}) {
  const r = spawnSync(CLI, args.map(String), { encoding: 'utf8', cwd,
    env: cleanEnv() });
  if (check && r.status !== 0) {
    throw new Error(`packsign ${args.join(' ')}: exit ${r.status}\n` +
      `${r.stdout}\n${r.stderr}`);
  }
  return r;
}

/** [exit status, parsed --json output]. */
export function cliJson(args) {
  const r = cli([...args, '--json'], { check: false });
  return [r.status, JSON.parse(r.stdout)];
}

let tmpRoot = null;

/** A new empty directory, removed when the process exits. */
export function tmp(name = 't') {
  if (tmpRoot === null) {
    tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'packsign-node-'));
    process.on('exit', () => fs.rmSync(tmpRoot, { recursive: true,
      force: true }));
  }
  return fs.mkdtempSync(path.join(tmpRoot, `${name}-`));
}

/** A private, writable copy of an example pack. */
export function copyPack(dst, name = AGENTPACK) {
  fs.cpSync(path.join(EXAMPLES, name), dst, { recursive: true });
  for (const p of [dst, ...fs.readdirSync(dst, { recursive: true })
    .map((f) => path.join(dst, f))]) {
    fs.chmodSync(p, fs.statSync(p).mode | 0o200);
  }
  return dst;
}

export function writePolicy(file, who, pub, roles = '[pack, index]') {
  const key = fs.readFileSync(pub, 'utf8').split('\n')[1];
  fs.writeFileSync(file, `version: 1
signers:
  - identity: ${who}
    keys:
      - key: ${key}
    packs: ["*"]
    roles: ${roles}
threshold: 1
`);
  return file;
}

/** Keys, policies and signed archives: v1 (0.1.0), v2 (0.2.0, which asks
 * for the network: a widening permissions change), tampered, an index. */
export function makeWorld() {
  const d = tmp('world');
  for (const who of ['alice', 'mallory']) {
    cli(['keygen', '-o', path.join(d, who), '--identity', who,
      '--no-passphrase']);
  }
  const w = { dir: d, alicePub: path.join(d, 'alice.pub'),
    aliceKey: path.join(d, 'alice.key') };
  w.policy = writePolicy(path.join(d, 'policy-alice.yaml'), 'alice',
    w.alicePub);
  w.malloryPolicy = writePolicy(path.join(d, 'policy-mallory.yaml'),
    'mallory', path.join(d, 'mallory.pub'));
  const pack1 = copyPack(path.join(d, 'pack1'));
  w.pack1 = pack1;
  w.v1 = path.join(d, 'ap-0.1.0.tar.gz');
  cli(['sign', pack1, '-s', w.aliceKey, '-o', w.v1]);
  const pack2 = copyPack(path.join(d, 'pack2'));
  const m = path.join(pack2, 'manifest.yml');
  fs.writeFileSync(m, fs.readFileSync(m, 'utf8')
    .replace('version: 0.1.0', 'version: 0.2.0')
    .replace('network: false', 'network: true'));
  w.pack2 = pack2;
  w.v2 = path.join(d, 'ap-0.2.0.tar.gz');
  cli(['sign', pack2, '-s', w.aliceKey, '-o', w.v2]);
  w.tampered = path.join(d, 'tampered.tar.gz');
  const data = fs.readFileSync(w.v1);
  data[data.length - 1] ^= 1;
  fs.writeFileSync(w.tampered, data);
  fs.copyFileSync(`${w.v1}.sig`, `${w.tampered}.sig`);
  w.index = path.join(d, 'index.json');
  cli(['index', 'build', w.v1, w.v2, '-o', w.index, '-s', w.aliceKey,
    '--trust', w.policy, '--base-url', 'https://example.invalid/packs/']);
  return w;
}

/** A path made comparable across two data directories. */
export function relative(value, from, to) {
  return JSON.parse(JSON.stringify(value).split(from).join(to));
}

/** Holds DIR/.lock as another packsign run would (flock(1)) until the
 * returned function is called. */
export function holdLock(dataDir) {
  fs.mkdirSync(dataDir, { recursive: true });
  const ready = path.join(dataDir, '..', `lock-ready-${process.pid}`);
  const child = execFileSync('sh', ['-c', 'command -v flock'],
    { encoding: 'utf8', env: toolEnv() }).trim();
  const p = spawnSyncDetached(child, path.join(dataDir, '.lock'), ready);
  return p;
}

function spawnSyncDetached(flock, lock, ready) {
  // flock LOCK sh -c 'touch READY; read line': holds the lock until its
  // standard input closes.
  const { spawn } = require('node:child_process');
  const child = spawn(flock, [lock, 'sh', '-c', `: >"${ready}"; read x`],
    { stdio: ['pipe', 'ignore', 'inherit'], env: toolEnv() });
  return {
    async ready() {
      for (let i = 0; i < 200 && !fs.existsSync(ready); i++) {
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    release() {
      child.stdin.end();
      return new Promise((r) => child.on('exit', r));
    },
  };
}

/** Whether python3 has cryptography (the local Sigstore needs it). */
export function haveCryptography() {
  return spawnSync('python3', ['-c', 'import cryptography'],
    { env: toolEnv() }).status === 0;
}

/** The local Sigstore (tests/sigstore/serve) on 127.0.0.1 until the test
 * `t` ends: its directory, f(name) for its files (ca.pem, token,
 * signing_config.json, trusted_root.json), the identity and URL. */
export async function localSigstore(t) {
  const dir = path.join(tmp('sigstore'), 'srv');
  fs.mkdirSync(dir);
  const child = spawn('python3', [path.join(REPO, 'tests', 'sigstore',
    'serve'), dir], { env: { ...toolEnv(), PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['ignore', 'ignore', 'inherit'] });
  t.after(() => child.kill());
  for (let i = 0; i < 200 && !fs.existsSync(path.join(dir, 'ready')); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!fs.existsSync(path.join(dir, 'ready'))) {
    throw new Error('tests/sigstore/serve never got ready');
  }
  const f = (name) => path.join(dir, name);
  return { dir, f, identity: fs.readFileSync(f('identity'), 'utf8').trim(),
    url: fs.readFileSync(f('url'), 'utf8').trim() };
}

export function keylessPolicy(file, srv) {
  fs.writeFileSync(file, `version: 1
trusted_roots: [${srv.f('trusted_root.json')}]
signers:
  - identity: octo-release
    keyless:
      - issuer: https://token.actions.githubusercontent.com
        subject: ${srv.identity}
        repository_id: "601234567"
    packs: ["*"]
`);
  return file;
}
