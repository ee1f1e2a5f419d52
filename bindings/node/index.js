// packsign: verify, inspect, sign and install signed agent packs from
// Node.js, through libpacksign (libpacksign.so.1) and a Node-API addon.
//
// Every call that reads files or the network returns a Promise and runs
// off the main thread: reads and hashes on libuv's pool, calls that can
// wait (install, installUrl, installIndexed, fetch, readIndex, uninstall,
// indexStateRecord) on threads of the addon's own, so that callbacks
// waiting in JavaScript never hold the threads fs needs.  Results are the
// objects the CLI's --json prints for the same command (docs/packsign.1
// lists their keys); options are camelCase.  Errors are PacksignError.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { fileURLToPath } = require('url');

const ADDON = path.join(__dirname, 'build', 'Release', 'packsign.node');

// A sanitizer runtime in the process (make check's ASan run preloads
// libasan) refuses RTLD_DEEPBIND and ends the process: look before asking.
function sanitized() {
  try {
    return /\/lib[atlmu]+san\.so/.test(fs.readFileSync('/proc/self/maps',
      'utf8'));
  } catch {
    return false;
  }
}

// The addon is opened RTLD_DEEPBIND where it can be: NodeSource's and
// nodejs.org's node export the zlib and OpenSSL they link statically, and
// without it libpacksign's libraries (libarchive's deflate, libcrypto)
// would bind to those copies instead of their own, so that a pack signed
// in Node would be compressed by another zlib than the CLI's (other
// bytes, another archive digest).  Node-API itself still comes from node:
// the addon's own scope does not define it.
function load() {
  const { RTLD_NOW, RTLD_DEEPBIND } = os.constants.dlopen;
  const deep = RTLD_DEEPBIND !== undefined && !sanitized();
  const mod = { exports: {} };
  process.dlopen(mod, ADDON, deep ? RTLD_NOW | RTLD_DEEPBIND : RTLD_NOW);
  return { native: mod.exports, deep };
}

const { native, deep: DEEP_BIND } = load();

const DIFF_TEXT = Symbol('packsign.diffText');
const CONSENT_CLASSES = Object.freeze(['permissions', 'trust', 'prompts',
  'code']);
const FORMATS = Object.freeze(['soyapack', 'holon', 'autograph',
  'agentpack']);

/**
 * A libpacksign error: `code` (docs/errors.md), `exit` (1 the input was
 * examined and refused, 2 the job could not be done), `subject`,
 * `expected`, `found` ('' when there is no value), and `result`, the
 * partial result of an install or sign when there is one.
 */
class PacksignError extends Error {
  constructor(fields, options) {
    super(fields.line || `${fields.subject}: ${fields.message} [${fields.code}]`,
      options);
    this.name = 'PacksignError';
    this.code = fields.code;
    this.exit = fields.exit;
    this.subject = fields.subject;
    this.detail = fields.message;
    this.expected = fields.expected;
    this.found = fields.found;
    if (fields.result !== undefined) {
      this.result = fields.result;
    }
  }
}

native.setup(PacksignError, DIFF_TEXT);

// ------------------------------------------------------------ arguments

function fail(what) {
  const e = new TypeError(`packsign: ${what}`);
  e.code = 'ERR_INVALID_ARG_TYPE';
  return e;
}

function pathOf(p, what) {
  if (p instanceof URL) {
    return fileURLToPath(p);
  }
  if (typeof p !== 'string' || p === '') {
    throw fail(`${what} must be a path (a string or a file: URL)`);
  }
  return p;
}

function optionalPath(p, what) {
  return p === undefined || p === null ? undefined : pathOf(p, what);
}

function known(options, keys, fn) {
  if (options === undefined || options === null) {
    return {};
  }
  if (typeof options !== 'object') {
    throw fail(`${fn}: options must be an object`);
  }
  for (const k of Object.keys(options)) {
    if (!keys.has(k)) {
      throw fail(`${fn}: unknown option ${JSON.stringify(k)}`);
    }
  }
  return options;
}

