"""Finding and loading libpacksign (cffi, ABI mode).

The loaded library is cached once per process (`load()`): that handle is
the binding's only module-level state, and it is never mutated after it is
made.  Everything else lives in the objects a call returns.
"""

from __future__ import annotations

import ctypes.util
import functools
import os
import subprocess
from typing import Any, List, Tuple

import cffi

from ._cdef import ABI_VERSION, CDEF

SONAME = f"libpacksign.so.{ABI_VERSION}"


class LibraryError(ImportError):
    """libpacksign could not be found or is not the ABI this binding was
    written for."""


def candidates() -> List[str]:
    """Where the library is looked for, in order: $PACKSIGN_LIB (a path),
    pkg-config's libdir for packsign plus the soname, then
    ctypes.util.find_library("packsign")."""
    out: List[str] = []
    env = os.environ.get("PACKSIGN_LIB")
    if env:
        out.append(env)
    try:
        libdir = subprocess.run(
            ["pkg-config", "--variable=libdir", "packsign"],
            capture_output=True, text=True, check=False, timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        libdir = ""
    if libdir:
        out.append(os.path.join(libdir, SONAME))
    found = ctypes.util.find_library("packsign")
    if found:
        out.append(found)
    return out


@functools.lru_cache(maxsize=None)
def load() -> Tuple[Any, Any]:
    """(ffi, lib): the first library of candidates() that loads, refused
    unless its ps_abi_version() is this binding's ABI_VERSION.  Cached for
    the process."""
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    tried = []
    env = os.environ.get("PACKSIGN_LIB")
    for path in candidates():
        try:
            lib = ffi.dlopen(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
            if env and path == env:
                # An explicit choice that fails is an error, not a hint.
                raise LibraryError(f"PACKSIGN_LIB={env}: cannot load: {e}") from e
            continue
        try:
            abi = lib.ps_abi_version()
        except AttributeError as e:
            raise LibraryError(f"{path}: not libpacksign (no ps_abi_version)"
                               ) from e
        if abi != ABI_VERSION:
            version = ffi.string(lib.ps_version()).decode()
            raise LibraryError(
                f"{path}: libpacksign {version} has ABI {abi}, this binding "
                f"needs ABI {ABI_VERSION} ({SONAME})")
        return ffi, lib
    raise LibraryError(
        "libpacksign not found: set PACKSIGN_LIB to the path of "
        f"{SONAME}, or install it (make install) so that pkg-config or "
        "the dynamic linker finds it"
        + ("" if not tried else " (tried: " + "; ".join(tried) + ")"))
