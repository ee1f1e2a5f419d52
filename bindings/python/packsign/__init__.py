"""packsign: build, sign, verify and install signed agent packs from Python.

A thin layer over libpacksign (the shared library, soname
libpacksign.so.1) through cffi in ABI mode: every call is one or a few
functions of include/packsign.h, nothing is implemented twice.  Results are
plain dataclasses: the C objects behind them are copied out and freed
before a function returns, except `Index`, which keeps the verified index
for resolve/install and is freed by `close()` or its `with` block.

Errors raise `PacksignError` (code, exit 1 refused / 2 failed, subject,
message, expected, found).  `verify()`, `verify_installed()` and
`verify_blob()` return their results instead, with `ok` False on a
refusal; `.check()` raises.

Thread safety: as libpacksign's (bindings/python/README.md): calls may run
from several threads at once on different data directories and objects;
cffi releases the GIL during each C call.

The package exports exactly the names of `__all__`: the implementation
lives in packsign._api, whose imports and helpers stay there.
"""

from ._api import (  # noqa: F401  re-exported, listed in __all__
    ABI_VERSION, CERTIFICATE_FIELDS, CONSENT_CLASSES, SIGSTORE_STEPS,
    BlobResult, Certificate, Change, ConsentRecord, Diagnostic, Diff,
    Digest, Entry, FetchOptions, Index, IndexEntry, IndexSeen, Installed,
    InstalledCheck, InstalledRef, InstallPlan, InstallResult, KeyPair,
    LibraryError, LogEntry, PacksignError, Signature, Signer, SignResult,
    Keyless, Source, Timestamp,
    Validation, VerifyResult, data_dir_default, describe, diff, digest,
    fetch, index_state_check, index_state_load, index_state_record, install,
    install_indexed, install_url, keygen, library_version, list,
    list_installed, pack, read_index, sign, uninstall, validate, verify,
    verify_blob, verify_index, verify_installed,
)
from ._api import __all__  # noqa: F401