function time(t, what) {
  if (t === undefined || t === null) {
    return undefined;
  }
  if (t instanceof Date) {
    if (Number.isNaN(t.getTime())) {
      throw fail(`${what} is an invalid Date`);
    }
    return Math.floor(t.getTime() / 1000);
  }
  if (typeof t === 'number' || typeof t === 'string') {
    return t;
  }
  throw fail(`${what} must be a Date, seconds since the epoch or RFC 3339 text`);
}

function lang(l) {
  if (l === undefined || l === 'en') {
    return false;
  }
  if (l === 'zh') {
    return true;
  }
  throw fail('lang is "en" or "zh"');
}

function classes(c) {
  if (c === undefined || c === null) {
    return undefined;
  }
  const list = typeof c === 'string' ? c.split(',').map((s) => s.trim())
    .filter((s) => s !== '') : c;
  if (!Array.isArray(list) || list.some((s) => !CONSENT_CLASSES.includes(s))) {
    throw fail(`accept takes consent classes (${CONSENT_CLASSES.join(', ')})`);
  }
  return list;
}

function trustOf(o) {
  return { trust: optionalPath(o.trust, 'trust'),
    publicKey: optionalPath(o.publicKey, 'publicKey') };
}

const VERIFY_KEYS = ['trust', 'publicKey', 'sigPath', 'signedBy', 'sourceRepo',
  'sourceCommit', 'requireSource', 'allowDirty', 'at'];

function verifyChecks(o) {
  return { ...trustOf(o), sigPath: optionalPath(o.sigPath, 'sigPath'),
    signedBy: o.signedBy, sourceRepo: o.sourceRepo,
    sourceCommit: o.sourceCommit, requireSource: o.requireSource,
    allowDirty: o.allowDirty, at: time(o.at, 'at') };
}

const FETCH_KEYS = ['caFile', 'proxy', 'noProxy', 'sigUrl', 'maxDownload',
  'connectTimeout', 'lowSpeedTime', 'timeout'];

function fetchOptions(f) {
  const o = known(f, new Set(FETCH_KEYS), 'fetch');
  return { caFile: optionalPath(o.caFile, 'caFile'), proxy: o.proxy,
    noProxy: o.noProxy, sigUrl: o.sigUrl, maxDownload: o.maxDownload,
    connectTimeout: o.connectTimeout, lowSpeedTime: o.lowSpeedTime,
    timeout: o.timeout };
}

function signalOf(o) {
  const s = o.signal;
  if (s !== undefined && s !== null && (typeof s !== 'object' ||
      typeof s.aborted !== 'boolean' || typeof s.addEventListener !== 'function')) {
    throw fail('signal must be an AbortSignal');
  }
  return s || null;
}

// ------------------------------------------------------ threaded calls

// Runs a native call on its own thread: its events (confirm, consent,
// waiting) go to `handlers`; an AbortSignal or a throwing callback aborts
// it (a pending callback is declined, a download stops with
// fetch_cancelled, a local install is declined before its tree is put in
// place); the first error a callback threw is re-raised.
async function threaded(start, handlers, signal) {
  if (signal !== null && signal.aborted) {
    throw signal.reason;
  }
  let raised = null;
  let id = 0;
  const onEvent = handlers === null ? null : (kind, arg, seq) => {
    const fn = handlers[kind];
    Promise.resolve().then(() => {
      if (raised !== null || (signal !== null && signal.aborted) || !fn) {
        return false;
      }
      return fn(arg);
    }).then((v) => native.answer(id, seq, v === true || kind === 'waiting'),
      (e) => {
        if (raised === null) {
          raised = { error: e };
        }
        native.abort(id);
        native.answer(id, seq, false);
      });
  };
  const call = start(onEvent);
  id = call.id;
  const onAbort = () => native.abort(id);
  if (signal !== null) {
    signal.addEventListener('abort', onAbort, { once: true });
  }
  let result;
  try {
    result = await call.promise;
  } catch (e) {
    if (raised !== null) {
      throw raised.error;
    }
    if (signal !== null && signal.aborted && e instanceof PacksignError) {
      e.cause = signal.reason;
    }
    throw e;
  } finally {
    if (signal !== null) {
      signal.removeEventListener('abort', onAbort);
    }
  }
  if (raised !== null) {
    throw raised.error;
  }
  return result;
}

