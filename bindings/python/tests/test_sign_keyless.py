"""sign_keyless() against the local Sigstore served on 127.0.0.1
(tests/sigstore/serve): the bundle it writes verifies with verify_blob() and
the CLI, and its refusals are the CLI's codes."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import packsign
from conftest import AGENTPACK, cli, copy_pack

SERVE = Path(__file__).resolve().parents[3] / "tests" / "sigstore" / "serve"
ISSUER = "https://token.actions.githubusercontent.com"


@pytest.fixture
def sigstore(tmp_path):
    pytest.importorskip("cryptography")
    d = tmp_path / "srv"
    d.mkdir()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.Popen([sys.executable, str(SERVE), str(d)], env=env)
    try:
        for _ in range(200):
            if (d / "ready").exists():
                break
            time.sleep(0.1)
        assert (d / "ready").exists(), "the loopback Sigstore did not start"
        yield d
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)


def test_sign_keyless_writes_a_bundle_that_verifies(tmp_path, sigstore):
    pack = copy_pack(tmp_path / "pack")
    out = tmp_path / "p.tar.gz"
    fetch = packsign.FetchOptions(ca_file=sigstore / "ca.pem")
    r = packsign.sign_keyless(
        pack, (sigstore / "token").read_text(), out=out,
        signing_config=sigstore / "signing_config.json",
        trusted_root=sigstore / "trusted_root.json", fetch=fetch,
        allow_dirty=True)
    identity = (sigstore / "identity").read_text().strip()
    assert r.identity == identity
    assert r.bundle_paths == [str(out) + ".1.sigstore.json"]
    assert not os.path.exists(str(out) + ".sig")
    b = packsign.verify_blob(out, r.bundle_paths[0], identity=identity,
                             issuer=ISSUER,
                             trusted_root=sigstore / "trusted_root.json")
    assert b.ok, b
    cli("verify-blob", out, "--bundle", r.bundle_paths[0],
        "--certificate-identity", identity, "--certificate-oidc-issuer",
        ISSUER, "--trusted-root", sigstore / "trusted_root.json", "-q")


@pytest.mark.parametrize("token,code", [
    ("token-expired", "identity_token_expired"),
    ("token-audience", "identity_token_invalid"),
])
def test_sign_keyless_refuses_a_bad_token(tmp_path, sigstore, token, code):
    pack = copy_pack(tmp_path / "pack")
    with pytest.raises(packsign.PacksignError) as e:
        packsign.sign_keyless(
            pack, (sigstore / token).read_text(), out=tmp_path / "p.tar.gz",
            signing_config=sigstore / "signing_config.json",
            trusted_root=sigstore / "trusted_root.json",
            fetch=packsign.FetchOptions(ca_file=sigstore / "ca.pem"),
            allow_dirty=True)
    assert e.value.code == code and e.value.exit == 2
    assert not (tmp_path / "p.tar.gz").exists()
