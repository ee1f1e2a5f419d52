"""The offline install the README gives (bindings/python/README.md,
"Offline"): a virtual environment over the system's cffi and setuptools,
pip with no index and no build isolation, from a copy of the package (pip
builds in its source directory)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO


@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="pip under the preloaded sanitizer: the plain "
                    "run installs")
def test_pip_install_without_the_network(tmp_path):
    base = Path(sys.executable)
    venv = tmp_path / "venv"
    made = subprocess.run([str(base), "-m", "venv", "--system-site-packages",
                           str(venv)], capture_output=True, text=True)
    if made.returncode != 0 or not (venv / "bin" / "pip").exists():
        pytest.skip("python3 -m venv with pip is not available here "
                    "(Debian: python3-venv)")
    src = tmp_path / "src"
    shutil.copytree(REPO / "bindings" / "python", src,
                    ignore=shutil.ignore_patterns("tests", "__pycache__"))
    env = dict(os.environ, PIP_NO_INDEX="1", https_proxy="http://127.0.0.1:9",
               http_proxy="http://127.0.0.1:9")
    r = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index",
                        "--no-build-isolation", str(src)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run([str(venv / "bin" / "python"), "-c",
                        "import packsign; print(packsign.library_version())"],
                       capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == __import__("packsign").library_version()