function callbacks(o) {
  const h = {};
  for (const k of ['confirm', 'consent', 'waiting']) {
    if (o[k] !== undefined && o[k] !== null) {
      if (typeof o[k] !== 'function') {
        throw fail(`${k} must be a function`);
      }
      h[k] = o[k];
    }
  }
  return h;
}

// ---------------------------------------------------------------- calls

function libraryVersion() {
  return native.version();
}

/** The data directory the library uses by default. */
function dataDirDefault() {
  return native.dataDirDefault();
}

function dataDirOf(o) {
  return o.dataDir === undefined || o.dataDir === null ?
    native.dataDirDefault() : pathOf(o.dataDir, 'dataDir');
}

/** `packsign digest --json`: the digests of a pack directory or archive. */
async function digest(p, options) {
  const o = known(options, new Set(['mtime', 'files']), 'digest');
  return native.digest(pathOf(p, 'path'), { mtime: o.mtime, files: o.files });
}

/** `packsign validate --json`: every rule of the pack's manifest format. */
async function validate(p, options) {
  const o = known(options, new Set(['strict', 'format', 'engineVersion']),
    'validate');
  return native.validate(pathOf(p, 'path'), { strict: o.strict,
    format: o.format, engineVersion: o.engineVersion });
}

/** What the pack may do in plain words, English ("en") or Chinese ("zh"). */
async function describe(p, options) {
  const o = known(options, new Set(['lang']), 'describe');
  return native.describe(pathOf(p, 'path'), { zh: lang(o.lang) });
}

/**
 * `packsign verify --json`'s result for one archive or directory: resolves
 * whether or not verification passed (`ok`, `exit`, `code`, ...); rejects
 * only when the policy, the key or the Sigstore trusted root cannot be
 * loaded.
 */
async function verify(p, options) {
  const o = known(options, new Set([...VERIFY_KEYS, 'rebuildFrom', 'deep',
    'bundles', 'trustedRoot']), 'verify');
  const bundles = o.bundles === undefined ? undefined :
    o.bundles.map((b) => pathOf(b, 'bundles'));
  if (o.trustedRoot !== undefined && o.trustedRoot !== null &&
      bundles === undefined) {
    throw fail('verify: trustedRoot is for bundles');
  }
  return native.verify(pathOf(p, 'path'), { ...verifyChecks(o),
    rebuildFrom: optionalPath(o.rebuildFrom, 'rebuildFrom'), deep: o.deep,
    bundles, trustedRoot: optionalPath(o.trustedRoot, 'trustedRoot') });
}

const SHA256_HEX = /^(sha256:)?[0-9a-fA-F]{64}$/;

function given(v) {
  return v !== undefined && v !== null;
}

/**
 * `packsign verify-blob --json`: the Sigstore bundle `bundle` over the file
 * `artifact` (a path, a file: URL, or `sha256:HEX` as the CLI takes it: a
 * digest when no such file exists), or, with artifact null, over the
 * artifact whose SHA-256 is `sha256`; keyless against `identity` (the
 * certificate's SAN) and `issuer` (its OIDC issuer), both exactly, or
 * key-based against `key` (a PEM public key file); `trustedRoot` a
 * trusted_root.json (default: the compiled-in public-good root), `at` the
 * present.  Resolves with the report when the bundle verified; rejects
 * with a PacksignError otherwise, its `result` the same report (none when
 * the trusted root could not be loaded).
 */
async function verifyBlob(artifact, options) {
  const o = known(options, new Set(['bundle', 'identity', 'issuer', 'key',
    'trustedRoot', 'at', 'sha256']), 'verifyBlob');
  if (given(artifact) === given(o.sha256)) {
    throw fail('verifyBlob: give an artifact or options.sha256, not both');
  }
  if (given(o.sha256) && (typeof o.sha256 !== 'string' ||
      !SHA256_HEX.test(o.sha256))) {
    throw fail('verifyBlob: sha256 is 64 hex digits (sha256:HEX)');
  }
  if (given(o.key) === (given(o.identity) || given(o.issuer)) ||
      (!given(o.key) && !(given(o.identity) && given(o.issuer)))) {
    throw fail('verifyBlob: give identity and issuer, or key');
  }
  const target = given(artifact) ? pathOf(artifact, 'artifact') :
    (o.sha256.startsWith('sha256:') ? o.sha256 : `sha256:${o.sha256}`);
  return native.verifyBlob(target, { bundle: pathOf(o.bundle, 'bundle'),
    identity: o.identity, issuer: o.issuer, key: optionalPath(o.key, 'key'),
    trustedRoot: optionalPath(o.trustedRoot, 'trustedRoot'),
    at: time(o.at, 'at'), digest: given(o.sha256) });
}

