"""Issues 28-30 in the Python package against the CLI's --json: sign(
keyless=True) against the local Sigstore on 127.0.0.1 (tests/sigstore/
serve), the token a bytearray wiped after use; the bundle verified by
verify_blob and by verify() under a keyless policy (Signature.keyless,
Source.certified/certificate_checked, read); predicate_version; install()
from a descriptor (archive_fd, as `install - --sig F`)."""
import dataclasses
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

import packsign
from conftest import REPO, cli_json, copy_pack, packsign_cli

ISS = "https://token.actions.githubusercontent.com"


def _have_cryptography() -> bool:
    return subprocess.run(["python3", "-c", "import cryptography"],
                          capture_output=True).returncode == 0


@pytest.fixture
def srv(tmp_path):
    """The local Sigstore serving from tmp_path/srv until the test ends."""
    if not _have_cryptography():
        pytest.skip("no python3 cryptography (scripts/install-deps)")
    d = tmp_path / "srv"
    d.mkdir()
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    p = subprocess.Popen(["python3", str(REPO / "tests" / "sigstore" /
                                         "serve"), str(d)], env=env)
    try:
        for _ in range(200):
            if (d / "ready").exists():
                break
            time.sleep(0.1)
        assert (d / "ready").exists(), "serve never got ready"
        yield d
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(10)


def _policy(path: Path, srv: Path, identity: str) -> Path:
    path.write_text(f"""version: 1
trusted_roots: [{srv / 'trusted_root.json'}]
signers:
  - identity: octo-release
    keyless:
      - issuer: {ISS}
        subject: {identity}
        repository_id: "601234567"
    packs: ["*"]
""")
    return path


def _json_time(t):
    return None if t is None else t.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_keyless_sign_verify_same_as_cli(srv, tmp_path):
    identity = (srv / "identity").read_text().strip()
    archive = tmp_path / "p.tar.gz"
    token = bytearray((srv / "token").read_bytes())
    r = packsign.sign(copy_pack(tmp_path / "pack"), keyless=True,
                      identity_token=token, out=archive,
                      signing_config=srv / "signing_config.json",
                      trusted_root=srv / "trusted_root.json",
                      ca_file=srv / "ca.pem")
    assert token == bytearray(len(token)), "the bytearray is wiped"
    bundle = str(archive) + ".1.sigstore.json"
    assert r.bundle_paths == [bundle] and r.sig_path is None
    assert r.identity == identity
    assert not Path(str(archive) + ".sig").exists()
    d2 = tmp_path / "cli"
    status, cjs = cli_json("sign", copy_pack(d2 / "pack"), "-o",
                           d2 / "p.tar.gz", "--keyless", "--identity-token",
                           srv / "token", "--signing-config",
                           srv / "signing_config.json", "--trusted-root",
                           srv / "trusted_root.json", "--ca-file",
                           srv / "ca.pem")
    assert status == 0
    assert (r.archive_digest, r.tree_digest, r.identity, r.sig_path,
            r.signature_count, r.fingerprint) == \
        (cjs["archive_digest"], cjs["tree_digest"],
         cjs["identity"], cjs["sig"], cjs["signatures"], cjs["fingerprint"])

    blob = packsign.verify_blob(archive, bundle, identity=identity,
                                issuer=ISS,
                                trusted_root=srv / "trusted_root.json")
    assert blob.ok and blob.certificate.san == identity

    policy = _policy(tmp_path / "trust.yaml", srv, identity)
    v = packsign.verify(archive, trust=policy, bundles=[bundle])
    status, js = cli_json("verify", archive, "--trust", policy, "--bundle",
                          bundle)
    want = js["results"][0]
    assert status == 0 and v.ok
    k = dataclasses.asdict(v.signatures[0].keyless)
    k["signing_time"] = _json_time(v.signatures[0].keyless.signing_time)
    assert k == want["signatures"][0]["keyless"]
    assert k["policy_line"] == 6 and k["signer_id"].startswith("KEYLESS:")
    assert v.signatures[0].fingerprint == k["signer_id"]
    ws = want["source"]
    assert (v.source.certified, v.source.certificate_checked) == \
        (ws["certified"], ws["certificate_checked"]) == (True, False)
    assert v.source.repository == ws["repository"] == k["repository"]
    assert v.read == want["read"] == {"how": "chunks",
                                      "lease_declined": None}


