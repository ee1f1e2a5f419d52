// Type declarations of packsign, the Node.js binding of libpacksign.
//
// Results are the objects the CLI's --json prints for the same command
// (docs/packsign.1 lists their keys; snake_case, null for an absent
// value); options are camelCase.  test/types.test.mjs checks every
// interface here against the objects the calls return.
/// <reference types="node" />

export type Format = 'soyapack' | 'holon' | 'autograph' | 'agentpack';
export type ConsentClass = 'permissions' | 'trust' | 'prompts' | 'code';
/** A Date, seconds since the epoch, or RFC 3339 UTC text. */
export type Time = Date | number | string;
export type PathLike = string | URL;

export declare const CONSENT_CLASSES: readonly ConsentClass[];
export declare const FORMATS: readonly Format[];
/** The ABI number of packsign.h the addon was compiled with. */
export declare const ABI_VERSION: number;
/** The addon was opened RTLD_DEEPBIND: libpacksign's libraries bind to
 * their own zlib and libcrypto, not to copies linked into node. */
export declare const DEEP_BIND: boolean;
/** The path of the compiled addon (for packagers). */
export declare const addonPath: string;

/** A libpacksign error (docs/errors.md). */
export declare class PacksignError extends Error {
  readonly name: 'PacksignError';
  /** A stable code, ^[a-z][a-z0-9_]*$. */
  readonly code: string;
  /** 1: the input was examined and refused; 2: the job could not be done. */
  readonly exit: 1 | 2;
  /** The path or object concerned. */
  readonly subject: string;
  /** What was checked (the CLI's "message"). */
  readonly detail: string;
  /** The value expected, '' when there is none. */
  readonly expected: string;
  /** The value found, '' when there is none. */
  readonly found: string;
  /** The partial result of install, sign, an aborted fetch or a refused
   * verifyBlob. */
  readonly result?: InstallResult | SignResult | VerifyResult | BlobResult;
}

export interface LibraryVersion {
  library: string;
  abi: number;
  header: string;
  headerAbi: number;
  napi: number;
}

export interface Diagnostic {
  file: string | null;
  line: number;
  column: number;
  severity: 'error' | 'warning';
  code: string;
  message: string | null;
}

/** The refusal fields of a result: ok, exit and the error's fields. */
export interface Outcome {
  ok: boolean;
  exit: 0 | 1 | 2;
  code: string | null;
  subject: string | null;
  message: string | null;
  expected: string | null;
  found: string | null;
}

export interface DigestFile {
  path: string;
  size: number;
  sha256: string;
  executable: boolean;
}

/** `packsign digest --json`. */
export interface DigestResult {
  path: string;
  source: 'directory' | 'tar' | 'zip';
  format: Format | 'unknown';
  tree_digest: string;
  tar_digest: string | null;
  archive_digest: string | null;
  canonical: boolean | null;
  manifest: { path: string | null; sha256: string };
  entries: number;
  size: number;
  id: string | null;
  version: string | null;
  prompts: { path: string; sha256: string }[];
  /** With `files: true` only. */
  files?: DigestFile[];
}

/** `packsign validate --json`. */
export interface ValidateResult {
  path: string;
  valid: boolean;
  format: Format | null;
  id: string | null;
  version: string | null;
  errors: number;
  warnings: number;
  diagnostics: Diagnostic[];
}

export interface VerifySignature {
  index: number;
  keyid: string | null;
  fingerprint: string | null;
  identity: string | null;
  counted: boolean;
  code: string | null;
  reason: string | null;
  /** From a Sigstore bundle with verified log entries or timestamps: how
   * many, and the signing times they prove. */
  sigstore?: { log_entries: number; timestamps: number;
    signing_times: (string | null)[] };
  /** A keyless signature: what its certificate certifies. */
  keyless?: VerifyKeyless;
}

/** What a keyless signature's certificate certifies (Fulcio's
 * extensions); null where the certificate lacks one. */
export interface VerifyKeyless {
  signer_id: string;
  issuer: string | null;
  subject: string | null;
  repository: string | null;
  repository_id: string | null;
  owner_id: string | null;
  ref: string | null;
  commit: string | null;
  signer_workflow: string | null;
  config_workflow: string | null;
  trigger: string | null;
  runner: string | null;
  run_uri: string | null;
  authority: string | null;
  /** The root file it verified under; null: the public-good root. */
  trusted_root: string | null;
  reusable_workflow: boolean;
  signing_time: string | null;
  /** The line of the policy's keyless entry it matched. */
  policy_line: number;
}