/** `packsign verify --installed PATH --json`'s result. */
async function verifyInstalled(p, options) {
  const o = known(options, new Set(['trust', 'publicKey', 'at']),
    'verifyInstalled');
  return native.verifyInstalled(pathOf(p, 'path'), { ...trustOf(o),
    at: time(o.at, 'at') });
}

function diffSide(s, what) {
  if (typeof s === 'string' || s instanceof URL) {
    return { path: pathOf(s, what) };
  }
  if (s !== null && typeof s === 'object' && typeof s.installed === 'string') {
    return { installed: s.installed, version: s.version, format: s.format };
  }
  if (s !== null && typeof s === 'object' && s.installedPath !== undefined) {
    return { installedPath: pathOf(s.installedPath, what) };
  }
  throw fail(`${what} is a path, {installed: id, version?, format?} or ` +
    '{installedPath}');
}

/**
 * `packsign diff --json`: what changed between two versions.  A side is a
 * signed archive (verified first: give trust or publicKey), a pack
 * directory, or an installed version ({installed: id, version?}).
 */
async function diff(oldSide, newSide, options) {
  const o = known(options, new Set(['trust', 'publicKey', 'dataDir', 'lines',
    'at']), 'diff');
  const a = diffSide(oldSide, 'old');
  const b = diffSide(newSide, 'new');
  const needsDir = a.installed !== undefined || b.installed !== undefined;
  return native.diff(a, b, { ...trustOf(o), lines: o.lines,
    at: time(o.at, 'at'), dataDir: needsDir ? dataDirOf(o) : undefined });
}

/** The exact JSON text of a diff (what acceptDiff compares, byte for byte). */
function diffText(d) {
  if (d === null || typeof d !== 'object' || typeof d[DIFF_TEXT] !== 'string') {
    throw fail('diffText() takes a diff from diff(), or a plan\'s diff');
  }
  return d[DIFF_TEXT];
}

function acceptDiffOf(a) {
  if (a === undefined || a === null) {
    return undefined;
  }
  if (typeof a === 'string') {
    return a;
  }
  if (Buffer.isBuffer(a)) {
    return a.toString('utf8');
  }
  return diffText(a);
}

const INSTALL_KEYS = [...VERIFY_KEYS, 'dataDir', 'allowShell',
  'allowDowngrade', 'dryRun', 'lang', 'confirm', 'consent', 'waiting',
  'accept', 'acceptDiff', 'consentBy', 'allowSignerChange',
  'allowSourceChange', 'now', 'signal'];

function installOptions(o, h) {
  return { ...verifyChecks(o), dataDir: dataDirOf(o),
    allowShell: o.allowShell, allowDowngrade: o.allowDowngrade,
    dryRun: o.dryRun, zh: lang(o.lang), accept: classes(o.accept),
    acceptDiff: acceptDiffOf(o.acceptDiff), consentBy: o.consentBy,
    allowSignerChange: o.allowSignerChange,
    allowSourceChange: o.allowSourceChange, now: time(o.now, 'now'),
    hasConfirm: h.confirm !== undefined, hasConsent: h.consent !== undefined,
    hasWaiting: h.waiting !== undefined };
}

/**
 * Verifies and installs a signed archive (its .sig beside it): resolves
 * with `packsign install --json`'s object; a refusal rejects with a
 * PacksignError whose `result` is that object.
 */
