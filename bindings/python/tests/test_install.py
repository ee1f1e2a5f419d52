"""install(): fresh, the same as the CLI's --json, upgrades needing
consent (refused, then accepted by classes, by the exact diff, by a
callback), confirm, list and uninstall."""
import json

import pytest

import packsign
from conftest import AGENTPACK, cli, cli_json


def test_fresh_install_then_a_no_op(world, data_dir):
    r = packsign.install(world.v1, trust=world.policy, data_dir=data_dir)
    assert r.installed and not r.already_installed and r.pinned
    assert r.id == AGENTPACK and r.version == "0.1.0"
    assert r.path == str(data_dir / "agentpacks" / AGENTPACK / "0.1.0")
    assert (data_dir / "agentpacks" / AGENTPACK / "0.1.0" /
            "manifest.yml").is_file()
    assert r.verify.ok and r.verify.signers[0].identity == "alice"
    assert r.diff is None and r.consent.from_version is None
    again = packsign.install(world.v1, trust=world.policy, data_dir=data_dir)
    assert again.already_installed and again.tree_digest == r.tree_digest


def test_same_as_cli_json(world, tmp_path):
    d1, d2 = tmp_path / "py", tmp_path / "cli"
    r = packsign.install(world.v1, trust=world.policy, data_dir=d1)
    status, js = cli_json("install", world.v1, "--trust", world.policy,
                          "--data-dir", d2, "--yes")
    assert status == 0 and js["ok"] and js["exit"] == 0
    assert js["id"] == r.id and js["version"] == r.version
    assert js["format"] == r.format and js["name"] == r.name
    assert js["domain"] == r.domain
    assert js["tree_digest"] == r.tree_digest
    assert js["size"] == r.total_size
    assert js["pinned"] == r.pinned
    assert js["path"].replace(str(d2), "") == r.path.replace(str(d1), "")
    assert js["summary"] == r.summary.rstrip("\n").split("\n")
    v = js["verify"]
    assert v["digests"]["archive"] == r.verify.archive_digest
    assert v["digests"]["tree"] == r.verify.tree_digest
    assert [(i["identity"], i["fingerprint"]) for i in v["identities"]] == \
        [(s.identity, s.fingerprint) for s in r.verify.signers]


def test_refusal_same_as_cli_json(world, tmp_path):
    with pytest.raises(packsign.PacksignError) as e:
        packsign.install(world.tampered, trust=world.policy,
                         data_dir=tmp_path / "py")
    status, js = cli_json("install", world.tampered, "--trust", world.policy,
                          "--data-dir", tmp_path / "cli", "--yes")
    assert status == e.value.exit == js["exit"] == 1
    assert js["code"] == e.value.code == "subject_mismatch"
    for k in ("message", "expected", "found"):
        assert js[k] == getattr(e.value, k), k
    assert e.value.result is not None and not e.value.result.installed


def test_upgrade_needs_consent(world, data_dir):
    packsign.install(world.v1, trust=world.policy, data_dir=data_dir)
    with pytest.raises(packsign.PacksignError) as e:
        packsign.install(world.v2, trust=world.policy, data_dir=data_dir)
    assert e.value.code == "consent_required" and e.value.exit == 2
    res = e.value.result
    assert res is not None and "permissions" in res.consent_needed
    assert any(c.field == "permissions.network" and c.widening
               for c in res.diff.changes)
    # A class that is not the one widened is no consent either.
    with pytest.raises(packsign.PacksignError) as e:
        packsign.install(world.v2, trust=world.policy, data_dir=data_dir,
                         accept=["code"])
    assert e.value.code == "consent_required"
    r = packsign.install(world.v2, trust=world.policy, data_dir=data_dir,
                         accept=["permissions"])
    assert r.installed and r.version == "0.2.0"
    assert r.consent.from_version == "0.1.0" and r.consent.by == "accept"
    assert "permissions" in r.consent.widened


