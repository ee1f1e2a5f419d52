"""verify(): good, tampered, untrusted, hostile archives; the same as the
CLI's --json."""
import pytest

import packsign
from conftest import cli, cli_json


def test_good_pack(world):
    r = packsign.verify(world.v1, trust=world.policy)
    assert r.ok and r.exit == 0 and r.code is None
    assert r.id == "research.top-journal-reviewer" and r.version == "0.1.0"
    assert [s.identity for s in r.signers] == ["alice"]
    assert r.signers[0].fingerprint.startswith("SHA256:")
    assert r.source is None          # signed outside a git work tree
    assert r.check() is r
    # -p KEY.pub trusts exactly that key.
    assert packsign.verify(world.v1, public_key=world.alice_pub).ok


def test_tampered_archive(world):
    r = packsign.verify(world.tampered, trust=world.policy)
    assert not r.ok and r.exit == 1 and r.code == "subject_mismatch"
    assert r.expected.startswith("sha256:") and r.found.startswith("sha256:")
    assert r.expected != r.found
    with pytest.raises(packsign.PacksignError) as e:
        r.check()
    assert e.value.code == "subject_mismatch" and e.value.exit == 1
    assert e.value.expected == r.expected and e.value.found == r.found


def test_untrusted_key(world):
    r = packsign.verify(world.v1, trust=world.mallory_policy)
    assert not r.ok and r.exit == 1
    assert r.code == "signature_untrusted"
    assert r.signatures and not r.signatures[0].counted


def test_bad_policy_file_raises(world, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 9\n")
    with pytest.raises(packsign.PacksignError) as e:
        packsign.verify(world.v1, trust=bad)
    assert e.value.exit == 2 and e.value.code.startswith("trust_")
    with pytest.raises(ValueError):
        packsign.verify(world.v1)


@pytest.mark.parametrize("which", ["v1", "tampered"])
def test_same_as_cli_json(world, which):
    path = getattr(world, which)
    status, js = cli_json("verify", path, "--trust", world.policy)
    want = js["results"][0]
    r = packsign.verify(path, trust=world.policy)
    assert status == r.exit
    assert want["ok"] == r.ok and want["exit"] == r.exit
    assert want["code"] == r.code
    for k in ("message", "expected", "found"):
        assert (want[k] or "") == getattr(r, k), k
    assert want["id"] == r.id and want["version"] == r.version
    assert want["threshold"] == r.threshold
    assert [(i["identity"], i["fingerprint"]) for i in want["identities"]] \
        == [(s.identity, s.fingerprint) for s in r.signers]
    assert want["digests"]["archive"] == r.archive_digest
    assert want["digests"]["tar"] == r.tar_digest
    assert want["digests"]["tree"] == r.tree_digest
    assert want["prompt_files"] == r.prompt_count
    assert want["read"]["how"] == r.archive_read
    assert want["read"]["lease_declined"] == r.lease_declined
    assert want["source"] is None and r.source is None
    assert [(s["index"], s["counted"], s["fingerprint"], s["identity"])
            for s in want["signatures"]] == \
        [(s.index, s.counted, s.fingerprint, s.identity)
         for s in r.signatures]


def _hostile(tmp_path, world):
    """Hostile archives in the shapes tests/corpus/mkhostile makes (that
    whole corpus takes minutes to build; tests/cli/differential.bats runs
    it): the example pack plus one twist each."""
    import io
    import tarfile
    src = tarfile.open(world.v1)
    cases = {}
    for twist in ("symlink", "dotdot", "absolute", "duplicate", "device"):
        path = tmp_path / f"{twist}.tar"
        with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as t:
            for m in src.getmembers():
                t.addfile(m, src.extractfile(m) if m.isfile() else None)
            extra = tarfile.TarInfo()
            if twist == "symlink":
                extra.name, extra.type = "link", tarfile.SYMTYPE
                extra.linkname = "/etc/passwd"
            elif twist == "dotdot":
                extra.name = "../escape"
            elif twist == "absolute":
                extra.name = "/tmp/absolute"
            elif twist == "duplicate":
                extra.name = "manifest.yml"
            else:
                extra.name, extra.type = "dev", tarfile.CHRTYPE
            t.addfile(extra, io.BytesIO(b"") if extra.isfile() else None)
        cases[twist] = path
    return cases


def test_hostile_archives_are_refused_as_the_cli_refuses_them(tmp_path,
                                                             world):
    for twist, path in _hostile(tmp_path, world).items():
        with pytest.raises(packsign.PacksignError) as e:
            packsign.digest(path)
        assert e.value.exit == 1, twist
        r = cli("digest", path, check=False)
        assert r.returncode == 1, twist
        assert r.stderr.rstrip().endswith(f"[{e.value.code}]"), twist


def test_hostile_archive_with_a_signature_is_refused_by_verify(tmp_path,
                                                               world):
    path = _hostile(tmp_path, world)["symlink"]
    (tmp_path / (path.name + ".sig")).write_bytes(
        open(str(world.v1) + ".sig", "rb").read())
    r = packsign.verify(path, trust=world.policy)
    assert not r.ok and r.exit == 1
    # Authenticated before parsed: the bytes are not the signed subject.
    assert r.code == "subject_mismatch"