async function install(archive, options) {
  const o = known(options, new Set([...INSTALL_KEYS, 'archiveFd',
    'archiveStream']), 'install');
  if (o.archiveStream !== undefined) {
    return installStream(archive, o);
  }
  const h = callbacks(o);
  const opts = installOptions(o, h);
  const a = pathOf(archive, 'archive');
  if (o.archiveFd !== undefined) {
    // `install - --sig F`: the archive read from the caller's descriptor
    // (a pipe too; never closed), `archive` only its name.
    if (!Number.isInteger(o.archiveFd) || o.archiveFd < 0 ||
        o.archiveFd > 0x7fffffff) {
      throw fail('archiveFd must be a file descriptor');
    }
    if (o.sigPath === undefined) {
      throw fail('install: archiveFd needs sigPath');
    }
    opts.archiveFd = o.archiveFd;
  }
  return threaded((ev) => native.install(a, opts, ev), h, signalOf(o));
}

// install() of a Readable (or any async iterable of bytes): piped into a
// pipe whose read end is archiveFd; both ends closed when it is done (a
// write still pending when the install stopped reading then fails, EPIPE,
// and is dropped).
async function installStream(archive, o) {
  const src = o.archiveStream;
  if (src === null || typeof src[Symbol.asyncIterator] !== 'function') {
    throw fail('archiveStream must be a Readable or an async iterable');
  }
  if (o.archiveFd !== undefined) {
    throw fail('install: archiveStream or archiveFd, not both');
  }
  const { pipeline } = require('stream/promises');
  const [r, w] = native.pipe();
  const out = fs.createWriteStream(null, { fd: w });
  const pumped = pipeline(src, out).catch(() => {});
  try {
    return await install(archive, { ...o, archiveStream: undefined,
      archiveFd: r });
  } finally {
    fs.closeSync(r);
    out.destroy();
    await pumped;
  }
}

/** install() of an https URL: its .sig first, then the archive. */
async function installUrl(url, options) {
  const o = known(options, new Set([...INSTALL_KEYS, 'fetch']), 'installUrl');
  const h = callbacks(o);
  const opts = { ...installOptions(o, h), ...fetchOptions(o.fetch) };
  if (typeof url !== 'string') {
    throw fail('url must be a string');
  }
  return threaded((ev) => native.installUrl(url, opts, ev), h, signalOf(o));
}

/**
 * Downloads an https URL and its signature to `file` and `file`.sig,
 * verified, without installing.  Resolves with the verification (as
 * verify()), ok false for a refusal or a failed download; an aborted
 * download rejects.
 */
async function fetch(url, file, options) {
  const o = known(options, new Set([...VERIFY_KEYS, 'fetch', 'signal']),
    'fetch');
  if (typeof url !== 'string') {
    throw fail('url must be a string');
  }
  const opts = { ...verifyChecks(o), ...fetchOptions(o.fetch) };
  const out = pathOf(file, 'file');
  const signal = signalOf(o);
  const r = await threaded(() => native.fetch(url, out, opts), null, signal);
  if (!r.ok && signal !== null && signal.aborted) {
    throw new PacksignError({ ...r, result: r }, { cause: signal.reason });
  }
  return r;
}

/** The installed packs (`packsign list --json`'s `packs`). */
async function list(dataDir) {
  return native.list(dataDir === undefined || dataDir === null ?
    native.dataDirDefault() : pathOf(dataDir, 'dataDir'));
}

/** Removes a version (or every version) of an id: `uninstall --json`. */
async function uninstall(id, options) {
  const o = known(options, new Set(['version', 'dataDir', 'format',
    'forget']), 'uninstall');
  if (typeof id !== 'string') {
    throw fail('id must be a string');
  }
  return threaded(() => native.uninstall(id, { version: o.version,
    dataDir: dataDirOf(o), format: o.format, forget: o.forget }), null, null);
}

// ---------------------------------------------------------------- index

/**
 * A verified pack index: the fields `packsign index verify --json` prints
 * of the index itself (publisher, version, issued, expires, fingerprint,
 * index_sha256, packs).  It holds the verified index for resolve() and
 * installIndexed(); close() frees it (or the garbage collector does).
 */
class Index {
  #handle;

  constructor(handle, info) {
    this.#handle = handle;
    Object.assign(this, info);
  }

  /** The newest entry of `id` satisfying `spec` ("*", a version or range). */
  resolve(id, spec, options) {
    const o = known(options, new Set(['allowYanked']), 'resolve');
    if (typeof id !== 'string') {
      throw fail('id must be a string');
    }
    return native.resolve(this.#handle, id, spec == null ? '' : String(spec),
      o.allowYanked === true);
  }

