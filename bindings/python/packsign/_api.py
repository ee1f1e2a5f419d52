"""The implementation of the packsign package (packsign/__init__.py
re-exports exactly the names of __all__).

A thin layer over libpacksign (the shared library, soname
libpacksign.so.1) through cffi in ABI mode: every call is one or a few
functions of include/packsign.h, nothing is implemented twice.  Results are
plain dataclasses: the C objects behind them are copied out and freed
before a function returns, except `Index`, which keeps the verified index
for resolve/install and is freed by `close()` or its `with` block.

Errors raise `PacksignError` (code, exit 1 refused / 2 failed, subject,
message, expected, found).  `verify()` returns its result instead, with
`ok` False on a refusal; `VerifyResult.check()` raises.

Thread safety: as libpacksign's (bindings/python/README.md): calls may run
from several threads at once on different data directories and objects;
cffi releases the GIL during each C call.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from ._cdef import ABI_VERSION
from ._lib import LibraryError, load

__all__ = [
    "ABI_VERSION", "LibraryError", "PacksignError", "Digest", "Entry",
    "Diagnostic", "Validation", "Signer", "Signature", "Source",
    "VerifyResult", "Change", "Diff", "Installed", "InstalledRef",
    "InstalledCheck", "InstallPlan", "ConsentRecord", "InstallResult",
    "FetchOptions", "Index", "IndexEntry", "IndexSeen", "KeyPair",
    "SignResult", "digest", "validate", "describe", "pack", "keygen",
    "sign", "sign_keyless", "verify", "verify_installed", "install",
    "install_url",
    "fetch", "list_installed", "list", "uninstall", "diff",
    "data_dir_default", "read_index", "verify_index", "index_state_load",
    "index_state_check", "index_state_record", "install_indexed",
    "library_version", "CONSENT_CLASSES", "LogEntry", "Timestamp",
    "Certificate", "BlobResult", "verify_blob", "SIGSTORE_STEPS",
    "CERTIFICATE_FIELDS", "Keyless",
]

PathLike = Union[str, "os.PathLike[str]"]
Time = Union[int, _dt.datetime, None]

FORMATS = ["unknown", "soyapack", "holon", "autograph", "agentpack"]
CONSENT_CLASSES = {"permissions": 0x1, "trust": 0x2, "prompts": 0x4,
                   "code": 0x8}
DIFF_GROUPS = ["trust", "permissions", "prompts", "code", "other"]
DIFF_KINDS = ["added", "removed", "changed"]


def library_version() -> str:
    """ps_version() of the loaded library ("0.1.0")."""
    ffi, lib = load()
    return ffi.string(lib.ps_version()).decode()


# ------------------------------------------------------------ conversions

def _s(ffi, p) -> Optional[str]:
    """A C string (char * or char array) as str; None for NULL."""
    if p == ffi.NULL:
        return None
    return ffi.string(p).decode("utf-8", "surrogateescape")


def _sa(ffi, arr) -> str:
    """A char array field as str ("" when empty)."""
    return ffi.string(arr).decode("utf-8", "surrogateescape")


def _b(text: Optional[Union[str, bytes, PathLike]]) -> Any:
    """str, bytes or a path as a NUL-terminated char[] cffi accepts."""
    if text is None:
        return None
    if isinstance(text, bytes):
        return text
    if isinstance(text, str):
        return text.encode("utf-8", "surrogateescape")
    return os.fsencode(text)


def _hex(ffi, arr, n: int = 32) -> str:
    return "sha256:" + bytes(ffi.buffer(arr, n)).hex()


def _time(t: Time) -> Optional[int]:
    if t is None:
        return None
    if isinstance(t, _dt.datetime):
        if t.tzinfo is None:
            raise ValueError("a datetime needs a time zone")
        return int(t.timestamp())
    return int(t)


def _classes(bits: int) -> List[str]:
    return [n for n, b in CONSENT_CLASSES.items() if bits & b]


def _bits(classes: Union[int, Iterable[str], None]) -> int:
    if classes is None:
        return 0
    if isinstance(classes, int):
        return classes
    if isinstance(classes, str):
        classes = [c.strip() for c in classes.split(",") if c.strip()]
    out = 0
    for c in classes:
        if c not in CONSENT_CLASSES:
            raise ValueError(f"unknown consent class {c!r} (one of "
                             f"{', '.join(CONSENT_CLASSES)})")
        out |= CONSENT_CLASSES[c]
    return out


def _format_value(name: Optional[str]) -> int:
    if name is None:
        return 0
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}")
    return FORMATS.index(name)


# ----------------------------------------------------------------- errors

class PacksignError(Exception):
    """A libpacksign error: `code` (docs/errors.md), `exit` (1 the input
    was refused, 2 the job could not be done), `subject`, `message`,
    `expected`, `found` ("" when there is no value).  `result` holds the
    partial result of verify/install when there is one."""

    def __init__(self, code: str, exit: int, subject: str = "",
                 message: str = "", expected: str = "", found: str = "",
                 line: str = "", result: Any = None) -> None:
        super().__init__(line or f"{subject}: {message} [{code}]")
        self.code = code
        self.exit = exit
        self.subject = subject
        self.message = message
        self.expected = expected
        self.found = found
        self.result = result

    @classmethod
    def _from(cls, ffi, lib, err, result: Any = None) -> "PacksignError":
        buf = ffi.new("char[]", 4096)
        lib.ps_error_format(err, buf, 4096)
        return cls(_sa(ffi, err.code), int(err.status) or 2,
                   _sa(ffi, err.subject), _sa(ffi, err.message),
                   _sa(ffi, err.expected), _sa(ffi, err.found),
                   _sa(ffi, buf), result)


def _check(ffi, lib, rc: int, err) -> None:
    if rc != 0:
        raise PacksignError._from(ffi, lib, err)


class _Trust:
    """A loaded trust policy (a policy file, or one public key as -p
    does), freed when the block ends."""

    def __init__(self, trust: Optional[PathLike],
                 public_key: Optional[PathLike]) -> None:
        if (trust is None) == (public_key is None):
            raise ValueError("give exactly one of trust= (a policy file) "
                             "and public_key= (a .pub file)")
        self.trust, self.public_key = trust, public_key
        self.ptr = None

    def __enter__(self):
        ffi, lib = load()
        err = ffi.new("ps_error *")
        out = ffi.new("ps_trust **")
        if self.trust is not None:
            _check(ffi, lib, lib.ps_trust_load_file(_b(self.trust), out, err),
                   err)
        else:
            key = ffi.new("ps_pubkey **")
            _check(ffi, lib, lib.ps_pubkey_load_file(_b(self.public_key), key,
                                                     err), err)
            try:
                name = _b("-p " + os.fsdecode(self.public_key))
                _check(ffi, lib, lib.ps_trust_from_pubkey(key[0], name, out,
                                                          err), err)
            finally:
                lib.ps_pubkey_free(key[0])
        self.ptr = out[0]
        return self.ptr

    def __exit__(self, *exc) -> None:
        _, lib = load()
        lib.ps_trust_free(self.ptr)
        self.ptr = None


# ---------------------------------------------------------------- digests

@dataclass
class Entry:
    """One file or empty directory of a pack."""
    path: str
    type: str                   # "file" or "dir"
    executable: bool
    size: int
    sha256: Optional[str]       # None for directories


@dataclass
class Digest:
    """The digests of a pack (docs/formats/digests.md)."""
    source: str                 # "directory", "tar", "zip"
    format: str
    manifest_path: Optional[str]
    manifest_sha256: str
    tree_digest: str
    tar_digest: Optional[str]
    archive_digest: Optional[str]
    canonical: bool
    total_size: int
    entries: List[Entry]


def _entries(ffi, arr, n: int) -> List[Entry]:
    out = []
    for i in range(n):
        e = arr[i]
        is_file = e.type == 0
        out.append(Entry(_s(ffi, e.path), "file" if is_file else "dir",
                         bool(e.executable), int(e.size),
                         _hex(ffi, e.sha256) if is_file else None))
    return out


def digest(path: PathLike, *, mtime: int = 0) -> Digest:
    """ps_digest_path(): the tree, tar and archive digests of a pack
    directory or archive."""
    ffi, lib = load()
    err = ffi.new("ps_error *")
    opts = ffi.new("ps_pack_options *")
    lib.ps_pack_options_init(opts)
    opts.mtime = mtime
    out = ffi.new("ps_digest **")
    _check(ffi, lib, lib.ps_digest_path(_b(path), opts, out, err), err)
    try:
        return _digest(ffi, out[0])
    finally:
        lib.ps_digest_free(out[0])


def _digest(ffi, d) -> Digest:
    return Digest(
        ["directory", "tar", "zip"][d.source], FORMATS[d.format],
        _s(ffi, d.manifest_path), _hex(ffi, d.manifest_sha256),
        _hex(ffi, d.tree_digest),
        _hex(ffi, d.tar_digest) if d.has_tar_digest else None,
        _hex(ffi, d.archive_digest) if d.has_archive_digest else None,
        bool(d.canonical), int(d.total_size),
        _entries(ffi, d.entries, d.entry_count))


# ------------------------------------------------------------- validation

@dataclass
class Diagnostic:
    """One problem: FILE:LINE:COL: error|warning: MESSAGE [CODE]."""
    severity: str               # "error" or "warning"
    file: Optional[str]
    line: int
    column: int
    code: str
    message: str
    text: str                   # the one-line form


@dataclass
class Validation:
    """What validate() found."""
    valid: bool
    format: str
    id: Optional[str]
    version: Optional[str]
    name: Optional[str]
    diagnostics: List[Diagnostic]


def _diags(ffi, lib, diags) -> List[Diagnostic]:
    out = []
    buf = ffi.new("char[]", 4096)
    for i in range(diags.count):
        d = diags.items[i]
        lib.ps_diag_format(ffi.addressof(diags.items[i]), buf, 4096)
        out.append(Diagnostic("error" if d.severity == 0 else "warning",
                              _s(ffi, d.file), d.line, d.column,
                              _sa(ffi, d.code), _s(ffi, d.message) or "",
                              _sa(ffi, buf)))
    return out


def _inspect(path: PathLike, strict: bool, format: Optional[str],
             engine_version: Optional[str]):
    ffi, lib = load()
    err = ffi.new("ps_error *")
    pack = ffi.new("ps_pack_options *")
    lib.ps_pack_options_init(pack)
    val = ffi.new("ps_validate_options *")
    lib.ps_validate_options_init(val)
    val.format = _format_value(format)
    val.strict = int(strict)
    ev = ffi.new("char[]", _b(engine_version)) if engine_version else ffi.NULL
    val.engine_version = ev
    out = ffi.new("ps_inspection **")
    _check(ffi, lib, lib.ps_inspect(_b(path), pack, val, out, err), err)
    return out[0]


def validate(path: PathLike, *, strict: bool = False,
             format: Optional[str] = None,
             engine_version: Optional[str] = None) -> Validation:
    """ps_inspect(): every rule of the pack's manifest format at once.
    Raises only when the pack cannot be read or is unsafe."""
    ffi, lib = load()
    insp = _inspect(path, strict, format, engine_version)
    try:
        m = insp.manifest
        diags = _diags(ffi, lib, insp.diags)
        valid = m != ffi.NULL and bool(
            lib.ps_manifest_valid(ffi.addressof(insp.diags), int(strict)))
        if m == ffi.NULL:
            return Validation(False, "unknown", None, None, None, diags)
        return Validation(valid, FORMATS[m.format], _s(ffi, m.id),
                          _s(ffi, m.version), _s(ffi, m.name), diags)
    finally:
        lib.ps_inspection_free(insp)


def describe(path: PathLike, *, lang: str = "en") -> str:
    """ps_manifest_describe(): what the pack may do in plain words, "en"
    or "zh", one sentence per line."""
    if lang not in ("en", "zh"):
        raise ValueError("lang is 'en' or 'zh'")
    ffi, lib = load()
    insp = _inspect(path, False, None, None)
    try:
        if insp.manifest == ffi.NULL:
            diags = _diags(ffi, lib, insp.diags)
            first = diags[0] if diags else None
            raise PacksignError(first.code if first else "manifest_invalid",
                                1, os.fsdecode(path),
                                first.message if first else
                                "no manifest could be read")
        err = ffi.new("ps_error *")
        text = ffi.new("char **")
        _check(ffi, lib, lib.ps_manifest_describe(
            insp.manifest, 1 if lang == "zh" else 0, text, err), err)
        try:
            return _s(ffi, text[0]) or ""
        finally:
            _free(ffi, text[0])
    finally:
        lib.ps_inspection_free(insp)


# ----------------------------------------------------------- verification

@dataclass
class Signer:
    """A trusted identity whose signature counted."""
    identity: str
    fingerprint: str


@dataclass
class Keyless:
    """What a keyless signature's certificate certifies (signature.md
    9.3): its stable signer id, issuer and subject, and Fulcio's
    extensions; None where the certificate lacks one.  Named as verify
    --json's signatures[i].keyless."""
    signer_id: str
    issuer: Optional[str]
    subject: Optional[str]
    repository: Optional[str]
    repository_id: Optional[str]
    owner_id: Optional[str]
    ref: Optional[str]
    commit: Optional[str]
    signer_workflow: Optional[str]
    config_workflow: Optional[str]
    trigger: Optional[str]
    runner: Optional[str]
    run_uri: Optional[str]
    authority: Optional[str]
    trusted_root: Optional[str]
    reusable_workflow: bool
    signing_time: Optional[_dt.datetime]
    policy_line: int