export interface VerifySource {
  repository: string | null;
  commit: string | null;
  path: string | null;
  dirty: boolean;
  manifest_ref: string | null;
  /** The source is the certificate's (none recorded by the signer). */
  certified: boolean;
  /** The recorded source equals the certificate's. */
  certificate_checked: boolean;
}

/** How the archive was read (docs/security.md, section 5). */
export type ArchiveRead = 'lease' | 'memory copy' | 'file copy' |
  'read again' | 'private copy' | 'chunks';

/** What a verification learned (install's `verify`). */
export interface Verification {
  sig: string | null;
  format: Format | null;
  id: string | null;
  version: string | null;
  name: string | null;
  threshold: number;
  identities: { identity: string | null; fingerprint: string }[];
  signatures: VerifySignature[];
  digests: { archive: string | null; tar: string | null; tree: string | null };
  source: VerifySource | null;
  prompt_files: number;
  checks: { directory: boolean; subject: boolean; tree: boolean;
    canonical: boolean; deep: boolean; ceilings: boolean; source: boolean;
    rebuild: boolean };
  /** how: null when not read (a directory); lease_declined: why no read
   * lease was used, or null. */
  read: { how: ArchiveRead | null; lease_declined: string | null };
}

/** One of `packsign verify --json`'s results.  When nothing could be read
 * (a missing archive) only path and the outcome are set. */
export interface VerifyResult extends Outcome, Partial<Verification> {
  path: string;
  warnings?: Diagnostic[];
  /** fetch(): the URL downloaded. */
  url?: string;
}

export interface DiffChange {
  group: 'trust' | 'permissions' | 'prompts' | 'code' | 'other';
  field: string;
  subject: string | null;
  kind: 'added' | 'removed' | 'changed';
  old: string | null;
  new: string | null;
  widening: boolean;
  consent: ConsentClass | null;
  text?: { diff: string; lines_added: number; lines_removed: number;
    truncated: boolean };
}

/** `packsign diff --json` (docs/formats/diff.md); diffText() gives its
 * exact text, which acceptDiff compares byte for byte. */
export interface Diff {
  packsign_diff: 1;
  format: Format;
  id: string;
  old_version: string;
  new_version: string;
  trusted: boolean;
  widening: ConsentClass[];
  files: { added: number; removed: number; changed: number };
  changes: DiffChange[];
}

/** What confirm and consent are shown before anything is installed. */
export interface InstallPlan {
  format: Format;
  id: string | null;
  version: string | null;
  name: string | null;
  domain: string | null;
  summary: string[];
  destination: string | null;
  signer: string | null;
  replaces_newest: string | null;
  warnings: Diagnostic[];
  /** An upgrade's diff against replaces_newest; null on a first install. */
  diff: Diff | null;
  /** The widening classes the policy asks consent for. */
  consent_needed: ConsentClass[];
}

/** `packsign install --json`. */
export interface InstallResult extends Outcome {
  archive: string;
  data_dir: string;
  action: 'installed' | 'already_installed' | 'dry_run' | null;
  format?: Format | null;
  id?: string | null;
  version?: string | null;
  name?: string | null;
  domain?: string | null;
  path?: string | null;
  receipt?: string | null;
  tree_digest?: string | null;
  files?: number | null;
  size?: number | null;
  summary?: string[];
  verify?: Verification | null;
  warnings?: Diagnostic[];
  pinned?: boolean;
  upgrade?: { from: string; consent_needed: ConsentClass[];
    consent_by: string | null; diff: Diff | null } | null;
}

/** One installed pack (`packsign list --json`'s packs, uninstall's removed). */
export interface Installed {
  format: Format;
  id: string | null;
  version: string | null;
  name: string | null;
  domain: string | null;
  newest: boolean;
  path: string | null;
  receipt: string | null;
  sig: string | null;
  signer: string | null;
  fingerprint: string | null;
  source: { repository: string | null; commit: string | null };
  permissions: string | null;
  archive: string | null;
  digests: { archive: string; tree: string };
  installed_at: string | null;
  files: number;
}

export interface Pins {
  version: string | null;
  signers: { identity: string | null; fingerprint: string | null }[];
  source_repository: string | null;
}

export interface ListedPack extends Installed {
  /** The id's pins, on its newest version. */
  pins: Pins | null;
}