def test_keyless_token_kinds_refused(tmp_path):
    pack = copy_pack(tmp_path / "pack")
    with pytest.raises(TypeError):
        packsign.sign(pack, keyless=True, identity_token="eyJ.x.y")
    with pytest.raises(ValueError):
        packsign.sign(pack, keyless=True)
    with pytest.raises(ValueError):
        packsign.sign(pack, tmp_path / "x.key", identity_token=b"t")
    with pytest.raises(ValueError):
        packsign.sign(pack, tmp_path / "x.key", predicate_version=3)
    # not a JWT: refused before any request, the bytearray wiped anyway
    bad = bytearray(b"not a token\n")
    with pytest.raises(packsign.PacksignError) as e:
        packsign.sign(pack, keyless=True, identity_token=bad,
                      out=tmp_path / "p.tar.gz",
                      signing_config=tmp_path / "none.json")
    assert e.value.exit == 2
    assert bad == bytearray(len(bad))
    assert not (tmp_path / "p.tar.gz").exists()


def test_predicate_version_and_read_same_as_cli(world, tmp_path):
    for version, how in ((1, None), (2, "chunks")):
        out = tmp_path / f"v{version}.tar.gz"
        packsign.sign(copy_pack(tmp_path / f"pack{version}"),
                      world.dir / "alice.key", out=out,
                      predicate_version=version)
        r = packsign.verify(out, trust=world.policy)
        status, js = cli_json("verify", out, "--trust", world.policy)
        assert status == 0 and r.ok
        assert r.read == js["results"][0]["read"]
        assert (r.read["how"] == "chunks") == (how == "chunks")


def test_install_from_descriptor_same_as_cli(world, tmp_path):
    d1, d2 = tmp_path / "py", tmp_path / "cli"
    with open(world.v1, "rb") as f:
        r = packsign.install(world.v1.name, trust=world.policy, data_dir=d1,
                             archive_fd=f.fileno(),
                             sig_path=str(world.v1) + ".sig")
    with open(world.v1, "rb") as f:
        c = subprocess.run([packsign_cli(), "install", "-", "--sig",
                            str(world.v1) + ".sig", "--trust", world.policy,
                            "--data-dir", d2, "--yes", "--json"], stdin=f,
                           capture_output=True, text=True)

    js = json.loads(c.stdout)
    assert c.returncode == 0 and r.installed and js["action"] == "installed"
    assert js["tree_digest"] == r.tree_digest
    assert js["verify"]["read"] == r.verify.read
    assert js["path"].replace(str(d2), "") == r.path.replace(str(d1), "")
    with pytest.raises(ValueError):
        packsign.install(world.v1.name, trust=world.policy, data_dir=d1,
                         archive_fd=0)



def test_tsa_url_timestamp_counts_as_in_cli(srv, world, tmp_path):
    url = (srv / "url").read_text().strip()
    archive = tmp_path / "p.tar.gz"
    r = packsign.sign(copy_pack(tmp_path / "pack"), world.dir / "alice.key",
                      out=archive, bundle=True,
                      tsa_url=url + "/api/v1/timestamp",
                      ca_file=srv / "ca.pem")
    b = str(archive) + ".1.sigstore.json"
    assert r.bundle_paths == [b]
    root = srv / "trusted_root.json"
    v = packsign.verify(archive, public_key=world.alice_pub, bundles=[b],
                        trusted_root=root)
    status, js = cli_json("verify", archive, "-p", world.alice_pub,
                          "--bundle", b, "--trusted-root", root)
    want = js["results"][0]["signatures"][0]["sigstore"]
    assert status == 0 and v.ok
    assert v.signatures[0].timestamps == want["timestamps"] == 1
    assert v.signatures[0].log_entries == want["log_entries"]
    with pytest.raises(packsign.PacksignError) as e:   # no CA: TLS fails
        packsign.sign(archive, world.dir / "alice.key", bundle=True,
                      force=True, tsa_url=url + "/api/v1/timestamp")
    assert e.value.code == "timestamp_failed"