@dataclass
class Signature:
    """One signature of the envelope and what became of it; `keyless`
    for a keyless (certificate) bundle's."""
    index: int
    keyid: Optional[str]
    fingerprint: str
    identity: Optional[str]
    counted: bool
    code: str
    reason: Optional[str]
    # From a Sigstore bundle (verify(bundles=...)): its verified
    # transparency-log entries and RFC 3161 timestamps, and the signing
    # times they prove (signature.md 9.2); 0, 0, [] otherwise.
    log_entries: int = 0
    timestamps: int = 0
    signing_times: List[_dt.datetime] = field(default_factory=list)
    keyless: Optional[Keyless] = None


@dataclass
class Source:
    """The provenance the statement records; `certified` when the
    statement recorded none and it is a keyless certificate's,
    `certificate_checked` when it equals the one a certificate certifies
    (signature.md 6.5)."""
    repository: Optional[str]
    commit: Optional[str]
    path: Optional[str]
    dirty: bool
    certified: bool = False
    certificate_checked: bool = False


@dataclass
class VerifyResult:
    """What verification learned, as far as it got; `ok` False with the
    refusal's code, exit, message, expected and found otherwise."""
    ok: bool
    exit: int
    code: Optional[str]
    subject: str
    message: str
    expected: str
    found: str
    path: Optional[str]
    sig_path: Optional[str]
    format: str
    id: Optional[str]
    version: Optional[str]
    name: Optional[str]
    threshold: int
    signers: List[Signer]
    signatures: List[Signature]
    source: Optional[Source]
    prompt_count: int
    archive_digest: Optional[str]
    tar_digest: Optional[str]
    tree_digest: Optional[str]
    warnings: List[Diagnostic] = field(default_factory=list)
    error: Optional[PacksignError] = None
    # How the archive was read (docs/security.md section 5): "chunks",
    # "lease", "memory copy", "file copy", "read again", "private copy" or
    # None;
    # and why no read lease was taken, when one was tried and declined.
    archive_read: Optional[str] = None
    lease_declined: Optional[str] = None

    @property
    def read(self) -> Dict[str, Optional[str]]:
        """verify --json's "read": {"how": archive_read,
        "lease_declined": lease_declined}."""
        return {"how": self.archive_read,
                "lease_declined": self.lease_declined}

    def check(self) -> "VerifyResult":
        """Raises the refusal as PacksignError; returns self when ok."""
        if not self.ok and self.error is not None:
            raise self.error
        return self


def _keyless(ffi, k) -> Optional[Keyless]:
    if k == ffi.NULL:
        return None
    f = [_s(ffi, getattr(k, n)) for n in (
        "issuer", "subject", "repository", "repository_id", "owner_id",
        "ref", "commit", "signer_workflow", "config_workflow", "trigger",
        "runner", "run_uri", "authority", "trusted_root")]
    return Keyless(_sa(ffi, k.signer_id), *f, bool(k.reusable_workflow),
                   _utc(k.signing_time) if k.signing_time else None,
                   int(k.entry_line))


def _verify_result(ffi, lib, r, error: Optional[PacksignError]) -> VerifyResult:
    signers = [Signer(_s(ffi, r.identities[i].identity) or "",
                      _sa(ffi, r.identities[i].fingerprint))
               for i in range(r.identity_count)]
    sigs = []
    for i in range(r.signature_count):
        s = r.signatures[i]
        sigs.append(Signature(int(s.index), _s(ffi, s.keyid),
                              _sa(ffi, s.fingerprint), _s(ffi, s.identity),
                              bool(s.counted), _sa(ffi, s.code),
                              _s(ffi, s.reason), int(s.log_entry_count),
                              int(s.timestamp_count),
                              [_utc(s.signing_times[j])
                               for j in range(s.signing_time_count)],
                              _keyless(ffi, s.keyless)))
    source = None
    if r.has_source:
        source = Source(_s(ffi, r.source_repository),
                        _s(ffi, r.source_commit), _s(ffi, r.source_path),
                        bool(r.source_dirty), bool(r.source_certified),
                        bool(r.source_certificate_checked))
    e = error
    return VerifyResult(
        e is None, 0 if e is None else e.exit, None if e is None else e.code,
        "" if e is None else e.subject, "" if e is None else e.message,
        "" if e is None else e.expected, "" if e is None else e.found,
        _s(ffi, r.path), _s(ffi, r.sig_path), FORMATS[r.format],
        _s(ffi, r.id), _s(ffi, r.version), _s(ffi, r.name),
        int(r.threshold), signers, sigs, source, int(r.prompt_count),
        _hex(ffi, r.archive_digest) if r.has_archive_digest else None,
        _hex(ffi, r.tar_digest) if r.has_tar_digest else None,
        _hex(ffi, r.tree_digest) if r.has_tree_digest else None,
        _diags(ffi, lib, r.warnings), e,
        _ARCHIVE_READS.get(int(r.archive_read)), _s(ffi, r.lease_declined))


_ARCHIVE_READS = {1: "lease", 2: "memory copy", 3: "file copy",
                  4: "read again", 5: "private copy", 6: "chunks"}


def _empty_verify_result(error: PacksignError) -> VerifyResult:
    return VerifyResult(False, error.exit, error.code, error.subject,
                        error.message, error.expected, error.found, None,
                        None, "unknown", None, None, None, 0, [], [], None,
                        0, None, None, None, [], error)


def _fill_verify(ffi, opts, keep: list, trust_ptr, sig_path, signed_by,
                 source_repo, source_commit, require_source, allow_dirty,
                 rebuild_from, deep, at) -> None:
    def cstr(v):
        if v is None:
            return ffi.NULL
        p = ffi.new("char[]", _b(v))
        keep.append(p)
        return p
    opts.trust = trust_ptr
    opts.sig_path = cstr(sig_path)
    opts.signed_by = cstr(signed_by)
    opts.source_repo = cstr(source_repo)
    opts.source_commit = cstr(source_commit)
    opts.require_source = int(require_source)
    opts.allow_dirty = int(allow_dirty)
    opts.rebuild_from = cstr(rebuild_from)
    opts.deep = int(deep)
    if at is not None:
        opts.at = _time(at)


