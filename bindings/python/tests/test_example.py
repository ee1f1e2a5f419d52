"""examples/python/install_pack.py: installs, refuses tampered bytes, and
without a terminal refuses instead of asking."""
import os
import subprocess
import sys

from conftest import AGENTPACK, REPO

EXAMPLE = REPO / "examples" / "python" / "install_pack.py"


def run(*args, stdin=subprocess.DEVNULL):
    env = dict(os.environ,
               PYTHONPATH=str(REPO / "bindings" / "python"))
    return subprocess.run([sys.executable, str(EXAMPLE), *map(str, args)],
                          capture_output=True, text=True, env=env,
                          stdin=stdin)


def test_installs_then_is_a_no_op_without_a_terminal(world, data_dir):
    # A first install asks to confirm: without a terminal it refuses.
    r = run(world.v1, world.policy, data_dir)
    assert r.returncode == 1, r.stderr
    assert "not a terminal" in r.stderr and "install_declined" in r.stderr
    assert "does not access the network" in r.stdout
    assert not (data_dir / "agentpacks").exists()


def test_upgrade_diff_is_shown_and_refused_without_a_terminal(world,
                                                              data_dir):
    import packsign
    packsign.install(world.v1, trust=world.policy, data_dir=data_dir)
    r = run(world.v2, world.policy, data_dir)
    assert r.returncode in (1, 2), r.stderr
    assert "upgrade from 0.1.0" in r.stdout
    assert "permissions.network" in r.stdout and "widening" in r.stdout
    assert [i.version for i in packsign.list(data_dir)] == ["0.1.0"]


def test_already_installed_and_tampered(world, data_dir):
    import packsign
    packsign.install(world.v1, trust=world.policy, data_dir=data_dir)
    r = run(world.v1, world.policy, data_dir)
    assert r.returncode == 0 and f"already installed: {AGENTPACK}" in r.stdout
    r = run(world.tampered, world.policy, data_dir)
    assert r.returncode == 1
    assert "[subject_mismatch]" in r.stderr and "expected: sha256:" in r.stderr


def test_installs_when_a_terminal_answers_yes(world, data_dir):
    import pty
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["PYTHONPATH"] = str(REPO / "bindings" / "python")
        os.execv(sys.executable, [sys.executable, str(EXAMPLE),
                                  str(world.v1), str(world.policy),
                                  str(data_dir)])
    out = b""
    while b"[y/N]" not in out:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        out += chunk
    os.write(fd, b"y\n")
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, out
    assert b"installed " + AGENTPACK.encode() in out
