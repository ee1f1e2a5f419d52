"""install_url, fetch and install_indexed against the loopback HTTPS
server of the CLI tests (tests/cli/net_server.py) with a throwaway CA:
nothing leaves 127.0.0.1."""
import dataclasses
import shutil
import subprocess
import sys
import time

import pytest

import packsign
from conftest import AGENTPACK, REPO, cli


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True,
                   capture_output=True)


@pytest.fixture(scope="module")
def server(world, tmp_path_factory):
    d = tmp_path_factory.mktemp("net")
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
             "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=ca", "-days",
             "2", "-keyout", "ca.key", "-out", "ca.pem", cwd=d)
    _openssl("req", "-new", "-newkey", "ec", "-pkeyopt",
             "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=srv",
             "-keyout", "srv.key", "-out", "srv.csr", cwd=d)
    (d / "srv.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey",
             "ca.key", "-CAcreateserial", "-days", "2", "-extfile",
             "srv.ext", "-out", "srv.pem", cwd=d)
    www = d / "www"
    www.mkdir()
    for f in (world.v1, world.v2):
        shutil.copy(f, www)
        shutil.copy(str(f) + ".sig", www)
    proc = subprocess.Popen([sys.executable,
                             str(REPO / "tests/cli/net_server.py"), str(www),
                             str(d / "srv.pem"), str(d / "srv.key"),
                             str(d / "port")])
    try:
        for _ in range(100):
            if (d / "port").exists() and (d / "port").read_text().strip():
                break
            time.sleep(0.1)
        base = f"https://127.0.0.1:{(d / 'port').read_text().strip()}/files/"
        index = d / "index.json"
        cli("index", "build", world.v1, world.v2, "-o", index, "-s",
            world.dir / "alice.key", "--trust", world.policy, "--base-url",
            base)
        yield base, packsign.FetchOptions(ca_file=d / "ca.pem", timeout=30), \
            index
    finally:
        proc.terminate()
        proc.wait()


def test_install_url(world, server, data_dir):
    base, fetch, _ = server
    r = packsign.install_url(base + world.v1.name, trust=world.policy,
                             data_dir=data_dir, fetch=fetch)
    assert r.installed and r.version == "0.1.0"
    assert [i.version for i in packsign.list(data_dir)] == ["0.1.0"]


def test_install_url_without_the_ca_is_a_tls_failure(world, server,
                                                     data_dir):
    base, _, _ = server
    with pytest.raises(packsign.PacksignError) as e:
        packsign.install_url(base + world.v1.name, trust=world.policy,
                             data_dir=data_dir)
    assert e.value.code == "fetch_tls" and e.value.exit == 2


def test_fetch(world, server, tmp_path):
    base, fetch, _ = server
    r = packsign.fetch(base + world.v1.name, tmp_path / "a.tar.gz",
                       trust=world.policy, options=fetch)
    assert r.ok and r.id == AGENTPACK
    assert (tmp_path / "a.tar.gz").read_bytes() == world.v1.read_bytes()
    assert (tmp_path / "a.tar.gz.sig").exists()


def test_install_indexed_then_an_upgrade_by_consent(world, server,
                                                    data_dir):
    _, fetch, index_file = server
    data = packsign.read_index(index_file)
    with packsign.verify_index(data, trust=world.policy) as ix:
        e1 = ix.resolve(AGENTPACK, "0.1.0")
        r = packsign.install_indexed(ix, e1, trust=world.policy,
                                     data_dir=data_dir, fetch=fetch)
        assert r.installed and r.version == "0.1.0"
        seen = packsign.index_state_load(data_dir, "alice")
        assert seen is not None and seen.payload_sha256 == ix.payload_sha256
        newest = ix.resolve(AGENTPACK)
        with pytest.raises(packsign.PacksignError) as e:
            packsign.install_indexed(ix, newest, trust=world.policy,
                                     data_dir=data_dir, fetch=fetch)
        assert e.value.code == "consent_required"
        r = packsign.install_indexed(ix, newest, trust=world.policy,
                                     data_dir=data_dir, fetch=fetch,
                                     consent=lambda plan: True)
        assert r.installed and r.version == "0.2.0"


def test_install_indexed_maps_an_entry_by_identity_not_position(
        world, server, data_dir, tmp_path):
    """An entry of another copy of the index installs that entry's
    version, not what sits at its position here; one this index does
    not list is refused."""
    _, fetch, index_file = server
    shorter = tmp_path / "shorter.json"     # 0.2.0 at position 0
    cli("index", "remove", index_file, f"{AGENTPACK}@0.1.0", "-o", shorter,
        "-s", world.dir / "alice.key")
    with packsign.verify_index(packsign.read_index(index_file),
                               trust=world.policy) as ix, \
            packsign.verify_index(packsign.read_index(shorter),
                                  trust=world.policy) as other:
        e2 = other.resolve(AGENTPACK, "0.2.0")
        assert e2.position == 0 and ix.entries[0].version == "0.1.0"
        r = packsign.install_indexed(ix, e2, trust=world.policy,
                                     data_dir=data_dir, fetch=fetch,
                                     record_state=False)
        assert r.installed and r.version == "0.2.0"
        forged = dataclasses.replace(e2, sha256="sha256:" + "0" * 64)
        with pytest.raises(packsign.PacksignError) as e:
            packsign.install_indexed(ix, forged, trust=world.policy,
                                     data_dir=data_dir, fetch=fetch)
        assert e.value.code == "invalid_argument" and e.value.exit == 2
        assert "not one of index version" in str(e.value)


def test_install_indexed_refuses_a_yanked_entry_unless_allowed(
        world, server, data_dir, tmp_path):
    _, fetch, index_file = server
    yanked = tmp_path / "yanked.json"
    cli("index", "yank", index_file, f"{AGENTPACK}@0.1.0", "--reason",
        "broken", "-o", yanked, "-s", world.dir / "alice.key")
    with packsign.verify_index(packsign.read_index(yanked),
                               trust=world.policy) as ix:
        e1 = ix.resolve(AGENTPACK, "0.1.0", allow_yanked=True)
        assert e1.yanked == "broken"
        with pytest.raises(packsign.PacksignError) as e:
            packsign.install_indexed(ix, e1, trust=world.policy,
                                     data_dir=data_dir, fetch=fetch)
        assert e.value.code == "version_yanked" and e.value.exit == 1
        assert packsign.list(data_dir) == []
        r = packsign.install_indexed(ix, e1, trust=world.policy,
                                     data_dir=data_dir, fetch=fetch,
                                     allow_yanked=True)
        assert r.installed and r.version == "0.1.0"