def verify(path: PathLike, *, trust: Optional[PathLike] = None,
           public_key: Optional[PathLike] = None,
           sig_path: Optional[PathLike] = None,
           signed_by: Optional[str] = None,
           source_repo: Optional[str] = None,
           source_commit: Optional[str] = None,
           require_source: bool = False, allow_dirty: bool = False,
           rebuild_from: Optional[PathLike] = None, deep: bool = False,
           at: Time = None, bundles: Optional[Iterable[PathLike]] = None,
           trusted_root: Optional[PathLike] = None) -> VerifyResult:
    """ps_verify(): the signed archive (or unpacked directory) at `path`
    against `trust` (a policy file) or `public_key` (one .pub file).
    `bundles`: Sigstore bundles (key-based or keyless, signature.md 9.2 and 9.3) to read the signatures from instead of the
    .sig (verify --bundle), their log entries and timestamps verified
    against `trusted_root` (verify --trusted-root; None: the compiled-in
    public-good root).  Returns the result whether or not verification
    passed; a policy, key or trusted root that cannot be loaded raises
    PacksignError."""
    bundle_list = [_b(b) for b in bundles] if bundles is not None else []
    if trusted_root is not None and not bundle_list:
        raise ValueError("trusted_root is for bundles")
    ffi, lib = load()
    root = _sigstore_root(ffi, lib, trusted_root) if trusted_root is not None \
        else ffi.NULL
    try:
        with _Trust(trust, public_key) as tp:
            keep: list = [ffi.new("char[]", b) for b in bundle_list]
            paths = ffi.new("const char *[]", keep) if keep else ffi.NULL
            opts = ffi.new("ps_verify_options *")
            lib.ps_verify_options_init(opts)
            _fill_verify(ffi, opts, keep, tp, sig_path, signed_by,
                         source_repo, source_commit, require_source,
                         allow_dirty, rebuild_from, deep, at)
            opts.bundle_paths, opts.bundle_count = paths, len(bundle_list)
            opts.sigstore_root = root
            err = ffi.new("ps_error *")
            out = ffi.new("ps_verify_result **")
            rc = lib.ps_verify(_b(path), opts, out, err)
            return _verify_outcome(ffi, lib, rc, out, err)
    finally:
        if root != ffi.NULL:
            lib.ps_sigstore_root_free(root)


def _verify_outcome(ffi, lib, rc, out, err, error=None):
    """The VerifyResult of a ps_verify()-shaped call, its C result freed;
    on a refusal the error carries it too."""
    if error is None and rc != 0:
        error = PacksignError._from(ffi, lib, err)
    if out[0] == ffi.NULL:
        assert error is not None
        return _empty_verify_result(error)
    try:
        res = _verify_result(ffi, lib, out[0], error)
    finally:
        lib.ps_verify_result_free(out[0])
    if error is not None:
        error.result = res
    return res


# --------------------------------------------------------------- sigstore

SIGSTORE_STEPS = ["shape", "log_entries", "timestamps", "signing_times",
                  "certificate", "identity", "signature"]
CERTIFICATE_FIELDS = [
    "github_workflow_trigger", "github_workflow_sha", "github_workflow_name",
    "github_workflow_repository", "github_workflow_ref", "build_signer_uri",
    "build_signer_digest", "runner_environment", "source_repository_uri",
    "source_repository_digest", "source_repository_ref",
    "source_repository_identifier", "source_repository_owner_uri",
    "source_repository_owner_identifier", "build_config_uri",
    "build_config_digest", "build_trigger", "run_invocation_uri",
    "source_repository_visibility"]


def _utc(t: int) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(t, _dt.timezone.utc)


@dataclass
class LogEntry:
    """A transparency-log entry that verified."""
    log_url: str
    log_id: str
    log_index: int
    kind: str
    version: str
    rekor_version: int
    inclusion_promise_verified: bool
    integrated_time: Optional[_dt.datetime]
    inclusion_proof_verified: bool
    tree_size: Optional[int]
    root_hash: Optional[str]
    checkpoint_origin: Optional[str]


@dataclass
class Timestamp:
    """An RFC 3161 timestamp of the bundle; a skipped one has its code and
    reason."""
    verified: bool
    time: Optional[_dt.datetime]
    authority: Optional[str]
    code: Optional[str]
    reason: Optional[str]


@dataclass
class Certificate:
    """The signing certificate: its SAN, OIDC issuer and Fulcio's
    extensions (`fields` by name, `extensions` every (OID, value))."""
    san: Optional[str]
    san_type: Optional[str]
    issuer: Optional[str]
    fields: Dict[str, Optional[str]]
    extensions: List[tuple]
    not_before: _dt.datetime
    not_after: _dt.datetime
    serial: str
    sha256: str
    authority: Optional[str]
    ct_log: Optional[str]


@dataclass
class BlobResult:
    """What ps_sigstore_verify() proved, as far as it got; `ok` False with
    the refusal otherwise (`check()` raises it)."""
    ok: bool
    exit: int
    code: Optional[str]
    message: str
    expected: str
    found: str
    steps: List[str]
    bundle_version: int
    keyless: bool
    dsse: bool
    payload_type: Optional[str]
    payload: Optional[bytes]
    artifact_sha256: Optional[str]
    key_details: Optional[str]
    key_sha256: Optional[str]
    certificate: Optional[Certificate]
    log_entries: List[LogEntry]
    timestamps: List[Timestamp]
    signing_times: List[_dt.datetime]
    error: Optional[PacksignError] = None

    def check(self) -> "BlobResult":
        """Raises the refusal as PacksignError; returns self when ok."""
        if not self.ok and self.error is not None:
            raise self.error
        return self


def _log_entry(ffi, e) -> LogEntry:
    return LogEntry(
        _s(ffi, e.log_url) or "", _sa(ffi, e.log_id), int(e.log_index),
        _sa(ffi, e.kind), _sa(ffi, e.version), int(e.rekor_version),
        bool(e.set_verified),
        _utc(e.integrated_time) if e.has_integrated_time else None,
        bool(e.proof_verified),
        int(e.tree_size) if e.proof_verified else None,
        _sa(ffi, e.root_hash) if e.proof_verified else None,
        _s(ffi, e.checkpoint_origin))


