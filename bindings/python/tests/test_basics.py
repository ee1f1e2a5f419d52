"""Loading the library, digest, validate, describe."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import packsign
from conftest import AGENTPACK, EXAMPLES, cli, cli_json, copy_pack


def test_library_is_the_abi_of_the_binding():
    assert packsign.library_version() == "0.1.0"
    from packsign._lib import load
    _, lib = load()
    assert lib.ps_abi_version() == packsign.ABI_VERSION


def _import_with(lib: str):
    env = dict(os.environ, PACKSIGN_LIB=lib)
    return subprocess.run(
        [sys.executable, "-c", "import packsign; packsign.library_version()"],
        capture_output=True, text=True, env=env)


def test_a_missing_library_named_by_packsign_lib_is_an_error(tmp_path):
    r = _import_with(str(tmp_path / "nothing.so"))
    assert r.returncode != 0
    assert "LibraryError" in r.stderr and "PACKSIGN_LIB=" in r.stderr


def test_a_library_without_the_abi_function_is_refused():
    # libc loads but is no libpacksign: ps_abi_version cannot be found.
    r = _import_with("libc.so.6")
    assert r.returncode != 0
    assert "LibraryError" in r.stderr and "not libpacksign" in r.stderr


def test_a_library_of_another_abi_is_refused_with_its_version():
    # The binding's ABI number changed in a child process: the real
    # library is then "another ABI".
    code = ("import packsign._lib as l; l.ABI_VERSION = 99; "
            "l.load.cache_clear(); l.load()")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True)
    assert r.returncode != 0
    assert "libpacksign 0.1.0 has ABI 1, this binding needs ABI 99" \
        in r.stderr


def test_digest_matches_the_cli(tmp_path):
    pack = copy_pack(tmp_path / "p")
    d = packsign.digest(pack)
    assert d.source == "directory" and d.format == "agentpack"
    out = cli("digest", pack).stdout
    assert f"tree_digest: {d.tree_digest}" in out
    assert f"tar_digest: {d.tar_digest}" in out
    assert any(e.path == "manifest.yml" for e in d.entries)
    assert packsign.digest(Path(pack)).tree_digest == d.tree_digest


def test_validate_valid_and_invalid(tmp_path):
    v = packsign.validate(EXAMPLES / AGENTPACK)
    assert v.valid and v.id == AGENTPACK and v.version == "0.1.0"
    pack = copy_pack(tmp_path / "bad")
    m = pack / "manifest.yml"
    m.write_text(m.read_text().replace("version: 0.1.0", "version: one"))
    v = packsign.validate(pack)
    assert not v.valid
    assert v.diagnostics and v.diagnostics[0].severity == "error"
    assert "manifest.yml:" in v.diagnostics[0].text


def test_validate_of_a_missing_path_raises():
    with pytest.raises(packsign.PacksignError) as e:
        packsign.validate("/nonexistent/pack")
    assert e.value.exit == 2 and e.value.code


def test_describe_en_and_zh():
    en = packsign.describe(EXAMPLES / AGENTPACK)
    assert "does not access the network" in en
    zh = packsign.describe(EXAMPLES / AGENTPACK, lang="zh")
    assert "不访问网络" in zh
    assert cli("describe", EXAMPLES / AGENTPACK, "--lang", "zh").stdout \
        .strip() == zh.strip()
    with pytest.raises(ValueError):
        packsign.describe(EXAMPLES / AGENTPACK, lang="fr")
