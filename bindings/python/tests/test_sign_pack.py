"""pack(), keygen(), sign(), verify_installed(), install(reinstall=) and
install_indexed(from_dir=) (issue 26: the binding covers what an
installer's build side calls too), against the CLI; and the package's
exports: exactly __all__, nothing it imported."""
import os
import stat
import types

import pytest

import packsign
from conftest import AGENTPACK, EXAMPLES, cli, cli_json, copy_pack


def test_exports_only_its_own_names():
    public = {n for n in dir(packsign) if not n.startswith("_")}
    assert public == set(packsign.__all__)
    for name in packsign.__all__:
        obj = getattr(packsign, name)
        assert not isinstance(obj, types.ModuleType), name
        if isinstance(obj, (type, types.FunctionType)):
            assert obj.__module__.startswith("packsign"), name
    # What the implementation imports stays in it.
    for leaked in ("os", "Path", "dataclass", "field", "Optional", "load",
                   "FORMATS"):
        assert not hasattr(packsign, leaked), leaked
    star: dict = {}
    exec("from packsign import *", star)  # noqa: S102  exactly __all__
    assert set(star) - {"__builtins__"} == set(packsign.__all__)


def test_keygen_writes_minisign_keys(tmp_path):
    k = packsign.keygen(tmp_path / "alice", identity="alice",
                        passphrase="correct horse", kdf="interactive")
    assert k.public_key == str(tmp_path / "alice.pub")
    assert k.encrypted and len(k.key_id) == 16
    assert stat.S_IMODE(os.stat(k.secret_key).st_mode) == 0o600
    status, js = cli_json("key", "show", k.public_key)
    assert status == 0
    assert js["key_id"] == k.key_id and js["fingerprint"] == k.fingerprint
    assert js["identity"] == "alice" == k.identity
    with pytest.raises(packsign.PacksignError) as e:
        packsign.keygen(tmp_path / "alice")
    assert e.value.code == "output_exists" and e.value.exit == 2
    plain = packsign.keygen(tmp_path / "plain", force=True)
    assert not plain.encrypted and plain.identity is None


def test_pack_is_the_clis(tmp_path):
    src = EXAMPLES / AGENTPACK
    d = packsign.pack(src, tmp_path / "p.tar.gz", mtime=7)
    cli("pack", src, "-o", tmp_path / "c.tar.gz", "--mtime", "7")
    assert (tmp_path / "p.tar.gz").read_bytes() == \
        (tmp_path / "c.tar.gz").read_bytes()
    assert d.tree_digest == packsign.digest(src).tree_digest
    assert packsign.pack(src, tmp_path / "p.tar", mtime=7).tar_digest == \
        d.tar_digest
    with pytest.raises(ValueError):
        packsign.pack(src, tmp_path / "p.bin")
    with pytest.raises(packsign.PacksignError) as e:
        packsign.pack(tmp_path / "none", tmp_path / "x.tar")
    assert e.value.exit == 2 and not (tmp_path / "x.tar").exists()


def test_sign_then_verify(tmp_path):
    k = packsign.keygen(tmp_path / "alice", identity="alice",
                        passphrase="pw", kdf="interactive")
    pack = copy_pack(tmp_path / "pack")
    out = tmp_path / "s.tar.gz"
    r = packsign.sign(pack, k.secret_key, passphrase="pw", out=out,
                      minisig=True)
    assert r.archive_path == str(out) and r.sig_path == str(out) + ".sig"
    assert r.minisig_path == str(out) + ".minisig"
    assert r.identity == "alice" and r.fingerprint == k.fingerprint
    assert r.id == AGENTPACK and r.version == "0.1.0"
    assert r.signature_count == 1 and r.source is None
    v = packsign.verify(out, public_key=k.public_key)
    assert v.ok and v.signers[0].identity == "alice"
    assert v.archive_digest == r.archive_digest
    assert v.archive_read == "chunks"       # v2: read once (issue 30)
    cli("verify", out, "-p", k.public_key)
    # v1 on request: verified the v1 way (a lease, or a copy)
    packsign.sign(out, k.secret_key, passphrase="pw", force=True,
                  predicate_version=1)
    v = packsign.verify(out, public_key=k.public_key)
    assert v.ok and v.archive_read != "chunks"
    # A wrong passphrase, once: the binding never prompts.
    with pytest.raises(packsign.PacksignError) as e:
        packsign.sign(pack, k.secret_key, passphrase="nope",
                      out=tmp_path / "t.tar.gz")
    assert e.value.code == "wrong_passphrase" and e.value.exit == 2
    assert not (tmp_path / "t.tar.gz").exists()
    # An invalid manifest: its diagnostics in the error's result.
    m = pack / "manifest.yml"
    m.write_text(m.read_text().replace("version: 0.1.0", "version: x"))
    with pytest.raises(packsign.PacksignError) as e:
        packsign.sign(pack, k.secret_key, passphrase="pw",
                      out=tmp_path / "u.tar.gz")
    assert e.value.code == "manifest_invalid"
    assert any(d.code == "version_invalid" for d in e.value.result.diagnostics)


