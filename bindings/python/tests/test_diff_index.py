"""diff() and the index calls, against the CLI."""
import json

import pytest

import packsign
from conftest import AGENTPACK, EXAMPLES, cli, cli_json, copy_pack


def test_diff_of_two_archives_is_the_clis(world):
    d = packsign.diff(world.v1, world.v2, trust=world.policy)
    assert d.id == AGENTPACK and (d.old_version, d.new_version) == \
        ("0.1.0", "0.2.0")
    assert d.trusted and "permissions" in d.widening_classes
    net = [c for c in d.changes if c.field == "permissions.network"]
    assert net and net[0].group == "permissions" and net[0].widening
    assert (net[0].old_value, net[0].new_value) == ("false", "true")
    assert net[0].consent == "permissions"
    r = cli("diff", world.v1, world.v2, "--trust", world.policy, "--json",
            check=False)
    assert r.returncode == 1          # differences
    assert json.loads(r.stdout) == json.loads(d.to_json())


def test_a_prompt_without_a_text_diff_says_why(tmp_path):
    old = copy_pack(tmp_path / "old", "soyapack-research-summarizer")
    new = copy_pack(tmp_path / "new", "soyapack-research-summarizer")
    (new / "prompts" / "summarize.md").write_text("x\n" * 140000)
    (new / "prompts" / "extract.md").write_bytes(b"\xff\xfe\n")
    d = packsign.diff(old, new)
    why = {c.subject: (c.text_omitted, c.text_diff) for c in d.changes}
    assert why["prompts/summarize.md"] == ("too_large", None)
    assert why["prompts/extract.md"] == ("binary", None)
    (new / "prompts" / "summarize.md").write_text("x\n")
    d = packsign.diff(old, new)
    summarize = [c for c in d.changes if c.subject == "prompts/summarize.md"]
    assert summarize[0].text_omitted is None and summarize[0].text_diff


def test_diff_of_a_pack_with_itself_is_empty(world):
    d = packsign.diff(EXAMPLES / AGENTPACK, EXAMPLES / AGENTPACK)
    assert d.empty and not d.trusted


def test_diff_against_the_installed_version(world, data_dir):
    packsign.install(world.v1, trust=world.policy, data_dir=data_dir)
    d = packsign.diff(packsign.InstalledRef(AGENTPACK), world.v2,
                      trust=world.policy, data_dir=data_dir)
    assert d.old_version == "0.1.0" and "permissions" in d.widening_classes
    with pytest.raises(packsign.PacksignError) as e:
        packsign.diff(packsign.InstalledRef("no.such"), world.v2,
                      trust=world.policy, data_dir=data_dir)
    assert e.value.code == "not_installed"


@pytest.fixture
def index(world):
    with packsign.verify_index(world.index, trust=world.policy) as ix:
        yield ix


def test_index_verify_is_the_clis(world, index):
    status, js = cli_json("index", "verify", world.index, "--trust",
                          world.policy)
    assert status == 0 and js["ok"]
    assert js["version"] == index.version == 1
    assert js["publisher"] == index.publisher == "alice"
    assert js["fingerprint"] == index.fingerprint
    assert js["index_sha256"] == index.payload_sha256
    assert [(p["id"], p["version"], p["url"], p["archive_digest"])
            for p in js["packs"]] == \
        [(e.id, e.version, e.archive_url, e.sha256) for e in index.entries]


def test_index_resolve(index):
    assert index.resolve(AGENTPACK).version == "0.2.0"
    assert index.resolve(AGENTPACK, "^0.1").version == "0.1.0"
    assert index.resolve(AGENTPACK, "0.1.0").archive_url == \
        "https://example.invalid/packs/ap-0.1.0.tar.gz"
    with pytest.raises(packsign.PacksignError) as e:
        index.resolve(AGENTPACK, ">=1.0")
    assert e.value.code == "index_no_match" and e.value.exit == 1
    with pytest.raises(packsign.PacksignError) as e:
        index.resolve("no.such")
    assert e.value.code == "index_not_listed"


def test_index_refused_by_an_untrusted_policy(world):
    with pytest.raises(packsign.PacksignError) as e:
        packsign.verify_index(world.index, trust=world.mallory_policy)
    assert e.value.exit == 1


def test_index_needs_the_index_role(world, tmp_path):
    from conftest import policy
    pack_only = policy(tmp_path / "p.yaml", "alice", world.alice_pub,
                       roles="[pack]")
    with pytest.raises(packsign.PacksignError) as e:
        packsign.verify_index(world.index, trust=pack_only)
    assert e.value.code == "role_missing"


def test_index_state(world, index, data_dir):
    assert packsign.index_state_load(data_dir, "alice") is None
    packsign.index_state_check(None, index)
    assert packsign.index_state_record(data_dir, index) is True
    seen = packsign.index_state_load(data_dir, "alice")
    assert seen.version == 1 and seen.payload_sha256 == index.payload_sha256
    packsign.index_state_check(seen, index)
    assert packsign.index_state_record(data_dir, index) is False
    # Another index of the same version is equivocation.
    other = packsign.IndexSeen(1, "sha256:" + "00" * 32, seen.first_seen)
    with pytest.raises(packsign.PacksignError) as e:
        packsign.index_state_check(other, index)
    assert e.value.code == "index_equivocation"
    newer = packsign.IndexSeen(2, seen.payload_sha256, seen.first_seen)
    with pytest.raises(packsign.PacksignError) as e:
        packsign.index_state_check(newer, index)
    assert e.value.code == "index_rollback"
    status, js = cli_json("index", "verify", world.index, "--trust",
                          world.policy, "--data-dir", data_dir)
    assert status == 0 and js["index_state"] is not None


def test_install_indexed_downloads_from_the_listed_url(world, index,
                                                       data_dir):
    # The index lists https://example.invalid/...: no network in the
    # tests, so the download fails (exit 2) after the state checks.
    entry = index.resolve(AGENTPACK)
    with pytest.raises(packsign.PacksignError) as e:
        packsign.install_indexed(
            index, entry, trust=world.policy, data_dir=data_dir,
            fetch=packsign.FetchOptions(connect_timeout=5, timeout=10))
    assert e.value.exit == 2 and e.value.code.startswith("fetch_")


def test_a_closed_index_is_refused(world):
    ix = packsign.verify_index(world.index, trust=world.policy)
    ix.close()
    assert ix.entries and ix.version == 1
    with pytest.raises(ValueError):
        ix.resolve(AGENTPACK)