def test_upgrade_accepted_by_the_exact_diff(world, data_dir, tmp_path):
    packsign.install(world.v1, trust=world.policy, data_dir=data_dir)
    d = packsign.diff(packsign.InstalledRef(AGENTPACK), world.v2,
                      trust=world.policy, data_dir=data_dir)
    f = tmp_path / "diff.json"
    f.write_text(d.to_json())
    r = packsign.install(world.v2, trust=world.policy, data_dir=data_dir,
                         accept_diff=f)
    assert r.installed and r.consent.by == "accept-diff"


def test_upgrade_consent_by_callback(world, data_dir):
    packsign.install(world.v1, trust=world.policy, data_dir=data_dir)
    seen = []

    def refuse(plan):
        seen.append(plan)
        return False
    with pytest.raises(packsign.PacksignError) as e:
        packsign.install(world.v2, trust=world.policy, data_dir=data_dir,
                         consent=refuse)
    assert e.value.exit in (1, 2) and e.value.code
    plan = seen[0]
    assert plan.replaces_newest == "0.1.0" and plan.version == "0.2.0"
    assert plan.consent_needed == ["permissions"]
    assert plan.diff is not None and "network" in plan.diff.to_json()
    r = packsign.install(world.v2, trust=world.policy, data_dir=data_dir,
                         consent=lambda plan: True, consent_by="python-test")
    assert r.installed and r.consent.by == "python-test"


def test_confirm_callback_and_its_exceptions(world, data_dir):
    with pytest.raises(packsign.PacksignError) as e:
        packsign.install(world.v1, trust=world.policy, data_dir=data_dir,
                         confirm=lambda plan: False)
    assert e.value.code == "install_declined"

    class Boom(Exception):
        pass

    def boom(plan):
        raise Boom(plan.id)
    with pytest.raises(Boom):
        packsign.install(world.v1, trust=world.policy, data_dir=data_dir,
                         confirm=boom)
    assert packsign.list_installed(data_dir) == []
    plans = []
    r = packsign.install(world.v1, trust=world.policy, data_dir=data_dir,
                         confirm=lambda p: plans.append(p) or True)
    assert r.installed and plans[0].destination == r.path
    assert "network" in plans[0].summary


def test_dry_run_keeps_nothing(world, data_dir):
    r = packsign.install(world.v1, trust=world.policy, data_dir=data_dir,
                         dry_run=True)
    assert r.dry_run and not r.installed
    assert packsign.list_installed(data_dir) == []


def test_list_and_uninstall(world, data_dir):
    assert packsign.list_installed(data_dir) == []
    packsign.install(world.v1, trust=world.policy, data_dir=data_dir)
    packsign.install(world.v2, trust=world.policy, data_dir=data_dir,
                     accept="permissions")
    items = packsign.list(data_dir)
    assert [(i.id, i.version, i.newest) for i in items] == \
        [(AGENTPACK, "0.1.0", False), (AGENTPACK, "0.2.0", True)]
    status, js = cli_json("list", "--data-dir", data_dir)
    assert status == 0
    assert "0.2.0" in json.dumps(js) and items[1].signer == "alice"
    assert items[1].signers[0].fingerprint.startswith("SHA256:")
    removed = packsign.uninstall(AGENTPACK, "0.1.0", data_dir=data_dir)
    assert [r.version for r in removed] == ["0.1.0"]
    assert [i.version for i in packsign.list(data_dir)] == ["0.2.0"]
    packsign.uninstall(AGENTPACK, data_dir=data_dir)
    assert packsign.list(data_dir) == []
    with pytest.raises(packsign.PacksignError) as e:
        packsign.uninstall(AGENTPACK, data_dir=data_dir)
    assert e.value.code == "not_installed"


def test_install_url_refuses_http(world, data_dir):
    with pytest.raises(packsign.PacksignError) as e:
        packsign.install_url("http://example.invalid/a.tar.gz",
                             trust=world.policy, data_dir=data_dir)
    assert e.value.code == "url_scheme_refused" and e.value.exit == 2
    r = packsign.fetch("http://example.invalid/a.tar.gz",
                       data_dir / "a.tar.gz", trust=world.policy)
    assert not r.ok and r.code == "url_scheme_refused"