  close() {
    native.indexClose(this.#handle);
  }

  static handleOf(index) {
    if (!(index instanceof Index)) {
      throw fail('not an Index of verifyIndex()');
    }
    return index.#handle;
  }
}

/** The bytes of an index file, or of an https URL. */
async function readIndex(fileOrUrl, options) {
  const o = known(options, new Set(['fetch', 'signal']), 'readIndex');
  const where = /^[a-z][a-z0-9+.-]*:\/\//i.test(String(fileOrUrl)) &&
    !(fileOrUrl instanceof URL && fileOrUrl.protocol === 'file:') ?
    String(fileOrUrl) : pathOf(fileOrUrl, 'fileOrUrl');
  return threaded(() => native.readIndex(where, fetchOptions(o.fetch)), null,
    signalOf(o));
}

/** Verifies an index (a Buffer, or a file or URL read with readIndex()). */
async function verifyIndex(data, options) {
  const o = known(options, new Set(['trust', 'publicKey', 'at', 'allowExpired',
    'label', 'fetch']), 'verifyIndex');
  let bytes = data;
  let label = o.label;
  if (!Buffer.isBuffer(data)) {
    label = label || String(data instanceof URL ? data.href : data);
    bytes = await readIndex(data, { fetch: o.fetch });
  }
  const r = await native.verifyIndex(bytes, { ...trustOf(o),
    at: time(o.at, 'at'), allowExpired: o.allowExpired, label });
  return new Index(r.handle, r.info);
}

function resolve(index, id, spec, options) {
  if (!(index instanceof Index)) {
    throw fail('not an Index of verifyIndex()');
  }
  return index.resolve(id, spec, options);
}

/** What `dataDir` has seen of `publisher`'s index, or null. */
async function indexStateLoad(dataDir, publisher) {
  return native.indexStateLoad(pathOf(dataDir, 'dataDir'), publisher);
}

/** Throws index_rollback or index_equivocation for an index older than,
 * or another than, what was seen. */
function indexStateCheck(seen, index) {
  native.indexStateCheck(seen === undefined ? null : seen,
    Index.handleOf(index));
}

/** Checks and records the index as seen; resolves true when it wrote. */
async function indexStateRecord(dataDir, index, options) {
  const o = known(options, new Set(['now']), 'indexStateRecord');
  const now = time(o.now, 'now');
  return threaded(() => native.indexStateRecord(pathOf(dataDir, 'dataDir'),
    Index.handleOf(index), typeof now === 'number' ? now :
      Math.floor(Date.now() / 1000)), null, null);
}

/** Installs an entry of a verified index, as install() does. */
async function installIndexed(index, entry, options) {
  const o = known(options, new Set([...INSTALL_KEYS, 'fetch', 'allowYanked',
    'requireState', 'recordState']), 'installIndexed');
  const h = callbacks(o);
  const opts = { ...installOptions(o, h), ...fetchOptions(o.fetch),
    allowYanked: o.allowYanked, requireState: o.requireState,
    recordState: o.recordState };
  const handle = Index.handleOf(index);
  return threaded((ev) => native.installIndexed(handle, entry, opts, ev), h,
    signalOf(o));
}

// ----------------------------------------------------------------- sign

function looksLikeKeyText(s) {
  return /\n/.test(s) || /^untrusted comment:/.test(s) ||
    /-----BEGIN/.test(s) || s.length > 4096;
}

/**
 * Signs a pack directory or archive: `packsign sign --json`.  `key` is a
 * secret key file's path, or its bytes in a Buffer (or Uint8Array), which
 * is zeroed before sign() returns; `passphrase` likewise a Buffer.  A key
 * or passphrase is never taken from a string: strings cannot be wiped.
 * `keyless: true` signs without a key (`sign --keyless`): `identityToken`,
 * the OIDC token, is a Buffer too, zeroed likewise.
 */
async function sign(p, options) {
  const o = known(options, new Set(['key', 'passphrase', 'output',
    'identity', 'publicKey', 'sourceRepo', 'sourceCommit', 'allowDirty',
    'append', 'force', 'minisig', 'bundle', 'mtime', 'compression',
    'predicateVersion', 'tsaUrl', 'caFile', 'keyless', 'identityToken',
    'signingConfig', 'trustedRoot']), 'sign');
  const toBuffer = (v) => (Buffer.isBuffer(v) ? v : v instanceof Uint8Array ?
    Buffer.from(v.buffer, v.byteOffset, v.byteLength) : null);
  const keyData = o.key === undefined ? null : toBuffer(o.key);
  const pass = o.passphrase === undefined ? undefined : toBuffer(o.passphrase);
  const token = o.identityToken === undefined ? undefined :
    toBuffer(o.identityToken);
  const opts = { output: optionalPath(o.output, 'output'),
    identity: o.identity, publicKey: optionalPath(o.publicKey, 'publicKey'),
    sourceRepo: o.sourceRepo, sourceCommit: o.sourceCommit,
    allowDirty: o.allowDirty, append: o.append, force: o.force,
    minisig: o.minisig, bundle: o.bundle, mtime: o.mtime,
    compression: o.compression, predicateVersion: o.predicateVersion,
    tsaUrl: o.tsaUrl, caFile: optionalPath(o.caFile, 'caFile'),
    keyless: o.keyless, signingConfig: optionalPath(o.signingConfig,
      'signingConfig'), trustedRoot: optionalPath(o.trustedRoot,
      'trustedRoot') };
  try {
    if (pass === null) {
      throw fail('passphrase must be a Buffer, never a string');
    }
    if (token === null) {
      throw fail('identityToken must be a Buffer, never a string (it ' +
        'cannot be wiped)');
    }
    if (o.predicateVersion !== undefined && o.predicateVersion !== 1 &&
        o.predicateVersion !== 2) {
      throw fail('predicateVersion must be 1 or 2');
    }
    if (o.keyless === true) {
      if (o.key !== undefined || token === undefined) {
        throw fail('keyless signing takes an identityToken Buffer and no ' +
          'key');
      }
      opts.identityToken = token;
      return await native.sign(pathOf(p, 'path'), opts);
    }
    if (token !== undefined || o.signingConfig !== undefined ||
        o.trustedRoot !== undefined) {
      throw fail('identityToken, signingConfig and trustedRoot are for ' +
        'keyless: true');
    }
    if (keyData !== null) {
      opts.keyData = keyData;
    } else if ((typeof o.key === 'string' && !looksLikeKeyText(o.key)) ||
        o.key instanceof URL) {
      opts.keyPath = pathOf(o.key, 'key');
      // As the CLI's -s NAME.key: the identity from NAME.pub beside it
      // (ignored when absent).
      if (opts.publicKey === undefined && opts.keyPath.endsWith('.key')) {
        opts.publicKey = `${opts.keyPath.slice(0, -4)}.pub`;
      }
    } else {
      throw fail('key must be a secret key file\'s path or its bytes in a ' +
        'Buffer (key text in a string is refused: it cannot be wiped)');
    }
    if (pass !== undefined) {
      opts.passphrase = pass;
    }
    return await native.sign(pathOf(p, 'path'), opts);
  } finally {
    // Zeroed by the addon when it copied them; here as well when a
    // refusal came first.
    for (const b of [keyData, pass, token]) {
      if (b !== undefined && b !== null) {
        b.fill(0);
      }
    }
  }
}

// Names only (shorthand): Node's ESM loader finds the named exports of
// this CommonJS module by reading this literal (cjs-module-lexer).
const ABI_VERSION = native.version().headerAbi;

module.exports = {
  PacksignError,
  Index,
  CONSENT_CLASSES,
  FORMATS,
  ABI_VERSION,
  DEEP_BIND,
  libraryVersion,
  dataDirDefault,
  digest,
  validate,
  describe,
  verify,
  verifyInstalled,
  verifyBlob,
  diff,
  diffText,
  install,
  installUrl,
  fetch,
  list,
  uninstall,
  readIndex,
  verifyIndex,
  resolve,
  indexStateLoad,
  indexStateCheck,
  indexStateRecord,
  installIndexed,
  sign,
};

// The addon's file, for a packager that wants to know what to install
// (README, "Packaging").
Object.defineProperty(module.exports, 'addonPath', { value: ADDON });
