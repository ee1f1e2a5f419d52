"""The cdef (packsign/_cdef.py) against scripts/packsign.abi, the layout
scripts/check-abi records from the built library's debug information (and
checks in make check): every struct the binding declares has the
recorded size and every recorded field at the recorded offset and size,
every enum the recorded values, every function the recorded prototype,
and the ABI number is the header's.  A header change that breaks the
binding fails here."""
import re

import cffi
import pytest

from conftest import REPO
from packsign import _cdef

ABI_RECORD = REPO / "scripts" / "packsign.abi"


def records():
    text = ABI_RECORD.read_text()
    out = {}
    for block in text.split("@@@ ")[1:]:
        head, _, body = block.partition("\n")
        out[head.strip()] = body
    return text, out


@pytest.fixture(scope="module")
def ffi():
    f = cffi.FFI()
    f.cdef(_cdef.CDEF)
    return f


def declared_types():
    return re.findall(r"^typedef (struct|enum) (\w+) \{", _cdef.CDEF, re.M)


def test_abi_number_is_the_headers():
    header = (REPO / "include" / "packsign.h").read_text()
    m = re.search(r"^#define PS_ABI_VERSION (\d+)$", header, re.M)
    assert int(m.group(1)) == _cdef.ABI_VERSION
    assert records()[0].startswith(f"abi {_cdef.ABI_VERSION}\n")


@pytest.mark.parametrize("kind,name", declared_types())
def test_type_matches_record(ffi, kind, name):
    rec = records()[1].get(f"type {name}")
    assert rec is not None, f"{name} is not a public type of packsign.h"
    if kind == "enum":
        names = re.search(r"\{(.*)\}", rec).group(1).split(", ")
        want, value = {}, 0
        for n in names:
            n, _, v = n.partition(" = ")
            value = int(v) if v else value
            want[n] = value
            value += 1
        assert ffi.typeof(name).relements == want, name
        return
    fields = re.findall(r"^/\* +(\d+)(?::\s*\d+)? +\| +(\d+) \*/ (.*);$", rec,
                        re.M)
    total = int(re.search(r"total size \(bytes\): +(\d+)", rec).group(1))
    assert ffi.sizeof(name) == total, f"sizeof({name})"
    ct = ffi.typeof(name)
    declared = [f for f, _ in ct.fields]
    recorded = []
    for off, size, decl in fields:
        decl = re.sub(r"\(\*(\w+)\)\(.*", r"\1", decl)  # function pointer
        fname = re.search(r"(\w+)(\[\d+\])*$", decl).group(1)
        recorded.append(fname)
        assert ffi.offsetof(name, fname) == int(off), f"{name}.{fname}"
        assert ffi.sizeof(dict(ct.fields)[fname].type) == int(size), \
            f"sizeof {name}.{fname}"
    assert declared == recorded, name


def _norm(proto: str) -> str:
    p = re.sub(r"\bconst\b|\bstruct\b|\benum\b", "", proto)
    p = p.replace("unsigned int", "unsigned").replace("(void)", "()")
    p = re.sub(r"\bsize_t\b", "unsigned long", p)
    # cffi names a returned uint64_t by its type on this platform
    p = re.sub(r"\buint64_t\b", "unsigned long", p)
    p = re.sub(r"\{[^{}]*\}", "", p)  # gdb spells out a returned struct
    return re.sub(r"\s+", "", p)


def test_functions_match_record():
    from packsign._lib import load
    ffi, lib = load()
    names = re.findall(r"\b(ps_\w+)\(", _cdef.CDEF)
    assert len(names) > 50
    recs = records()[1]
    for name in names:
        rec = recs.get(f"function {name}")
        assert rec is not None, f"{name} is not a function of packsign.h"
        want = rec.partition("type = ")[2].strip()
        got = ffi.typeof(getattr(lib, name)).cname
        assert _norm(want) == _norm(got), name