def _timestamp(ffi, t) -> Timestamp:
    ok = bool(t.verified)
    return Timestamp(
        ok, _utc(t.time) + _dt.timedelta(microseconds=t.nanoseconds // 1000)
        if ok else None, _s(ffi, t.authority),
        None if ok else _sa(ffi, t.code), _s(ffi, t.reason))


def _certificate(ffi, c) -> Optional[Certificate]:
    if c.san == ffi.NULL:
        return None
    return Certificate(
        _s(ffi, c.san), _s(ffi, c.san_type), _s(ffi, c.issuer),
        {n: _s(ffi, getattr(c, n)) for n in CERTIFICATE_FIELDS},
        [(_sa(ffi, c.extensions[i].oid), _s(ffi, c.extensions[i].value))
         for i in range(c.extension_count)],
        _utc(c.not_before), _utc(c.not_after), _sa(ffi, c.serial),
        _sa(ffi, c.sha256), _s(ffi, c.authority), _s(ffi, c.ct_log))


def _blob_result(ffi, r, error: Optional[PacksignError]) -> BlobResult:
    e = error
    payload = None
    if r.payload != ffi.NULL:
        payload = bytes(ffi.buffer(r.payload, r.payload_len))
    return BlobResult(
        e is None, 0 if e is None else e.exit, None if e is None else e.code,
        "" if e is None else e.message, "" if e is None else e.expected,
        "" if e is None else e.found,
        [n for i, n in enumerate(SIGSTORE_STEPS) if r.steps & (1 << i)],
        int(r.bundle_version), bool(r.keyless), bool(r.dsse),
        _s(ffi, r.payload_type), payload,
        _sa(ffi, r.artifact_sha256) or None, _sa(ffi, r.key_details) or None,
        _sa(ffi, r.key_sha256) or None,
        _certificate(ffi, r.certificate) if r.keyless else None,
        [_log_entry(ffi, r.log_entries[i]) for i in range(r.log_entry_count)],
        [_timestamp(ffi, r.timestamps[i]) for i in range(r.timestamp_count)],
        [_utc(r.signing_times[i]) for i in range(r.signing_time_count)], e)


def _sigstore_root(ffi, lib, trusted_root):
    out = ffi.new("ps_sigstore_root **")
    err = ffi.new("ps_error *")
    if trusted_root is None:
        rc = lib.ps_sigstore_root_public_good(out, err)
    else:
        rc = lib.ps_sigstore_root_load(_b(trusted_root), out, err)
    _check(ffi, lib, rc, err)
    return out[0]


def verify_blob(artifact: Optional[PathLike], bundle: PathLike, *,
                sha256: Optional[str] = None,
                identity: Optional[str] = None,
                issuer: Optional[str] = None,
                key: Optional[PathLike] = None,
                trusted_root: Optional[PathLike] = None,
                at: Time = None) -> BlobResult:
    """ps_sigstore_verify(): the Sigstore bundle at `bundle` over the file
    `artifact` (or, with artifact None, the artifact whose SHA-256 is the
    hex `sha256`), keyless against `identity` (the certificate's SAN) and
    `issuer` (its OIDC issuer), both exactly, or key-based against `key`
    (a PEM public key file); `trusted_root` a trusted_root.json (None: the
    compiled-in public-good root).  Returns the result whether or not
    verification passed; a trusted root that cannot be loaded raises."""
    if (artifact is None) == (sha256 is None):
        raise ValueError("give artifact or sha256, not both")
    if (key is None) == (identity is None or issuer is None):
        raise ValueError("give identity and issuer, or key")
    ffi, lib = load()
    root = _sigstore_root(ffi, lib, trusted_root)
    try:
        keep: list = []
        opts = ffi.new("ps_sigstore_options *")
        lib.ps_sigstore_options_init(opts)
        opts.root = root
        for name, v in (("identity", identity), ("issuer", issuer),
                        ("key_path", key)):
            if v is not None:
                keep.append(ffi.new("char[]", _b(v)))
                setattr(opts, name, keep[-1])
        opts.at = _time(at) or 0
        a = ffi.new("ps_sigstore_artifact *")
        if artifact is not None:
            keep.append(ffi.new("char[]", _b(artifact)))
            a.path = keep[-1]
        else:
            digest = bytes.fromhex(sha256[7:] if sha256.startswith("sha256:")
                                   else sha256)
            if len(digest) != 32:
                raise ValueError("sha256 is 64 hex digits")
            ffi.memmove(a.sha256, digest, 32)
        out = ffi.new("ps_sigstore_result **")
        err = ffi.new("ps_error *")
        rc = lib.ps_sigstore_verify(a, _b(bundle), opts, out, err)
        error = PacksignError._from(ffi, lib, err) if rc != 0 else None
        if out[0] == ffi.NULL:
            raise error
        try:
            return _blob_result(ffi, out[0], error)
        finally:
            lib.ps_sigstore_result_free(out[0])
    finally:
        lib.ps_sigstore_root_free(root)


# ------------------------------------------------------------------- diff

@dataclass
class Change:
    """One change of a diff (docs/formats/diff.md)."""
    group: str                  # trust, permissions, prompts, code, other
    field: str
    subject: Optional[str]
    kind: str                   # added, removed, changed
    old_value: Optional[str]
    new_value: Optional[str]
    widening: bool
    consent: Optional[str]      # the consent class, or None
    text_diff: Optional[str]
    lines_added: int
    lines_removed: int
    text_truncated: bool
    text_omitted: Optional[str]  # too_large, binary: why no text_diff


@dataclass
class Diff:
    """What changed between two versions of a pack."""
    format: str
    id: Optional[str]
    old_version: Optional[str]
    new_version: Optional[str]
    trusted: bool
    changes: List[Change]
    files_added: int
    files_removed: int
    files_changed: int
    widening_classes: List[str]
    json: str                   # ps_diff_to_json(): what accept_diff takes

    @property
    def empty(self) -> bool:
        return not self.changes

    def to_json(self) -> str:
        """The JSON object `packsign diff --json` prints and accept_diff
        takes (docs/formats/diff.md)."""
        return self.json


def _diff(ffi, lib, d) -> Optional[Diff]:
    if d == ffi.NULL:
        return None
    err = ffi.new("ps_error *")
    js = ffi.new("char **")
    _check(ffi, lib, lib.ps_diff_to_json(d, js, err), err)
    try:
        text = _s(ffi, js[0]) or ""
    finally:
        _free(ffi, js[0])
    changes = []
    for i in range(d.change_count):
        c = d.changes[i]
        changes.append(Change(
            DIFF_GROUPS[c.group], _s(ffi, c.field) or "", _s(ffi, c.subject),
            DIFF_KINDS[c.kind], _s(ffi, c.old_value), _s(ffi, c.new_value),
            bool(c.widening), (_classes(c.consent) or [None])[0],
            _s(ffi, c.text_diff), int(c.lines_added), int(c.lines_removed),
            bool(c.text_truncated), _s(ffi, c.text_omitted)))
    return Diff(FORMATS[d.format], _s(ffi, d.id), _s(ffi, d.old_version),
                _s(ffi, d.new_version), bool(d.trusted), changes,
                int(d.files_added), int(d.files_removed),
                int(d.files_changed), _classes(d.widening_classes), text)


def _free(ffi, p) -> None:
    """free() of a malloc'ed string the library handed over (packsign.h:
    "the caller frees with free()"; the cdef declares free, which the
    dynamic linker finds in the C library libpacksign links)."""
    if p != ffi.NULL:
        load()[1].free(p)


@dataclass
class InstalledRef:
    """A diff side taken from the data directory: `id` at `version`
    (None: the newest)."""
    id: str
    version: Optional[str] = None
    format: Optional[str] = None


def diff(old: Union[PathLike, InstalledRef], new: PathLike, *,
         trust: Optional[PathLike] = None,
         public_key: Optional[PathLike] = None,
         data_dir: Optional[PathLike] = None, lines: int = 200,
         at: Time = None) -> Diff:
    """ps_diff_compare() of two sides: signed archives (verified first, so
    trust or public_key is needed), pack directories, or an installed
    version (`InstalledRef`, read from `data_dir`)."""
    ffi, lib = load()
    tctx = _Trust(trust, public_key) if (trust or public_key) else None
    tp = tctx.__enter__() if tctx else ffi.NULL
    sides = []
    try:
        opts = ffi.new("ps_diff_options *")
        lib.ps_diff_options_init(opts)
        opts.verify.trust = tp
        if at is not None:
            opts.verify.at = _time(at)
        opts.text_lines_max = lines
        err = ffi.new("ps_error *")
        for side in (old, new):
            out = ffi.new("ps_diff_side **")
            if isinstance(side, InstalledRef):
                dd = data_dir if data_dir is not None else data_dir_default()
                rc = lib.ps_diff_side_installed(
                    _b(dd), _format_value(side.format), _b(side.id),
                    _b(side.version) if side.version else ffi.NULL, tp, out,
                    err)
            else:
                rc = lib.ps_diff_side_open(_b(side), opts, out, err)
            _check(ffi, lib, rc, err)
            sides.append(out[0])
        out = ffi.new("ps_diff **")
        _check(ffi, lib, lib.ps_diff_compare(sides[0], sides[1], opts, out,
                                             err), err)
        try:
            return _diff(ffi, lib, out[0])
        finally:
            lib.ps_diff_free(out[0])
    finally:
        for s in sides:
            lib.ps_diff_side_free(s)
        if tctx:
            tctx.__exit__(None, None, None)


# ---------------------------------------------------------------- install

def data_dir_default() -> str:
    """ps_data_dir_default(): $PACKSIGN_DATA_DIR, else
    $XDG_DATA_HOME/packsign, else ~/.local/share/packsign."""
    ffi, lib = load()
    err = ffi.new("ps_error *")
    out = ffi.new("char **")
    _check(ffi, lib, lib.ps_data_dir_default(out, err), err)
    try:
        return _s(ffi, out[0]) or ""
    finally:
        _free(ffi, out[0])


@dataclass
class InstallPlan:
    """What a confirm or consent callback is shown before anything is
    installed."""
    format: str
    id: Optional[str]
    version: Optional[str]
    name: Optional[str]
    domain: Optional[str]
    summary: Optional[str]
    destination: Optional[str]
    signer: Optional[str]
    replaces_newest: Optional[str]
    warnings: List[Diagnostic]
    diff: Optional[Diff]
    consent_needed: List[str]


@dataclass
class ConsentRecord:
    """How an upgrade's widening was consented to (the receipt's)."""
    from_version: Optional[str]
    asked: List[str]
    widened: List[str]
    by: Optional[str]


@dataclass
class InstallResult:
    """What install did (or would do, on a dry run)."""
    verify: Optional[VerifyResult]
    format: str
    id: Optional[str]
    version: Optional[str]
    name: Optional[str]
    domain: Optional[str]
    summary: Optional[str]
    path: Optional[str]
    receipt_path: Optional[str]
    already_installed: bool
    dry_run: bool
    installed: bool
    tree_digest: str
    file_count: int
    total_size: int
    diff: Optional[Diff]
    consent_needed: List[str]
    consent: ConsentRecord
    pinned: bool
    reinstalled: bool = False


def _consent_record(ffi, c) -> ConsentRecord:
    return ConsentRecord(_s(ffi, c.from_version), _classes(c.asked),
                         _classes(c.widened), _s(ffi, c.by))


def _plan(ffi, lib, p) -> InstallPlan:
    return InstallPlan(
        FORMATS[p.format], _s(ffi, p.id), _s(ffi, p.version),
        _s(ffi, p.name), _s(ffi, p.domain), _s(ffi, p.summary),
        _s(ffi, p.destination), _s(ffi, p.signer),
        _s(ffi, p.replaces_newest),
        _diags(ffi, lib, p.warnings) if p.warnings != ffi.NULL else [],
        _diff(ffi, lib, p.diff), _classes(p.consent_needed))


def _install_result(ffi, lib, r, error) -> InstallResult:
    v = None
    if r.verify != ffi.NULL:
        v = _verify_result(ffi, lib, r.verify, error)
    return InstallResult(
        v, FORMATS[r.format], _s(ffi, r.id), _s(ffi, r.version),
        _s(ffi, r.name), _s(ffi, r.domain), _s(ffi, r.summary),
        _s(ffi, r.path), _s(ffi, r.receipt_path),
        bool(r.already_installed), bool(r.dry_run), bool(r.installed),
        _hex(ffi, r.tree_digest), int(r.file_count), int(r.total_size),
        _diff(ffi, lib, r.diff), _classes(r.consent_needed),
        _consent_record(ffi, r.consent), bool(r.pinned),
        bool(r.reinstalled))


PlanCallback = Callable[[InstallPlan], bool]


@dataclass
class FetchOptions:
    """Download settings (ps_fetch_options): https only, TLS verified;
    the library reads no proxy variable: pass https_proxy yourself."""
    ca_file: Optional[PathLike] = None
    proxy: Optional[str] = None
    no_proxy: Optional[str] = None
    sig_url: Optional[str] = None
    max_download: Optional[int] = None
    connect_timeout: Optional[int] = None
    low_speed_time: Optional[int] = None
    timeout: Optional[int] = None
    cancelled: Optional[Callable[[], bool]] = None


class _Call:
    """The C options of one install/fetch call, with the strings and
    callbacks they point to kept alive until the call returns."""

    def __init__(self) -> None:
        self.ffi, self.lib = load()
        self.keep: list = []
        self.raised: List[BaseException] = []

    def cstr(self, v):
        if v is None:
            return self.ffi.NULL
        p = self.ffi.new("char[]", _b(v))
        self.keep.append(p)
        return p

    def callback(self, ctype: str, fn: Callable, convert: Callable):
        ffi, lib = self.ffi, self.lib

        def trampoline(_ctx, arg):
            if self.raised:
                return 0
            try:
                return 1 if fn(convert(ffi, lib, arg)) else 0
            except BaseException as e:  # re-raised after the C call
                self.raised.append(e)
                return 0
        cb = ffi.callback(ctype, trampoline)
        self.keep.append(cb)
        return cb

    def fetch(self, f: Optional[FetchOptions]):
        ffi, lib = self.ffi, self.lib
        opts = ffi.new("ps_fetch_options *")
        lib.ps_fetch_options_init(opts)
        f = f or FetchOptions()
        opts.ca_file = self.cstr(f.ca_file)
        opts.proxy = self.cstr(f.proxy)
        opts.no_proxy = self.cstr(f.no_proxy)
        opts.sig_url = self.cstr(f.sig_url)
        for name in ("max_download", "connect_timeout", "low_speed_time",
                     "timeout"):
            if getattr(f, name) is not None:
                setattr(opts, name, getattr(f, name))
        if f.cancelled is not None:
            fn = f.cancelled

            def cancelled(_ctx):
                try:
                    return 1 if fn() else 0
                except BaseException as e:
                    self.raised.append(e)
                    return 1
            cb = ffi.callback("int(void *)", cancelled)
            self.keep.append(cb)
            opts.cancelled = cb
        return opts

    def reraise(self) -> None:
        if self.raised:
            raise self.raised[0]


def _install_options(call: _Call, tp, *, data_dir, sig_path, signed_by,
                     source_repo, source_commit, require_source,
                     allow_dirty, at, allow_shell, allow_downgrade, dry_run,
                     lang, confirm, consent, accept, accept_diff,
                     consent_by, allow_signer_change, allow_source_change,
                     waiting, now, reinstall=False):
    ffi, lib = call.ffi, call.lib
    opts = ffi.new("ps_install_options *")
    lib.ps_install_options_init(opts)
    _fill_verify(ffi, opts.verify, call.keep, tp, sig_path, signed_by,
                 source_repo, source_commit, require_source, allow_dirty,
                 None, False, at)
    opts.data_dir = call.cstr(data_dir if data_dir is not None
                              else data_dir_default())
    opts.allow_shell = int(allow_shell)
    opts.allow_downgrade = int(allow_downgrade)
    opts.dry_run = int(dry_run)
    if lang not in ("en", "zh"):
        raise ValueError("lang is 'en' or 'zh'")
    opts.lang = 1 if lang == "zh" else 0
    cbtype = "int(void *, const ps_install_plan *)"
    if confirm is not None:
        opts.confirm = call.callback(cbtype, confirm, _plan)
    if consent is not None:
        opts.consent = call.callback(cbtype, consent, _plan)
    if waiting is not None:
        def on_wait(_ctx, lock):
            try:
                waiting(_s(ffi, lock))
            except BaseException as e:
                call.raised.append(e)
        cb = ffi.callback("void(void *, const char *)", on_wait)
        call.keep.append(cb)
        opts.waiting = cb
    opts.accept = _bits(accept)
    if accept_diff is not None:
        if isinstance(accept_diff, Diff):
            text = accept_diff.to_json()
        elif isinstance(accept_diff, os.PathLike):
            text = Path(accept_diff).read_text(encoding="utf-8")
        else:
            text = accept_diff
        opts.accept_diff = call.cstr(text)
    opts.consent_by = call.cstr(consent_by)
    opts.allow_signer_change = int(allow_signer_change)
    opts.allow_source_change = int(allow_source_change)
    opts.reinstall = int(reinstall)
    if now is not None:
        opts.now = _time(now)
    return opts


def _run_install(call: _Call, fn: Callable[[Any, Any], int]) -> InstallResult:
    ffi, lib = call.ffi, call.lib
    err = ffi.new("ps_error *")
    out = ffi.new("ps_install_result **")
    rc = fn(out, err)
    error = PacksignError._from(ffi, lib, err) if rc != 0 else None
    res = None
    if out[0] != ffi.NULL:
        try:
            res = _install_result(ffi, lib, out[0], error)
        finally:
            lib.ps_install_result_free(out[0])
    call.reraise()
    if error is not None:
        error.result = res
        raise error
    assert res is not None
    return res


_INSTALL_DOC = """
    Options: `trust` (a policy file) or `public_key` (one .pub file);
    `data_dir` (default: data_dir_default()); the verify checks
    (`sig_path`, `signed_by`, `source_repo`, `source_commit`,
    `require_source`, `allow_dirty`, `at`); `allow_shell`,
    `allow_downgrade`, `dry_run`, `lang` ("en"/"zh"), `reinstall` (the
    same version with the same tree installed, its files perhaps changed
    since: extracted afresh and swapped in, install.md section 3.2);
    consent for an
    upgrade's widening changes as arguments (`accept`: classes such as
    ["permissions", "code"]; `accept_diff`: the exact Diff, its JSON text
    or a Path to that file) or a callback `consent(plan) -> bool`; an
    optional `confirm(plan) -> bool` asked before extraction (never a
    terminal prompt: without callbacks nothing is asked); `waiting(lock)`
    when another run holds the data directory's lock.  Raises
    PacksignError (with .result, the partial InstallResult) on refusal or
    failure; an exception a callback raised is re-raised.
"""


def install(archive: PathLike, *, trust: Optional[PathLike] = None,
            public_key: Optional[PathLike] = None,
            data_dir: Optional[PathLike] = None,
            sig_path: Optional[PathLike] = None,
            signed_by: Optional[str] = None,
            source_repo: Optional[str] = None,
            source_commit: Optional[str] = None,
            require_source: bool = False, allow_dirty: bool = False,
            at: Time = None, allow_shell: bool = False,
            allow_downgrade: bool = False, dry_run: bool = False,
            lang: str = "en", confirm: Optional[PlanCallback] = None,
            consent: Optional[PlanCallback] = None,
            accept: Union[int, Iterable[str], None] = None,
            accept_diff: Union[Diff, str, "os.PathLike[str]", None] = None,
            consent_by: Optional[str] = None,
            allow_signer_change: bool = False,
            allow_source_change: bool = False,
            waiting: Optional[Callable[[str], None]] = None,
            now: Time = None, reinstall: bool = False,
            archive_fd: Optional[int] = None) -> InstallResult:
    call = _Call()
    with _Trust(trust, public_key) as tp:
        opts = _install_options(
            call, tp, data_dir=data_dir, sig_path=sig_path,
            signed_by=signed_by, source_repo=source_repo,
            source_commit=source_commit, require_source=require_source,
            allow_dirty=allow_dirty, at=at, allow_shell=allow_shell,
            allow_downgrade=allow_downgrade, dry_run=dry_run, lang=lang,
            confirm=confirm, consent=consent, accept=accept,
            accept_diff=accept_diff, consent_by=consent_by,
            allow_signer_change=allow_signer_change,
            allow_source_change=allow_source_change, waiting=waiting,
            now=now, reinstall=reinstall)
        if archive_fd is not None:
            # install - --sig F: read from the caller's descriptor (a pipe
            # too; not closed), `archive` only names it.
            if sig_path is None or archive_fd < 0:
                raise ValueError("archive_fd needs sig_path and a "
                                 "descriptor >= 0")
            opts.has_archive_fd, opts.archive_fd = 1, archive_fd
        return _run_install(call, lambda out, err: call.lib.ps_install(
            _b(archive), opts, out, err))


install.__doc__ = "ps_install(): verifies and installs the signed archive " \
    "at `archive` (its .sig beside it; with `archive_fd`, read from that " \
    "descriptor, `archive` naming it, `sig_path` required).\n" + \
    _INSTALL_DOC


def _install_kwargs(name: str, kwargs: Dict[str, Any]):
    """install()'s keyword arguments for a call that takes them as
    **kwargs: (trust, public_key, the rest with their defaults); an
    unknown one is a TypeError naming `name`."""
    trust, public_key = kwargs.pop("trust", None), kwargs.pop("public_key",
                                                               None)
    defaults = dict(data_dir=None, sig_path=None, signed_by=None,
                    source_repo=None, source_commit=None,
                    require_source=False, allow_dirty=False, at=None,
                    allow_shell=False, allow_downgrade=False, dry_run=False,
                    lang="en", confirm=None, consent=None, accept=None,
                    accept_diff=None, consent_by=None,
                    allow_signer_change=False, allow_source_change=False,
                    waiting=None, now=None, reinstall=False)
    unknown = set(kwargs) - set(defaults)
    if unknown:
        raise TypeError(f"{name}() got unexpected {sorted(unknown)}")
    defaults.update(kwargs)
    return trust, public_key, defaults


def install_url(url: str, *, fetch: Optional[FetchOptions] = None,
                **kwargs: Any) -> InstallResult:
    call = _Call()
    trust, public_key, defaults = _install_kwargs("install_url", kwargs)
    with _Trust(trust, public_key) as tp:
        opts = _install_options(call, tp, **defaults)
        fopts = call.fetch(fetch)
        return _run_install(call, lambda out, err: call.lib.ps_install_url(
            _b(url), opts, fopts, out, err))


install_url.__doc__ = "ps_install_url(): downloads the https `url`'s " \
    "signature, verifies it, then the archive, and installs it as " \
    "install() does; `fetch` sets the download.\n" + _INSTALL_DOC


def fetch(url: str, path: PathLike, *, trust: Optional[PathLike] = None,
          public_key: Optional[PathLike] = None,
          options: Optional[FetchOptions] = None,
          sig_path: Optional[PathLike] = None,
          signed_by: Optional[str] = None, at: Time = None) -> VerifyResult:
    """ps_fetch(): downloads the archive at the https `url` and its
    signature to `path` and `path`.sig, verified, without installing.
    Returns the verification like verify(); a download failure is in the
    result (ok False, exit 2)."""
    call = _Call()
    ffi, lib = call.ffi, call.lib
    with _Trust(trust, public_key) as tp:
        vopts = ffi.new("ps_verify_options *")
        lib.ps_verify_options_init(vopts)
        _fill_verify(ffi, vopts, call.keep, tp, sig_path, signed_by, None,
                     None, False, False, None, False, at)
        fopts = call.fetch(options)
        err = ffi.new("ps_error *")
        out = ffi.new("ps_verify_result **")
        rc = lib.ps_fetch(_b(url), _b(path), vopts, fopts, out, err)
        error = PacksignError._from(ffi, lib, err) if rc != 0 else None
        call.reraise()
        return _verify_outcome(ffi, lib, rc, out, err, error)


# ------------------------------------------------------ list, uninstall

@dataclass
class Installed:
    """One installed pack, as its receipt records it."""
    format: str
    id: Optional[str]
    version: Optional[str]
    name: Optional[str]
    domain: Optional[str]
    path: Optional[str]
    receipt_path: Optional[str]
    sig_path: Optional[str]
    newest: bool
    signer: Optional[str]
    fingerprint: Optional[str]
    source_repository: Optional[str]
    source_commit: Optional[str]
    permissions: Optional[str]
    archive_name: Optional[str]
    archive_digest: str
    tree_digest: str
    installed_at: int
    signers: List[Signer]
    manifest_path: Optional[str]
    consent: ConsentRecord


def _installed_list(ffi, lst) -> List[Installed]:
    out = []
    for i in range(lst.count):
        r = lst.items[i]
        out.append(Installed(
            FORMATS[r.format], _s(ffi, r.id), _s(ffi, r.version),
            _s(ffi, r.name), _s(ffi, r.domain), _s(ffi, r.path),
            _s(ffi, r.receipt_path), _s(ffi, r.sig_path), bool(r.newest),
            _s(ffi, r.signer), _s(ffi, r.fingerprint),
            _s(ffi, r.source_repository), _s(ffi, r.source_commit),
            _s(ffi, r.permissions), _s(ffi, r.archive_name),
            _hex(ffi, r.archive_digest), _hex(ffi, r.tree_digest),
            int(r.installed_at),
            [Signer(_s(ffi, r.signers[j].identity) or "",
                    _s(ffi, r.signers[j].fingerprint) or "")
             for j in range(r.signer_count)],
            _s(ffi, r.manifest_path), _consent_record(ffi, r.consent)))
    return out


def list_installed(data_dir: Optional[PathLike] = None) -> List[Installed]:
    """ps_installed_list_load(): every installed pack of `data_dir`
    (default: data_dir_default()), by format, id, then version."""
    ffi, lib = load()
    err = ffi.new("ps_error *")
    out = ffi.new("ps_installed_list **")
    dd = data_dir if data_dir is not None else data_dir_default()
    _check(ffi, lib, lib.ps_installed_list_load(_b(dd), out, err), err)
    try:
        return _installed_list(ffi, out[0])
    finally:
        lib.ps_installed_list_free(out[0])


list = list_installed  # noqa: A001  the installer-facing name


def uninstall(id: str, version: Optional[str] = None, *,
              data_dir: Optional[PathLike] = None,
              format: Optional[str] = None) -> List[Installed]:
    """ps_uninstall(): removes `version` (None: every version) of `id`;
    returns what was removed.  not_installed raises."""
    ffi, lib = load()
    err = ffi.new("ps_error *")
    out = ffi.new("ps_installed_list **")
    dd = data_dir if data_dir is not None else data_dir_default()
    _check(ffi, lib, lib.ps_uninstall(
        _b(dd), _format_value(format), _b(id),
        _b(version) if version is not None else ffi.NULL, out, err), err)
    try:
        return _installed_list(ffi, out[0])
    finally:
        lib.ps_installed_list_free(out[0])


# ------------------------------------------------------------------ index

@dataclass
class IndexEntry:
    """One published version an index lists."""
    format: str
    id: Optional[str]
    version: Optional[str]
    url: Optional[str]
    archive_url: Optional[str]
    sha256: str
    size: int
    tree_digest: str
    signers: List[str]
    published: int
    yanked: Optional[str]
    position: int               # its place in Index.entries (not how
                                # install_indexed() finds it)


@dataclass
class IndexSeen:
    """What a data directory has seen of one publisher's index."""
    version: int
    payload_sha256: str
    first_seen: int


class Index:
    """A verified pack index (ps_index_verify()).  Holds the C index for
    resolve() and install_indexed(); free it with close() or a `with`
    block (it is also freed when collected)."""

    def __init__(self, ptr) -> None:
        ffi, lib = load()
        self._ptr = ffi.gc(ptr, lib.ps_index_free)
        p = self._ptr
        self.version: int = int(p.version)
        self.publisher: Optional[str] = _s(ffi, p.publisher)
        self.issued: int = int(p.issued)
        self.expires: int = int(p.expires)
        self.base_url: Optional[str] = _s(ffi, p.base_url)
        self.payload_sha256: str = _hex(ffi, p.payload_sha256)
        self.fingerprint: str = _sa(ffi, p.fingerprint)
        self.entries: List[IndexEntry] = [
            self._entry(ffi, p.entries[i], i) for i in range(p.entry_count)]

    @staticmethod
    def _entry(ffi, e, i: int) -> IndexEntry:
        return IndexEntry(FORMATS[e.format], _s(ffi, e.id),
                          _s(ffi, e.version), _s(ffi, e.url),
                          _s(ffi, e.archive_url), _hex(ffi, e.sha256),
                          int(e.size), _hex(ffi, e.tree_digest),
                          [_s(ffi, e.signers[j]) or ""
                           for j in range(e.signer_count)],
                          int(e.published), _s(ffi, e.yanked), i)

    def _c(self):
        if self._ptr is None:
            raise ValueError("the index is closed")
        return self._ptr

    def _c_entry(self, entry: IndexEntry):
        """The C entry `entry` stands for: by identity (format, id,
        version and archive digest), never by position, which another
        copy of the index (or another index) gives another entry.  One
        this index does not list is handed to the library as it is, which
        refuses it (invalid_argument)."""
        ffi, _ = load()
        p = self._c()
        for i, mine in enumerate(self.entries):
            if (mine.format, mine.id, mine.version, mine.sha256) == \
                    (entry.format, entry.id, entry.version, entry.sha256):
                return p.entries + i
        raw = bytes.fromhex(entry.sha256.split(":", 1)[1])
        keep = [ffi.new("char[]", _b(entry.id or "")),
                ffi.new("char[]", _b(entry.version or "")),
                ffi.new("char[]", _b(entry.archive_url or ""))]
        c = ffi.new("ps_index_entry *")
        c.format = _format_value(entry.format)
        c.id, c.version, c.archive_url = keep
        ffi.memmove(c.sha256, raw, len(raw))
        self._foreign = (c, keep)       # alive for the call that takes it
        return c

    def resolve(self, id: str, spec: Optional[str] = None,
                allow_yanked: bool = False) -> IndexEntry:
        """ps_index_resolve(): the newest entry of `id` that satisfies
        `spec` (None: "*"; an exact version or a range) and is not
        yanked."""
        ffi, lib = load()
        p = self._c()
        err = ffi.new("ps_error *")
        out = ffi.new("ps_index_entry **")
        _check(ffi, lib, lib.ps_index_resolve(
            p, _b(id), _b(spec) if spec else ffi.NULL, int(allow_yanked),
            out, err), err)
        pos = (int(ffi.cast("uintptr_t", out[0]))
               - int(ffi.cast("uintptr_t", p.entries))) \
            // ffi.sizeof("ps_index_entry")
        return self.entries[pos]

    def close(self) -> None:
        """Frees the C index; the copied fields stay readable."""
        if self._ptr is not None:
            ffi, _ = load()
            ffi.release(self._ptr)
            self._ptr = None

    def __enter__(self) -> "Index":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_index(file_or_url: PathLike, *,
               fetch: Optional[FetchOptions] = None) -> bytes:
    """ps_index_read(): the bytes of an index file, or of an https URL
    downloaded with `fetch`."""
    call = _Call()
    ffi, lib = call.ffi, call.lib
    fopts = call.fetch(fetch)
    err = ffi.new("ps_error *")
    data = ffi.new("unsigned char **")
    n = ffi.new("size_t *")
    rc = lib.ps_index_read(_b(file_or_url), fopts, data, n, err)
    call.reraise()
    _check(ffi, lib, rc, err)
    try:
        return bytes(ffi.buffer(data[0], n[0]))
    finally:
        _free(ffi, data[0])


def verify_index(data: Union[bytes, PathLike], *,
                 trust: Optional[PathLike] = None,
                 public_key: Optional[PathLike] = None, at: Time = None,
                 allow_expired: bool = False,
                 label: Optional[str] = None) -> Index:
    """ps_index_verify(): an index's bytes (or a local file, read with
    read_index()) signed by a key with the index role."""
    if not isinstance(data, bytes):
        label = label or os.fsdecode(data)
        data = read_index(data)
    ffi, lib = load()
    with _Trust(trust, public_key) as tp:
        opts = ffi.new("ps_index_verify_options *")
        lib.ps_index_verify_options_init(opts)
        opts.trust = tp
        if at is not None:
            opts.at = _time(at)
        opts.allow_expired = int(allow_expired)
        err = ffi.new("ps_error *")
        out = ffi.new("ps_index **")
        _check(ffi, lib, lib.ps_index_verify(data, len(data),
                                             _b(label or "index"), opts, out,
                                             err), err)
        return Index(out[0])


def index_state_load(data_dir: PathLike, publisher: str) -> Optional[IndexSeen]:
    """ps_index_state_load(): what `data_dir` has seen of `publisher`'s
    index, or None."""
    ffi, lib = load()
    err = ffi.new("ps_error *")
    seen = ffi.new("ps_index_seen *")
    found = ffi.new("int *")
    _check(ffi, lib, lib.ps_index_state_load(_b(data_dir), _b(publisher),
                                             seen, found, err), err)
    if not found[0]:
        return None
    return IndexSeen(int(seen.version), _hex(ffi, seen.payload_sha256),
                     int(seen.first_seen))


def index_state_check(seen: Optional[IndexSeen], index: Index) -> None:
    """ps_index_state_check(): raises index_rollback or
    index_equivocation when `index` is older than, or another index of the
    same version as, what was seen."""
    ffi, lib = load()
    err = ffi.new("ps_error *")
    s = ffi.NULL
    if seen is not None:
        s = ffi.new("ps_index_seen *")
        s.version = seen.version
        raw = bytes.fromhex(seen.payload_sha256.split(":", 1)[1])
        ffi.memmove(s.payload_sha256, raw, len(raw))
        s.first_seen = seen.first_seen
    _check(ffi, lib, lib.ps_index_state_check(s, index._c(), err), err)


def index_state_record(data_dir: PathLike, index: Index,
                       now: Time = None) -> bool:
    """ps_index_state_record(): checks and records `index` in
    DIR/index-state.json; True when it wrote."""
    ffi, lib = load()
    err = ffi.new("ps_error *")
    rec = ffi.new("int *")
    t = _time(now)
    if t is None:
        t = int(_dt.datetime.now(_dt.timezone.utc).timestamp())
    _check(ffi, lib, lib.ps_index_state_record(_b(data_dir), index._c(), t,
                                               rec, err), err)
    return bool(rec[0])


def install_indexed(index: Index, entry: IndexEntry, *,
                    allow_yanked: bool = False, require_state: bool = False,
                    record_state: bool = True,
                    fetch: Optional[FetchOptions] = None,
                    from_dir: Optional[PathLike] = None,
                    **kwargs: Any) -> InstallResult:
    call = _Call()
    ffi, lib = call.ffi, call.lib
    trust, public_key, defaults = _install_kwargs("install_indexed", kwargs)
    with _Trust(trust, public_key) as tp:
        opts = _install_options(call, tp, **defaults)
        iopts = ffi.new("ps_index_install_options *")
        lib.ps_index_install_options_init(iopts)
        iopts.allow_yanked = int(allow_yanked)
        iopts.require_state = int(require_state)
        iopts.record_state = int(record_state)
        ce = index._c_entry(entry)
        if from_dir is not None:
            d = call.cstr(from_dir)
            return _run_install(call, lambda out, err:
                                lib.ps_install_indexed_dir(
                                    index._c(), ce, iopts, opts, d, out, err))
        fopts = call.fetch(fetch)
        return _run_install(call, lambda out, err: lib.ps_install_indexed(
            index._c(), ce, iopts, opts, fopts, out, err))


install_indexed.__doc__ = "ps_install_indexed(): installs an entry of a " \
    "verified index (its archive downloaded from the URL the index lists " \
    "and bound to the entry), with the index checked against and recorded " \
    "in the client state; `index` must be verified under the same policy " \
    "as `trust`.  With `from_dir` (ps_install_indexed_dir) nothing is " \
    "downloaded: the entry's archive and .sig are taken from that " \
    "directory by the file name of the entry's URL (index.md section " \
    "7.1).\n" + _INSTALL_DOC


# ---------------------------------------------------- packing and signing

def _compression(ffi, lib, out: PathLike, compression: Optional[str]) -> int:
    names = {"none": 0, "gzip": 1, "zstd": 2}
    if compression is not None:
        if compression not in names:
            raise ValueError("compression is 'none', 'gzip' or 'zstd'")
        return names[compression]
    value = ffi.new("ps_compression *")
    if lib.ps_compression_from_name(_b(out), value) != 0:
        raise ValueError(f"cannot tell the compression from {out!r}: use "
                         "a .tar, .tar.gz, .tgz or .tar.zst name, or "
                         "compression=")
    return int(value[0])


def pack(directory: PathLike, out: PathLike, *, mtime: int = 0,
         compression: Optional[str] = None) -> Digest:
    """ps_pack(): the canonical archive of the pack `directory`, written
    atomically to `out` (its suffix picks the compression unless
    `compression` is "none", "gzip" or "zstd"); returns its digests.  A
    failure leaves no file."""
    ffi, lib = load()
    err = ffi.new("ps_error *")
    opts = ffi.new("ps_pack_options *")
    lib.ps_pack_options_init(opts)
    opts.mtime = mtime
    opts.compression = _compression(ffi, lib, out, compression)
    f = ffi.new("ps_atomic_file **")
    _check(ffi, lib, lib.ps_atomic_open(_b(out), 0o644, 0, f, err), err)
    d = ffi.new("ps_digest **")
    if lib.ps_pack(_b(directory), lib.ps_atomic_fd(f[0]), opts, d, err) != 0:
        lib.ps_atomic_abort(f[0])
        raise PacksignError._from(ffi, lib, err)
    try:
        _check(ffi, lib, lib.ps_atomic_commit(f[0], err), err)
        return _digest(ffi, d[0])
    finally:
        lib.ps_digest_free(d[0])


@dataclass
class KeyPair:
    """What keygen() wrote: NAME.pub and NAME.key in minisign's formats."""
    key_id: str                 # 16 hex digits, as minisign prints it
    fingerprint: str            # SHA256:...
    identity: Optional[str]
    public_key: str             # the .pub file
    secret_key: str             # the .key file (mode 0600)
    encrypted: bool


class _Secret:
    """Bytes in the library's guarded memory (ps_secret), wiped and freed
    when the block ends.  The Python str or bytes it came from is not
    wipeable: pass a passphrase you can let go of."""

    def __init__(self, data: Union[str, bytes, None]) -> None:
        self.data = data.encode("utf-8") if isinstance(data, str) else data
        self.ptr = None

    def __enter__(self):
        ffi, lib = load()
        if self.data is None:
            return ffi.NULL
        self.ptr = lib.ps_secret_from(self.data, len(self.data))
        if self.ptr == ffi.NULL:
            raise MemoryError("ps_secret_from")
        return self.ptr

    def __exit__(self, *exc) -> None:
        if self.ptr is not None:
            load()[1].ps_secret_free(self.ptr)
        self.ptr = None


def keygen(name: PathLike, *, identity: Optional[str] = None,
           passphrase: Union[str, bytes, None] = None,
           kdf: str = "sensitive", force: bool = False) -> KeyPair:
    """A new Ed25519 key pair, `name`.pub and `name`.key (as `packsign
    keygen -o NAME`): the secret key encrypted with `passphrase` (scrypt;
    `kdf` "sensitive", minisign's, or "interactive", fast), or unencrypted
    when `passphrase` is None; `identity` goes into the public key's
    comment.  Both files or neither are written; existing ones are
    output_exists unless `force`."""
    if kdf not in ("sensitive", "interactive"):
        raise ValueError("kdf is 'sensitive' or 'interactive'")
    ffi, lib = load()
    if identity is not None and not lib.ps_identity_valid(_b(identity)):
        raise ValueError(f"not a valid identity: {identity!r}")
    base = os.fsdecode(name)
    pub_path, sec_path = base + ".pub", base + ".key"
    err = ffi.new("ps_error *")
    key = ffi.new("ps_seckey **")
    _check(ffi, lib, lib.ps_seckey_generate(key, err), err)
    pub = ffi.new("ps_pubkey **")
    pub_text, sec_text = ffi.new("char **"), ffi.new("ps_secret **")
    try:
        with _Secret(passphrase) as pw:
            _check(ffi, lib, lib.ps_seckey_public(key[0], pub, err), err)
            _check(ffi, lib, lib.ps_pubkey_set_identity(
                pub[0], _b(identity) if identity else ffi.NULL, err), err)
            _check(ffi, lib, lib.ps_pubkey_format_minisign(pub[0], pub_text,
                                                           err), err)
            _check(ffi, lib, lib.ps_seckey_format(
                key[0], pw, 1 if kdf == "interactive" else 0, sec_text,
                err), err)
        keep = [ffi.new("char[]", _b(sec_path)), ffi.new("char[]",
                                                         _b(pub_path))]
        outs = ffi.new("ps_key_output[2]")
        outs[0].path, outs[0].mode = keep[0], 0o600
        outs[0].data = lib.ps_secret_bytes(sec_text[0])
        outs[0].len = lib.ps_secret_len(sec_text[0])
        outs[1].path, outs[1].mode = keep[1], 0o644
        outs[1].data = pub_text[0]
        outs[1].len = len(ffi.string(pub_text[0]))
        _check(ffi, lib, lib.ps_key_files_write(outs, 2, 0 if force else 1,
                                                err), err)
        hexid = ffi.new("char[17]")
        lib.ps_key_id_hex(lib.ps_seckey_key_id(key[0]), hexid)
        fp = ffi.new("char[]", 52)
        lib.ps_pubkey_fingerprint(pub[0], fp)
        return KeyPair(_sa(ffi, hexid), _sa(ffi, fp), identity, pub_path,
                       sec_path, passphrase is not None)
    finally:
        lib.ps_secret_free(sec_text[0])
        _free(ffi, pub_text[0])
        if pub[0] != ffi.NULL:
            lib.ps_pubkey_free(pub[0])
        lib.ps_seckey_free(key[0])


@dataclass
class SignResult:
    """What sign() wrote."""
    archive_path: Optional[str]
    sig_path: Optional[str]
    minisig_path: Optional[str]
    bundle_paths: List[str]
    archive_written: bool
    format: str
    id: Optional[str]
    version: Optional[str]
    tree_digest: str
    archive_digest: str
    identity: Optional[str]
    fingerprint: str
    signature_count: int
    prompt_count: int
    source: Optional[Source]
    diagnostics: List[Diagnostic]


def _sign_result(ffi, lib, r) -> SignResult:
    source = None
    if r.has_source:
        source = Source(_s(ffi, r.source_repository),
                        _s(ffi, r.source_commit), _s(ffi, r.source_path),
                        bool(r.source_dirty))
    return SignResult(
        _s(ffi, r.archive_path), _s(ffi, r.sig_path),
        _s(ffi, r.minisig_path),
        [_s(ffi, r.bundle_paths[i]) or "" for i in range(r.bundle_count)],
        bool(r.archive_written), FORMATS[r.format], _s(ffi, r.id),
        _s(ffi, r.version), _hex(ffi, r.tree_digest),
        _hex(ffi, r.archive_digest), _s(ffi, r.identity),
        _sa(ffi, r.fingerprint), int(r.signature_count),
        int(r.prompt_count), source, _diags(ffi, lib, r.diags))


def _load_seckey(ffi, lib, secret_key: PathLike, passphrase):
    """The secret key file, decrypted with `passphrase` (None: a key
    without one); its text and the key stay in guarded memory."""
    err = ffi.new("ps_error *")
    text = ffi.new("ps_secret **")
    _check(ffi, lib, lib.ps_secret_read_file(_b(secret_key), 65536, text,
                                             err), err)
    key = ffi.new("ps_seckey **")
    try:
        with _Secret(passphrase) as pw:
            _check(ffi, lib, lib.ps_seckey_parse(
                lib.ps_secret_bytes(text[0]), lib.ps_secret_len(text[0]),
                _b(secret_key), pw, key, err), err)
    finally:
        lib.ps_secret_free(text[0])
    return key[0]


class _Token:
    """The OIDC identity token in the library's guarded memory,
    NUL-terminated, freed (wiped) when the block ends; a bytearray given
    is zeroed in place as soon as it is copied."""

    def __init__(self, token: Union[bytes, bytearray, memoryview]) -> None:
        if isinstance(token, str) or not isinstance(
                token, (bytes, bytearray, memoryview)):
            raise TypeError("identity_token must be bytes or a bytearray, "
                            "never a str (a bytearray is wiped after use)")
        self.token = token
        self.ptr = None

    def __enter__(self):
        ffi, lib = load()
        view = memoryview(self.token).cast("B")
        n = len(view)
        while n > 0 and view[n - 1] in b" \t\r\n":
            n -= 1          # a file's newline, as --identity-token FILE
        tmp = ffi.new("char[]", n + 1)
        try:
            ffi.memmove(tmp, ffi.from_buffer(view), n)
            if b"\0" in ffi.buffer(tmp, n):
                raise ValueError("identity_token holds a NUL byte")
            self.ptr = lib.ps_secret_from(tmp, n + 1)
        finally:
            ffi.memmove(tmp, bytes(n + 1), n + 1)
            if not view.readonly:
                view[:] = bytes(len(view))
        if self.ptr == ffi.NULL:
            raise MemoryError("ps_secret_from")
        return ffi.cast("const char *", lib.ps_secret_bytes(self.ptr))

    def __exit__(self, *exc) -> None:
        if self.ptr is not None:
            load()[1].ps_secret_free(self.ptr)
        self.ptr = None


def sign(path: PathLike, secret_key: Optional[PathLike] = None, *,
         passphrase: Union[str, bytes, None] = None,
         out: Optional[PathLike] = None, identity: Optional[str] = None,
         public_key: Optional[PathLike] = None, minisig: bool = False,
         bundle: bool = False, source_repo: Optional[str] = None,
         source_commit: Optional[str] = None, allow_dirty: bool = False,
         append: bool = False, force: bool = False, mtime: int = 0,
         compression: Optional[str] = None,
         predicate_version: Optional[int] = None,
         tsa_url: Optional[str] = None, ca_file: Optional[PathLike] = None,
         keyless: bool = False,
         identity_token: Union[bytes, bytearray, None] = None,
         signing_config: Optional[PathLike] = None,
         trusted_root: Optional[PathLike] = None) -> SignResult:
    """ps_sign(): signs the pack directory (its canonical archive `out`
    is written, default "<id>-<version>.tar.gz" here) or the archive at
    `path` with the minisign secret key file `secret_key` (decrypted with
    `passphrase`; None: a key without one): OUT.sig, a DSSE envelope over
    the in-toto statement, and with `minisig` OUT.minisig, with `bundle`
    Sigstore bundles (timestamped by the RFC 3161 TSA at `tsa_url`).  The
    signer's identity is `identity`, else that of `public_key` (default
    NAME.pub beside NAME.key).  `predicate_version` 1 writes the v1
    predicate (default 2, with chunk digests).  `keyless=True` signs
    without a key (`sign --keyless`, signature.md 9.5): Fulcio certifies
    an ephemeral key for the OIDC `identity_token` (bytes or a bytearray,
    which is zeroed once copied; never a str), Rekor logs it, and the
    signature is in OUT.1.sigstore.json only; `signing_config` names the
    services (default public good), `trusted_root` the root the bundle is
    verified against.  `ca_file`: the TLS CA for the TSA and keyless
    services.  An invalid manifest raises manifest_invalid with its
    diagnostics in the error's `result` (a SignResult)."""
    if keyless != (secret_key is None):
        raise ValueError("give secret_key, or keyless=True with "
                         "identity_token")
    if keyless != (identity_token is not None):
        raise ValueError("identity_token is for keyless=True, which needs "
                         "it")
    if predicate_version not in (None, 0, 1, 2):
        raise ValueError("predicate_version is 1 or 2 (0, None: 2)")
    c = _Call()
    ffi, lib = c.ffi, c.lib
    opts = ffi.new("ps_sign_options *")
    lib.ps_sign_options_init(opts)
    opts.output = c.cstr(out)
    opts.pack.mtime = mtime
    if compression is not None or out is not None:
        opts.pack.compression = _compression(ffi, lib, out or "x.tar.gz",
                                             compression)
    opts.identity = c.cstr(identity)
    if public_key is None and secret_key is not None and \
            os.fsdecode(secret_key).endswith(".key"):
        public_key = os.fsdecode(secret_key)[:-4] + ".pub"
    opts.public_key_path = c.cstr(public_key)
    opts.source_repo = c.cstr(source_repo)
    opts.source_commit = c.cstr(source_commit)
    opts.allow_dirty, opts.append = int(allow_dirty), int(append)
    opts.force, opts.minisig, opts.bundle = int(force), int(minisig), \
        int(bundle)
    opts.predicate_version = predicate_version or 0
    opts.tsa_url = c.cstr(tsa_url)
    fetch_opts = c.fetch(FetchOptions(ca_file=ca_file))
    opts.fetch = fetch_opts
    opts.keyless = int(keyless)
    opts.signing_config = c.cstr(signing_config)
    opts.trusted_root = c.cstr(trusted_root)
    if keyless:
        return _sign_keyless(ffi, lib, path, opts, identity_token)
    key = _load_seckey(ffi, lib, secret_key, passphrase)
    try:
        return _run_sign(ffi, lib, path, key, opts)
    finally:
        lib.ps_seckey_free(key)


def _sign_keyless(ffi, lib, path, opts, identity_token) -> SignResult:
    with _Token(identity_token) as token:
        opts.identity_token = token
        try:
            return _run_sign(ffi, lib, path, ffi.NULL, opts)
        finally:
            opts.identity_token = ffi.NULL


def _run_sign(ffi, lib, path, key, opts) -> SignResult:
    err = ffi.new("ps_error *")
    res = ffi.new("ps_sign_result **")
    try:
        rc = lib.ps_sign(_b(path), key, opts, res, err)
        result = _sign_result(ffi, lib, res[0]) \
            if res[0] != ffi.NULL else None
    finally:
        lib.ps_sign_result_free(res[0])
    if rc != 0:
        raise PacksignError._from(ffi, lib, err, result)
    assert result is not None
    return result


def sign_keyless(path: PathLike, identity_token: Union[str, bytes], *,
                 out: Optional[PathLike] = None,
                 signing_config: Optional[PathLike] = None,
                 trusted_root: Optional[PathLike] = None,
                 fetch: Optional[FetchOptions] = None,
                 source_repo: Optional[str] = None,
                 source_commit: Optional[str] = None,
                 allow_dirty: bool = False, force: bool = False,
                 mtime: int = 0,
                 compression: Optional[str] = None) -> SignResult:
    """ps_sign() keylessly (signature.md section 9.5): the pack directory
    or archive at `path` signed with an ephemeral key Fulcio certifies for
    the OIDC `identity_token`'s identity, logged by Rekor, in
    OUT.1.sigstore.json only (the result's `bundle_paths`).  The services
    are `signing_config`'s (default the public-good instance); the bundle
    is verified against `trusted_root` (default public good) before it is
    written.  The token is the caller's (the library reads no environment);
    `fetch` gives the CA file, proxy and timeouts of the requests."""
    c = _Call()
    ffi, lib = c.ffi, c.lib
    opts = ffi.new("ps_sign_options *")
    lib.ps_sign_options_init(opts)
    opts.output = c.cstr(out)
    opts.pack.mtime = mtime
    if compression is not None or out is not None:
        opts.pack.compression = _compression(ffi, lib, out or "x.tar.gz",
                                             compression)
    opts.source_repo = c.cstr(source_repo)
    opts.source_commit = c.cstr(source_commit)
    opts.allow_dirty, opts.force = int(allow_dirty), int(force)
    opts.keyless = 1
    token = ffi.new("char[]", _b(identity_token))
    opts.identity_token = token
    opts.signing_config = c.cstr(signing_config)
    opts.trusted_root = c.cstr(trusted_root)
    fetch_opts = c.fetch(fetch)   # kept alive until the call returns
    opts.fetch = fetch_opts
    err = ffi.new("ps_error *")
    res = ffi.new("ps_sign_result **")
    try:
        rc = lib.ps_sign(_b(path), ffi.NULL, opts, res, err)
        result = _sign_result(ffi, lib, res[0]) \
            if res[0] != ffi.NULL else None
    finally:
        lib.ps_sign_result_free(res[0])
        ffi.memmove(token, b"\0" * len(token), len(token))
    if rc != 0:
        raise PacksignError._from(ffi, lib, err, result)
    assert result is not None
    return result


# ------------------------------------------- the installed-tree check

@dataclass
class InstalledCheck:
    """What re-checking an installed tree against its receipt found
    (ps_installed_verify(), `packsign verify --installed`): `ok`, or the
    refusal with every modified, added and missing path."""
    ok: bool
    exit: int
    code: Optional[str]
    message: str
    path: str
    receipt: Optional[Installed]
    modified: List[str]
    added: List[str]
    missing: List[str]
    tree_digest: Optional[str]
    signature_checked: bool
    error: Optional[PacksignError] = None

    def check(self) -> "InstalledCheck":
        """Raises the refusal as PacksignError; returns self when ok."""
        if not self.ok and self.error is not None:
            raise self.error
        return self


def _strings(ffi, s) -> List[str]:
    return [_s(ffi, s.items[i]) or "" for i in range(s.count)]


def _resolve_installed(ref: InstalledRef,
                       data_dir: Optional[PathLike]) -> List[str]:
    """The trees of an InstalledRef: that version, or every installed
    version of the id; not_installed raises."""
    found = [p.path for p in list_installed(data_dir)
             if p.id == ref.id and (ref.version is None or
                                    p.version == ref.version) and
             (ref.format is None or p.format == ref.format)]
    if not found:
        what = ref.id + ("@" + ref.version if ref.version else "")
        raise PacksignError("not_installed", 1, what,
                            "is not an installed pack of the data directory")
    return [p for p in found if p is not None]


def verify_installed(installed: Union[PathLike, InstalledRef], *,
                     trust: Optional[PathLike] = None,
                     public_key: Optional[PathLike] = None,
                     data_dir: Optional[PathLike] = None,
                     at: Time = None) -> List[InstalledCheck]:
    """ps_installed_verify(): every file of the installed tree hashed
    again and compared with its receipt; with `trust` or `public_key` the
    receipt's signature is verified again too.  `installed` is a tree's
    path or an InstalledRef (that version, or every installed version of
    the id, in `data_dir`).  Returns one InstalledCheck per tree; a
    refusal is in it (ok False), not raised."""
    ffi, lib = load()
    paths = _resolve_installed(installed, data_dir) \
        if isinstance(installed, InstalledRef) else [os.fsdecode(installed)]
    tctx = _Trust(trust, public_key) if (trust or public_key) else None
    tp = tctx.__enter__() if tctx else ffi.NULL
    checks = []
    try:
        for path in paths:
            err = ffi.new("ps_error *")
            out = ffi.new("ps_installed_check **")
            rc = lib.ps_installed_verify(_b(path), tp, _time(at) or 0, out,
                                         err)
            checks.append(_installed_check(ffi, lib, path, rc, out[0], err))
    finally:
        if tctx:
            tctx.__exit__(None, None, None)
    return checks


def _installed_check(ffi, lib, path: str, rc: int, c, err) -> InstalledCheck:
    error = PacksignError._from(ffi, lib, err) if rc != 0 else None
    try:
        if c == ffi.NULL:
            assert error is not None
            return InstalledCheck(False, error.exit, error.code,
                                  error.message, path, None, [], [], [],
                                  None, False, error)
        receipt = None
        if c.receipt != ffi.NULL:
            one = ffi.new("ps_installed_list *")
            one.items, one.count = c.receipt, 1
            receipt = _installed_list(ffi, one)[0]
        res = InstalledCheck(
            error is None, 0 if error is None else error.exit,
            None if error is None else error.code,
            "" if error is None else error.message, path, receipt,
            _strings(ffi, c.modified), _strings(ffi, c.added),
            _strings(ffi, c.missing),
            _hex(ffi, c.tree_digest) if c.tree_computed else None,
            bool(c.signature_checked), error)
        if error is not None:
            error.result = res
        return res
    finally:
        lib.ps_installed_check_free(c)