/** `packsign uninstall --json`. */
export interface UninstallResult extends Outcome {
  data_dir: string;
  removed: Installed[];
  pins_forgotten: boolean;
}

/** `packsign verify --installed PATH --json`'s result. */
export interface InstalledCheckResult extends Outcome {
  path: string;
  receipt: Installed | null;
  check: { modified: string[]; added: string[]; missing: string[];
    tree_digest: string | null; signature_checked: boolean } | null;
}

/** An entry of an index (`packsign index verify --json`'s packs). */
export interface IndexEntry {
  format: Format;
  id: string;
  version: string;
  url: string;
  archive_digest: string;
  size: number;
  yanked: string | null;
}

/** What a data directory has seen of a publisher's index. */
export interface IndexSeen {
  version: number;
  index_sha256: string;
  first_seen: string | null;
}

/** `packsign sign --json`. */
export interface SignResult {
  archive: string | null;
  sig: string | null;
  minisig: string | null;
  archive_written: boolean;
  format: Format;
  id: string | null;
  version: string | null;
  tree_digest: string;
  archive_digest: string;
  source: VerifySource | null;
  prompts: number;
  identity: string | null;
  fingerprint: string;
  signatures: number;
  bundles: string[];
  /** The predicateOut file written, or null (sign --predicate-out). */
  predicate: string | null;
  /** On a refusal (error.result) only. */
  diagnostics?: Diagnostic[];
}

export interface TrustOptions {
  /** A trust policy file (--trust). */
  trust?: PathLike;
  /** One public key file, as -p takes it. */
  publicKey?: PathLike;
}

export interface VerifyChecks extends TrustOptions {
  sigPath?: PathLike;
  signedBy?: string;
  sourceRepo?: string;
  sourceCommit?: string;
  requireSource?: boolean;
  allowDirty?: boolean;
  at?: Time;
}

export interface VerifyOptions extends VerifyChecks {
  rebuildFrom?: PathLike;
  deep?: boolean;
  /** Sigstore bundles to read instead of the .sig (verify --bundle). */
  bundles?: PathLike[];
  /** With bundles: the Sigstore trusted root their log entries and
   * timestamps are verified against (--trusted-root; default: the
   * compiled-in public-good root). */
  trustedRoot?: PathLike;
}

/** verifyBlob's options, as `packsign verify-blob` takes them: identity
 * and issuer (keyless), or key. */
export interface VerifyBlobOptions {
  /** The Sigstore bundle (--bundle). */
  bundle: PathLike;
  /** The certificate's subject alternative name, exactly
   * (--certificate-identity). */
  identity?: string;
  /** The OIDC issuer, exactly (--certificate-oidc-issuer). */
  issuer?: string;
  /** A PEM public key for a key-based bundle (--key). */
  key?: PathLike;
  /** A trusted_root.json (--trusted-root); default: the compiled-in
   * public-good root. */
  trustedRoot?: PathLike;
  /** The present (--at): a signing time after it is refused. */
  at?: Time;
  /** With artifact null: the artifact's SHA-256, 64 hex digits
   * (sha256:HEX). */
  sha256?: string;
}

export interface BlobLogEntry {
  log_url: string | null;
  log_id: string;
  log_index: number;
  kind: string;
  version: string;
  rekor_version: number;
  inclusion_promise_verified: boolean;
  integrated_time: string | null;
  inclusion_proof_verified: boolean;
  tree_size: number | null;
  root_hash: string | null;
  checkpoint_origin: string | null;
}

export interface BlobTimestamp {
  verified: boolean;
  time: string | null;
  nanoseconds: number;
  authority: string | null;
  code: string | null;
  reason: string | null;
}

/** The signing certificate's fields of Fulcio's OID registry
 * (docs/formats/sigstore.md, section 7.3), null when it lacks one. */
export interface CertificateFields {
  github_workflow_trigger: string | null;
  github_workflow_sha: string | null;
  github_workflow_name: string | null;
  github_workflow_repository: string | null;
  github_workflow_ref: string | null;
  build_signer_uri: string | null;
  build_signer_digest: string | null;
  runner_environment: string | null;
  source_repository_uri: string | null;
  source_repository_digest: string | null;
  source_repository_ref: string | null;
  source_repository_identifier: string | null;
  source_repository_owner_uri: string | null;
  source_repository_owner_identifier: string | null;
  build_config_uri: string | null;
  build_config_digest: string | null;
  build_trigger: string | null;
  run_invocation_uri: string | null;
  source_repository_visibility: string | null;
}