def test_verify_installed(world, data_dir):
    packsign.install(world.v1, trust=world.policy, data_dir=data_dir)
    packsign.install(world.v2, trust=world.policy, data_dir=data_dir,
                     accept=["permissions"])
    tree = data_dir / "agentpacks" / AGENTPACK / "0.1.0"
    [c] = packsign.verify_installed(tree, trust=world.policy)
    assert c.ok and c.signature_checked and c.receipt.version == "0.1.0"
    assert c.tree_digest == c.receipt.tree_digest
    both = packsign.verify_installed(packsign.InstalledRef(AGENTPACK),
                                     data_dir=data_dir)
    assert [x.receipt.version for x in both] == ["0.1.0", "0.2.0"]
    assert all(x.ok and not x.signature_checked for x in both)
    os.chmod(tree / "README.md", 0o644)
    with open(tree / "README.md", "a") as f:
        f.write("an edit\n")
    [c] = packsign.verify_installed(packsign.InstalledRef(AGENTPACK, "0.1.0"),
                                    data_dir=data_dir)
    assert not c.ok and c.code == "installed_modified" and c.exit == 1
    assert c.modified == ["README.md"] and c.added == [] and c.missing == []
    with pytest.raises(packsign.PacksignError):
        c.check()
    r = cli("verify", "--installed", tree, check=False)
    assert r.returncode == 1 and "modified: README.md" in r.stdout
    with pytest.raises(packsign.PacksignError) as e:
        packsign.verify_installed(packsign.InstalledRef("no.such"),
                                  data_dir=data_dir)
    assert e.value.code == "not_installed"


def test_reinstall_restores_a_modified_tree(world, data_dir):
    packsign.install(world.v1, trust=world.policy, data_dir=data_dir)
    tree = data_dir / "agentpacks" / AGENTPACK / "0.1.0"
    os.chmod(tree / "README.md", 0o644)
    (tree / "README.md").write_text("replaced\n")
    with pytest.raises(packsign.PacksignError) as e:
        packsign.install(world.v1, trust=world.policy, data_dir=data_dir)
    assert e.value.code == "installed_modified" and "--reinstall" in \
        e.value.message
    r = packsign.install(world.v1, trust=world.policy, data_dir=data_dir,
                         reinstall=True)
    assert r.reinstalled and r.installed and not r.already_installed
    [c] = packsign.verify_installed(tree, trust=world.policy)
    assert c.ok
    with pytest.raises(packsign.PacksignError) as e:
        packsign.install(world.v1, trust=world.policy, data_dir=data_dir,
                         reinstall=True, allow_signer_change=True)
    assert e.value.code == "invalid_argument"


def test_install_indexed_from_dir(world, data_dir, tmp_path):
    # The index names https://example.invalid/packs/: nothing downloads.
    with packsign.verify_index(world.index, trust=world.policy) as ix:
        entry = ix.resolve(AGENTPACK, "0.1.0")
        r = packsign.install_indexed(ix, entry, from_dir=world.dir,
                                     trust=world.policy, data_dir=data_dir)
        assert r.installed and r.version == "0.1.0"
        other = tmp_path / "other"
        other.mkdir()
        (other / "ap-0.2.0.tar.gz").write_bytes(world.v1.read_bytes())
        (other / "ap-0.2.0.tar.gz.sig").write_bytes(
            (world.dir / "ap-0.1.0.tar.gz.sig").read_bytes())
        with pytest.raises(packsign.PacksignError) as e:
            packsign.install_indexed(ix, ix.resolve(AGENTPACK, "0.2.0"),
                                     from_dir=other, trust=world.policy,
                                     data_dir=data_dir, accept=["permissions"])
        assert e.value.code == "index_mismatch"
