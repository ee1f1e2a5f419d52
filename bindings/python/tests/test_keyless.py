"""Keyless signers (issue 28): packsign.verify with a keyless bundle made
by the local Sigstore (tests/cli/keyless_sign.py); the result carries the
certificate's identity fields and the certified source."""
import subprocess
import sys

import packsign
from conftest import REPO

GH = "https://token.actions.githubusercontent.com"
REL = "https://github.com/acme/packs/.github/workflows/release.yml"


def test_keyless_bundle_identity_fields(world, tmp_path):
    bundle, root = tmp_path / "kl.json", tmp_path / "root.json"
    subprocess.run([sys.executable, str(REPO / "tests" / "cli" / "keyless_sign.py"),
                    str(world.v1) + ".sig", str(bundle), str(root),
                    "repository=acme/packs", "ref=refs/tags/v1.0.0"], check=True)
    trust = tmp_path / "trust.yaml"
    trust.write_text(f"""version: 1
trusted_roots: [root.json]
signers:
  - identity: acme-release
    keyless:
      - issuer: {GH}
        subject: {REL}@refs/tags/v*
        repository_id: 601234567
    packs: ["*"]
""")
    r = packsign.verify(world.v1, trust=trust, bundles=[bundle])
    assert r.ok, r.message
    s = r.signatures[0]
    k = s.keyless
    assert s.counted and s.identity == "acme-release"
    assert k.signer_id.startswith("KEYLESS:") and s.fingerprint == k.signer_id
    assert k.issuer == GH and k.subject == REL + "@refs/tags/v1.0.0"
    assert k.repository == "https://github.com/acme/packs"
    assert k.repository_id == "601234567" and k.ref == "refs/tags/v1.0.0"
    assert k.commit == "4f5a5b0c1d2e3f405162738495a6b7c8d9e0f102"
    assert k.runner == "github-hosted" and not k.reusable_workflow
    assert k.signing_time.isoformat() == "2026-06-01T12:01:00+00:00"
    assert k.policy_line == 6
    # the statement records no source: the certificate's is the source
    assert r.source.certified and r.source.commit == k.commit
    # a policy key's bundle has no keyless fields; a key's signature neither
    r = packsign.verify(world.v1, trust=world.policy)
    assert r.ok and r.signatures[0].keyless is None


def test_keyless_bundle_refused_without_a_matching_entry(world, tmp_path):
    bundle, root = tmp_path / "kl.json", tmp_path / "root.json"
    subprocess.run([sys.executable, str(REPO / "tests" / "cli" / "keyless_sign.py"),
                    str(world.v1) + ".sig", str(bundle), str(root),
                    "repository=evil/packs", "ref=refs/tags/v1.0.0"], check=True)
    r = packsign.verify(world.v1, public_key=world.alice_pub, bundles=[bundle],
                        trusted_root=root)
    assert not r.ok and r.code == "bundle_keyless"