export interface BlobCertificate {
  san: string | null;
  san_type: string | null;
  issuer: string | null;
  extensions: {
    fields: CertificateFields;
    all: { oid: string; value: string | null }[];
  };
  not_before: string;
  not_after: string;
  serial: string;
  sha256: string;
  authority: string | null;
  ct_log: string | null;
  /** Milliseconds since the epoch. */
  sct_time: number | null;
}

/** `packsign verify-blob --json`.  The evidence (steps ... signing_times)
 * is there as far as verification got; absent when the bundle could not
 * be read at all. */
export interface BlobResult extends Outcome {
  artifact: string;
  bundle: string;
  trusted_root: { name: string | null; public_good: boolean };
  steps?: { shape: boolean; log_entries: boolean; timestamps: boolean;
    signing_times: boolean; certificate: boolean; identity: boolean;
    signature: boolean };
  bundle_version?: number;
  verification_material?: 'certificate' | 'public_key';
  content?: 'message_signature' | 'dsse_envelope';
  payload_type?: string | null;
  artifact_sha256?: string | null;
  key?: { details: string; sha256: string } | null;
  certificate?: BlobCertificate | null;
  log_entries?: BlobLogEntry[];
  timestamps?: BlobTimestamp[];
  signing_times?: string[];
}

export interface FetchOptions {
  /** A PEM CA bundle replacing the system's. */
  caFile?: PathLike;
  /** No proxy is read from the environment: pass https_proxy here. */
  proxy?: string;
  noProxy?: string;
  sigUrl?: string;
  maxDownload?: number;
  connectTimeout?: number;
  lowSpeedTime?: number;
  timeout?: number;
}

export interface InstallOptions extends VerifyChecks {
  /** Default: dataDirDefault(). */
  dataDir?: PathLike;
  allowShell?: boolean;
  allowDowngrade?: boolean;
  dryRun?: boolean;
  lang?: 'en' | 'zh';
  /** Asked before the tree is put in place: true installs. */
  confirm?: (plan: InstallPlan) => boolean | Promise<boolean>;
  /** Asked for an upgrade's widening: only `true` consents. */
  consent?: (plan: InstallPlan) => boolean | Promise<boolean>;
  /** Called once when another run holds the data directory's lock. */
  waiting?: (lockPath: string) => void | Promise<void>;
  /** Widening classes accepted up front (--accept). */
  accept?: ConsentClass[] | string;
  /** The exact diff accepted (--accept-diff): a diff() object or its text. */
  acceptDiff?: Diff | string | Buffer;
  /** What the receipt records when consent accepts; default "callback". */
  consentBy?: string;
  allowSignerChange?: boolean;
  allowSourceChange?: boolean;
  now?: Time;
  /** Aborts a download, a pending callback, or the install before its
   * tree is put in place. */
  signal?: AbortSignal;
}

export interface InstallFileOptions extends InstallOptions {
  /** install() only: read the archive from this descriptor (a pipe too;
   * never closed) as `install - --sig F` does; the archive argument then
   * only names it and sigPath is required. */
  archiveFd?: number;
  /** install() only: the archive's bytes from a Readable (or any async
   * iterable), piped to the library as archiveFd is; sigPath required. */
  archiveStream?: AsyncIterable<Uint8Array>;
}

export interface InstallUrlOptions extends InstallOptions {
  fetch?: FetchOptions;
}

export interface InstallIndexedOptions extends InstallUrlOptions {
  allowYanked?: boolean;
  requireState?: boolean;
  recordState?: boolean;
}

interface SignCommon {
  output?: PathLike;
  sourceRepo?: string;
  sourceCommit?: string;
  allowDirty?: boolean;
  force?: boolean;
  mtime?: number;
  compression?: 'none' | 'gzip' | 'zstd';
  /** 2 (the default): the archive's 1 MiB chunk digests; 1: for older
   * verifiers. */
  predicateVersion?: 1 | 2;
  /** Also write the statement's predicate (JSON) to this file, for
   * another tool to attest the archive with (sign --predicate-out). */
  predicateOut?: PathLike;
  /** PEM CA bundle for the TSA and the keyless services. */
  caFile?: PathLike;
}

