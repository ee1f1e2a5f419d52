"""Shared set-up: keys, policies and signed copies of the example AgentPack,
all in pytest's temporary directories (never inside the repository's work
tree: a pack signed inside it would record the work tree's git origin).

Environment: PACKSIGN_LIB names the library under test (tests/run sets
it), PACKSIGN the CLI whose --json the results are compared with (default:
the build/packsign beside the library).
"""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples" / "packs"
AGENTPACK = "research.top-journal-reviewer"


def packsign_cli() -> str:
    env = os.environ.get("PACKSIGN")
    if env:
        return env
    lib = os.environ.get("PACKSIGN_LIB")
    if lib:
        cand = Path(lib).resolve().parent / "packsign"
        if cand.exists():
            return str(cand)
    return str(REPO / "build" / "packsign")


def cli(*args, check=True, cwd=None):
    """Runs the CLI; returns the CompletedProcess (text)."""
    env = dict(os.environ)
    for v in ("PACKSIGN_PASSPHRASE", "PACKSIGN_SECRET_KEY",
              "SOURCE_DATE_EPOCH", "PACKSIGN_DATA_DIR"):
        env.pop(v, None)
    r = subprocess.run([packsign_cli(), *map(str, args)], capture_output=True,
                       text=True, cwd=cwd, env=env)
    if check and r.returncode != 0:
        raise AssertionError(f"packsign {args}: exit {r.returncode}\n"
                             f"{r.stdout}\n{r.stderr}")
    return r


def cli_json(*args, cwd=None):
    r = cli(*args, "--json", check=False, cwd=cwd)
    return r.returncode, json.loads(r.stdout)


def copy_pack(dst: Path, name: str = AGENTPACK) -> Path:
    """A private, writable copy of an example pack."""
    shutil.copytree(EXAMPLES / name, dst)
    for p in [dst, *dst.rglob("*")]:
        p.chmod(p.stat().st_mode | 0o200)
    return dst


def policy(path: Path, who: str, pub: Path, roles="[pack, index]") -> Path:
    key = pub.read_text().splitlines()[1]
    path.write_text(f"""version: 1
signers:
  - identity: {who}
    keys:
      - key: {key}
    packs: ["*"]
    roles: {roles}
threshold: 1
""")
    return path


class World:
    """Keys, policies and signed archives shared by a test module."""

    def __init__(self, d: Path) -> None:
        self.dir = d
        for who in ("alice", "mallory"):
            cli("keygen", "-o", d / who, "--identity", who,
                "--no-passphrase")
        self.alice_pub = d / "alice.pub"
        self.policy = policy(d / "policy-alice.yaml", "alice", d / "alice.pub")
        self.mallory_policy = policy(d / "policy-mallory.yaml", "mallory",
                                     d / "mallory.pub")
        pack = copy_pack(d / "pack1")
        self.v1 = d / "ap-0.1.0.tar.gz"
        cli("sign", pack, "-s", d / "alice.key", "-o", self.v1)
        # 0.2.0 asks for the network: a widening permissions change.
        pack2 = copy_pack(d / "pack2")
        m = pack2 / "manifest.yml"
        m.write_text(m.read_text().replace("version: 0.1.0", "version: 0.2.0")
                     .replace("network: false", "network: true"))
        self.v2 = d / "ap-0.2.0.tar.gz"
        cli("sign", pack2, "-s", d / "alice.key", "-o", self.v2)
        # A byte of the gzip trailer changed: subject_mismatch.
        self.tampered = d / "tampered.tar.gz"
        data = bytearray(self.v1.read_bytes())
        data[-1] ^= 1
        self.tampered.write_bytes(bytes(data))
        shutil.copy(str(self.v1) + ".sig", str(self.tampered) + ".sig")
        self.index = d / "index.json"
        cli("index", "build", self.v1, self.v2, "-o", self.index, "-s",
            d / "alice.key", "--trust", self.policy, "--base-url",
            "https://example.invalid/packs/")


@pytest.fixture(scope="session")
def world(tmp_path_factory) -> World:
    return World(tmp_path_factory.mktemp("world"))


@pytest.fixture
def data_dir(tmp_path) -> Path:
    return tmp_path / "data"