export interface KeySignOptions extends SignCommon {
  /** A minisign secret key file's path, or its bytes (zeroed before
   * sign() returns).  Key text in a string is refused. */
  key: PathLike | Buffer | Uint8Array;
  /** An encrypted key's passphrase (its first line), zeroed likewise. */
  passphrase?: Buffer | Uint8Array;
  identity?: string;
  /** NAME.pub for the identity; default NAME.pub beside NAME.key. */
  publicKey?: PathLike;
  append?: boolean;
  minisig?: boolean;
  bundle?: boolean;
  /** With bundle: an RFC 3161 timestamp authority's https URL. */
  tsaUrl?: string;
  keyless?: false;
}

/** `sign --keyless`: an ephemeral key certified by Fulcio, logged by
 * Rekor; the signature lives in OUT.1.sigstore.json only. */
export interface KeylessSignOptions extends SignCommon {
  keyless: true;
  /** The OIDC token's bytes (zeroed before sign() returns); never a
   * string. */
  identityToken: Buffer | Uint8Array;
  /** signing_config.json v0.2; default the public-good services. */
  signingConfig?: PathLike;
  /** The trusted_root.json the new bundle is verified against. */
  trustedRoot?: PathLike;
}

export type SignOptions = KeySignOptions | KeylessSignOptions;

export type DiffSide = PathLike | { installed: string; version?: string;
  format?: Format } | { installedPath: PathLike };

/** A verified index: the fields `packsign index verify --json` prints of
 * the index itself.  close() frees it (else the garbage collector does). */
export declare class Index {
  readonly publisher: string;
  readonly version: number;
  readonly issued: string;
  readonly expires: string;
  readonly fingerprint: string;
  readonly index_sha256: string;
  readonly packs: IndexEntry[];
  private constructor();
  resolve(id: string, spec?: string, options?: { allowYanked?: boolean }):
    IndexEntry;
  close(): void;
}

export declare function libraryVersion(): LibraryVersion;
export declare function dataDirDefault(): string;
export declare function digest(path: PathLike,
  options?: { mtime?: number; files?: boolean }): Promise<DigestResult>;
export declare function validate(path: PathLike, options?: { strict?: boolean;
  format?: Format; engineVersion?: string }): Promise<ValidateResult>;
export declare function describe(path: PathLike,
  options?: { lang?: 'en' | 'zh' }): Promise<string>;
export declare function verify(path: PathLike, options: VerifyOptions):
  Promise<VerifyResult>;
/** Resolves when the bundle verified; rejects with a PacksignError (its
 * result the same report) otherwise. */
export declare function verifyBlob(artifact: PathLike | null,
  options: VerifyBlobOptions): Promise<BlobResult>;
export declare function verifyInstalled(path: PathLike, options?:
  TrustOptions & { at?: Time }): Promise<InstalledCheckResult>;
export declare function diff(oldSide: DiffSide, newSide: DiffSide,
  options?: TrustOptions & { dataDir?: PathLike; lines?: number; at?: Time }):
  Promise<Diff>;
export declare function diffText(diff: Diff): string;
export declare function install(archive: PathLike, options: InstallFileOptions):
  Promise<InstallResult>;
export declare function installUrl(url: string, options: InstallUrlOptions):
  Promise<InstallResult>;
export declare function fetch(url: string, file: PathLike,
  options: VerifyChecks & { fetch?: FetchOptions; signal?: AbortSignal }):
  Promise<VerifyResult>;
export declare function list(dataDir?: PathLike): Promise<ListedPack[]>;
export declare function uninstall(id: string, options?: { version?: string;
  dataDir?: PathLike; format?: Format; forget?: boolean }):
  Promise<UninstallResult>;
export declare function readIndex(fileOrUrl: PathLike, options?:
  { fetch?: FetchOptions; signal?: AbortSignal }): Promise<Buffer>;
export declare function verifyIndex(data: Buffer | PathLike, options:
  TrustOptions & { at?: Time; allowExpired?: boolean; label?: string;
    fetch?: FetchOptions }): Promise<Index>;
export declare function resolve(index: Index, id: string, spec?: string,
  options?: { allowYanked?: boolean }): IndexEntry;
export declare function indexStateLoad(dataDir: PathLike, publisher: string):
  Promise<IndexSeen | null>;
export declare function indexStateCheck(seen: IndexSeen | null,
  index: Index): void;
export declare function indexStateRecord(dataDir: PathLike, index: Index,
  options?: { now?: Time }): Promise<boolean>;
export declare function installIndexed(index: Index, entry: IndexEntry,
  options: InstallIndexedOptions): Promise<InstallResult>;
export declare function sign(path: PathLike, options: SignOptions):
  Promise<SignResult>;
