#!/usr/bin/env python3
"""packsign benchmarks: `make bench` runs this and writes docs/performance.md.

Long commands (the 1 GiB and 100,000-file datasets, the example suites)
run under /usr/bin/time (GNU time), which gives wall-clock seconds and
peak resident memory to 10 ms; each is run once to warm the page cache,
then --runs times, and the median is reported; `sync` runs (untimed) before
each run.  Every peak memory figure is RSS plus Shmem: memory a command
puts in a memfd or on tmpfs (verify's private copy) is no process's RSS,
so the system's Shmem (/proc/meminfo) is sampled every 10 ms while a
command runs and its peak above the start's is added (other processes'
Shmem counts too: run the benchmarks on a quiet machine).  Short commands
(the small-pack, startup, batch and sigstore rows) run under
build/bench/runmany, which spawns them directly and times each run with
CLOCK_MONOTONIC, and adds the Shmem of one more, untimed run
(bench/runmany.c).  packsign and its peers run in the
same session on the same data, taking turns run by run, so the ratios
compare like with like.  Nothing here is a pass/fail test: targets are read
from the tables (issues 8 and 22, docs/performance.md).

usage: bench/run.py [--runs N] [--small-runs N] [--batch-count N] [--dir DIR]
                    [--scale F] [--out FILE] [--only ROW,...] [--verbose]
                    [--sigstore-runs N] [--results FILE]
       bench/run.py --report-from FILE [--out FILE]

The measurements are also kept in --results (build/bench/results.json);
--report-from writes the report again from them without measuring (after
bench/notes.md, which the report ends with, was edited).

--only takes the row names of ONLY below (or any part of a dataset's
name, e.g. an example's): `make bench BENCH_ONLY=small,batch`.
"""
import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKSIGN = os.path.join(ROOT, "build", "packsign")
RUNMANY = os.path.join(ROOT, "build", "bench", "runmany")
GENPACKS = os.path.join(ROOT, "build", "bench", "genpacks")
EXAMPLES = os.path.join(ROOT, "examples", "packs")
EXAMPLE = os.path.join(ROOT, "examples", "packs", "research.top-journal-reviewer")
TAR_RECIPE = ("tar --sort=name --format=posix "
              "--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime "
              "--mtime=@0 --owner=0 --group=0 --numeric-owner")


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, **kw)


def shmem_kib():
    """The system's Shmem in KiB (/proc/meminfo), or 0."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("Shmem:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class ShmemPeak(threading.Thread):
    """Samples Shmem every 10 ms until stopped; .peak is the most above
    the Shmem at the start."""

    def __init__(self):
        super().__init__(daemon=True)
        self.base = shmem_kib()
        self.peak = 0
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(0.01):
            self.peak = max(self.peak, shmem_kib() - self.base)

    def stop(self):
        self.done.set()
        self.join()
        self.peak = max(self.peak, shmem_kib() - self.base)
        return self.peak


def run_once(cmd):
    """Wall seconds and peak memory (KiB: GNU time's peak RSS plus the
    Shmem sampled meanwhile) of one run of `cmd`."""
    # No run pays for the previous run's writeback: tools that leave
    # dirty pages (tar) would otherwise slow down whatever runs next.
    sh("sync")
    sampler = ShmemPeak()
    sampler.start()
    res = subprocess.run(["/usr/bin/time", "-f", "%e %M", "sh", "-c", cmd],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    shmem = sampler.stop()
    if res.returncode != 0:
        sys.exit("bench: command failed (%d): %s\n%s" %
                 (res.returncode, cmd, res.stderr))
    wall, peak = res.stderr.strip().splitlines()[-1].split()
    return float(wall), int(peak) + shmem


VERBOSE = False  # --verbose: every run's time on stderr


def measure(cmds, runs):
    """Median wall seconds and peak memory (KiB) of each of `cmds` over `runs`
    runs, taken in turn (A B A B ...): a slow spell of the machine (this
    VM's disk has them) falls on every tool alike, not on one tool's block
    of runs.

    RUN in a command becomes the run's number, so that each run can write
    to a fresh directory."""
    times = [[] for _ in cmds]
    rss = [[] for _ in cmds]
    for i in range(runs + 1):
        for k, cmd in enumerate(cmds):
            wall, peak = run_once(cmd.replace("RUN", str(i)))
            if VERBOSE:
                print("bench:   %6.2f s  %s" % (wall, cmd[:90]),
                      file=sys.stderr, flush=True)
            if i > 0:                   # the first run warms the cache
                times[k].append(wall)
                rss[k].append(peak)
    return [(statistics.median(t), max(r)) for t, r in zip(times, rss)]


# ------------------------------------------------------------- datasets

def pack_skeleton(dst):
    shutil.copytree(EXAMPLE, dst)
    os.makedirs(os.path.join(dst, "knowledge"), exist_ok=True)
    return os.path.join(dst, "knowledge")


def make_big(base, scale):
    """1 GiB in 16 random files."""
    d = os.path.join(base, "big")
    if os.path.exists(d):
        return d
    k = pack_skeleton(d)
    size = int(64 * 1024 * 1024 * scale)
    for i in range(16):
        with open(os.path.join(k, "blob%02d.bin" % i), "wb") as f:
            f.write(b"x")     # never a pickle header (AgentPack rule)
            left = size - 1
            while left > 0:
                n = min(left, 8 * 1024 * 1024)
                f.write(os.urandom(n))
                left -= n
    return d


def make_many(base, scale):
    """100,000 files of 1-8 KiB in 100 directories."""
    d = os.path.join(base, "many")
    if os.path.exists(d):
        return d
    k = pack_skeleton(d)
    rnd = random.Random(8)
    count = int(100000 * scale)
    per = 1000
    for i in range(count):
        sub = os.path.join(k, "d%03d" % (i // per))
        if i % per == 0:
            os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, "f%04d.txt" % (i % per)), "wb") as f:
            f.write(b"x" + os.urandom(rnd.randint(1024, 8192) - 1))
    return d


def datasets(base, scale):
    """(name, function making the dataset and returning its path): only
    the datasets --only asks for are made."""
    out = [("1 GiB in 16 files", lambda: make_big(base, scale)),
           ("100,000 files of 1-8 KiB", lambda: make_many(base, scale))]
    for name in sorted(os.listdir(EXAMPLES)):
        out.append(("example " + name,
                    lambda n=name: os.path.join(EXAMPLES, n)))
    return out


# ---------------------------------------------------------------- suites

class Row:
    """One measured command; p90, cpu (median user + sys seconds) and runs
    only for the rows runmany measured."""
    def __init__(self, op, tool, secs, rss, base=None, p90=None, cpu=None,
                 runs=None):
        self.op, self.tool, self.secs, self.rss, self.base = op, tool, secs, rss, base
        self.p90, self.cpu, self.runs = p90, cpu, runs


def keys(work):
    if not os.path.exists(os.path.join(work, "k.key")):
        sh("%s keygen --no-passphrase --identity bench -o %s/k >/dev/null"
           % (PACKSIGN, work))
        sh("minisign -G -W -p %s/m.pub -s %s/m.key >/dev/null" % (work, work))


def source_args(src):
    """A holon pack records the commit its holon.yaml pins (source.ref)
    of its own repository (source.repository): signed with --source-repo
    and --source-commit, as its publisher would outside that repository
    (docs/formats/signature.md, 8.4).  "" for other packs."""
    manifest = os.path.join(src, "holon.yaml")
    if not os.path.exists(manifest):
        return ""
    found, section = {}, None
    with open(manifest) as f:
        for line in f:
            if not line.startswith(" "):
                section = line.split(":", 1)[0].strip()
            elif section == "source" and ":" in line:
                k, v = line.strip().split(":", 1)
                found[k] = v.strip()
    return "--source-repo %s --source-commit %s" % (found["repository"],
                                                      found["ref"])


def measure_rows(op, tools, cmds, runs, fine):
    """Rows of `op` (shell commands; tools[0] is packsign's): under GNU
    time, or with `fine` under runmany, each through sh -c."""
    if fine:
        return fine_rows(op, tools, [["sh", "-c", c.replace("RUN", "@RUN@")]
                                     for c in cmds], runs)
    got = measure(cmds, runs)
    return [Row(op, tool, secs, rss, base=got[0][0] if k else None)
            for k, (tool, (secs, rss)) in enumerate(zip(tools, got))]


def suite(name, src, work, runs, fine=False):
    """Rows for one dataset: (operation, tool, median s, peak KiB, ref);
    with `fine` measured by runmany (the examples' commands are short)."""
    rows = []
    many_files = not name.startswith("example")
    o = os.path.join(work, "out")
    q = lambda s: s.replace("SRC", src).replace("OUT", o).replace(
        "PS", PACKSIGN).replace("W", work).replace("RECIPE", TAR_RECIPE)

    def pair(op, ours, peers):
        rows.extend(measure_rows(op, ["packsign"] + [t for t, _ in peers],
                                 [q(ours)] + [q(cmd) for _, cmd in peers],
                                 runs, fine))

    # packsign flushes its output before publishing it; "+ sync" is the
    # recipe held to the same durability (sync FILE is fsync(2) of it).
    pair("pack .tar", "PS pack SRC -o OUT.tar",
         [("GNU tar recipe", "RECIPE -C SRC -cf OUT.t2 ."),
          ("GNU tar recipe + sync", "RECIPE -C SRC -cf OUT.t3 . && sync OUT.t3")])
    pair("pack .tar.gz", "PS pack SRC -o OUT.tar.gz",
         [("recipe | gzip -n -6", "RECIPE -C SRC -cf - . | gzip -n -6 > OUT.t2.gz")])
    pair("pack .tar.zst", "PS pack SRC -o OUT.tar.zst",
         [("recipe | zstd -3", "RECIPE -C SRC -cf - . | zstd -q -3 > OUT.t2.zst")])
    pair("sign .tar", "rm -f OUT.s.tar OUT.s.tar.sig; PS sign SRC -s W/k.key "
         "-o OUT.s.tar " + source_args(src),
         [("recipe + sha256sum + minisign -S",
           "RECIPE -C SRC -cf OUT.m.tar . && sha256sum OUT.m.tar > OUT.m.sha && "
           "minisign -S -s W/m.key -m OUT.m.tar >/dev/null"),
          ("GNU tar recipe alone", "RECIPE -C SRC -cf OUT.m.tar .")])
    sh(q("rm -f OUT.m.tar OUT.m.tar.minisig; RECIPE -C SRC -cf OUT.m.tar . && "
         "minisign -S -s W/m.key -m OUT.m.tar >/dev/null"))
    pair("verify .tar", "PS verify OUT.s.tar -p W/k.pub",
         [("minisign -V", "minisign -V -p W/m.pub -m OUT.m.tar >/dev/null"),
          ("sha256sum", "sha256sum OUT.s.tar"),
          ("openssl dgst -sha256", "openssl dgst -sha256 OUT.s.tar")])
    # ext4 scans recently deleted inodes when it allocates new ones
    # (settle()): every run extracts into a directory of its own, and
    # deletions happen only between rows, followed by a pause.
    if many_files:
        settle(q("W"))
    pair("install .tar",
         "PS install OUT.s.tar -p W/k.pub --data-dir W/data.ps.RUN --yes",
         [("tar -xf + sync",
           "mkdir W/x.RUN && tar -xf OUT.s.tar -C W/x.RUN && sync")])
    sh(q("rm -rf OUT.*"))
    if many_files:
        settle(q("W"))
    else:
        sh(q("rm -rf W/data.ps.* W/x.*"))
    return rows


ISSUE30 = "Issue 30: one pass, no copies"   # the sections' names start so
PROXY_VARS = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY",
              "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY")
WRITTEN = []     # (operation, tool, bytes written to disk, extracted bytes)


def signed_pair(src, q):
    """OUT.v2.tar (v2 statement, the default), OUT.v1.tar (the same
    bytes, a v1 statement: --predicate-version 1) and minisign's
    OUT.v2.tar.minisig."""
    sh(q("rm -rf OUT.*; PS sign %s -s W/k.key -o OUT.v2.tar >/dev/null && "
         "cp OUT.v2.tar OUT.v1.tar && PS sign OUT.v1.tar -s W/k.key "
         "--predicate-version 1 >/dev/null && minisign -S -s W/m.key "
         "-m OUT.v2.tar >/dev/null" % src))


def block_device_written(path):
    """Bytes written so far to the block device `path` lives on
    (/sys/dev/block/MAJ:MIN/stat, field 7, 512-byte sectors), or None
    when it is on no block device (tmpfs, overlay)."""
    st = os.stat(path)
    stat = "/sys/dev/block/%d:%d/stat" % (os.major(st.st_dev),
                                          os.minor(st.st_dev))
    try:
        with open(stat) as f:
            return int(f.read().split()[6]) * 512
    except (OSError, IndexError, ValueError):
        return None


def tree_bytes(d):
    """The bytes of the regular files below `d`."""
    total = 0
    for top, _, names in os.walk(d):
        for n in names:
            p = os.path.join(top, n)
            if os.path.isfile(p) and not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def written(op, tool, cmd, work, tree):
    """One more, untimed run of `cmd`: what it made the disk write (sync
    before and after; the journal and metadata count too, and whatever
    else the machine wrote meanwhile) beside the bytes of the files it
    extracted into `tree`."""
    sh("sync")
    before = block_device_written(work)
    sh(cmd, stdout=subprocess.DEVNULL)
    sh("sync")
    after = block_device_written(work)
    if before is not None and after is not None:
        WRITTEN.append((op, tool, after - before, tree_bytes(tree)))


def loopback_server(work):
    """A CA, a certificate for 127.0.0.1 and the tests' loopback server
    (tests/cli/net_server.py) serving W/www30, whose /stream/ mode sends
    a file 1 MiB at a time: (process, port)."""
    q = lambda s: s.replace("W", work)
    sh(q("cd W && openssl req -x509 -newkey ec -pkeyopt "
         "ec_paramgen_curve:P-256 -nodes -subj /CN=bench-ca -days 2 "
         "-keyout ca.key -out ca.pem 2>/dev/null && openssl req -new "
         "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "
         "/CN=127.0.0.1 -keyout srv.key -out srv.csr 2>/dev/null && "
         "printf 'subjectAltName=IP:127.0.0.1\\n' >srv.ext && openssl x509 "
         "-req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
         "-extfile srv.ext -out srv.pem 2>/dev/null"))
    port = os.path.join(work, "www30.port")
    if os.path.exists(port):
        os.unlink(port)
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "cli",
                             "net_server.py"), os.path.join(work, "www30"),
                             os.path.join(work, "srv.pem"),
                             os.path.join(work, "srv.key"), port])
    for _ in range(100):
        if os.path.exists(port):
            with open(port) as f:
                return proc, int(f.read())
        time.sleep(0.1)
    proc.kill()
    sys.exit("bench: the loopback https server did not start")


def issue30_suite(src, work, runs, many):
    """Issue 30's rows on one dataset: verify and install of a .tar with
    a v2 statement (read once, chunks authenticated) and a v1 one (read
    lease), against the pipelines a careful user runs for the same
    guarantee, beside the physical floor: one read of the archive (cat),
    its SHA-256 (openssl dgst), and two SHA-256 of it at once (archive
    and files, both cores: what verify must hash at least).  On the
    1 GiB dataset also `verify --files-from --jobs 2` of two 1 GiB
    archives, and `install URL` from a loopback https server against
    curl -o && minisign -V && tar -xf && sync, with the bytes each
    makes the disk write."""
    o = os.path.join(work, "i30")
    q = lambda s: s.replace("SRC", src).replace("OUT", o).replace(
        "PS", PACKSIGN).replace("W", work)
    signed_pair(src, q)
    rows = []

    def pair(op, ours, peers):
        rows.extend(measure_rows(op, ["packsign"] + [t for t, _ in peers],
                                 [q(c) for c in ours] + [q(c) for _, c in
                                                         peers], runs, False))

    def clean():
        sh(q("rm -rf W/d30.* W/x30.* && sync"))
        if many:
            time.sleep(deletion_window())     # see settle()

    mini = "minisign -V -p W/m.pub -m OUT.v2.tar >/dev/null"
    pair("verify .tar v2", ["PS verify OUT.v2.tar -p W/k.pub"],
         [("minisign -V", mini),
          ("floor: cat (one read)", "cat OUT.v2.tar >/dev/null"),
          ("floor: openssl dgst -sha256", "openssl dgst -sha256 OUT.v2.tar"),
          ("floor: two openssl dgst -sha256 at once (both cores)",
           "openssl dgst -sha256 OUT.v2.tar >/dev/null & openssl dgst "
           "-sha256 OUT.v2.tar >/dev/null; wait")])
    pair("verify .tar v1 (lease)", ["PS verify OUT.v1.tar -p W/k.pub"],
         [("minisign -V", mini)])
    tar_sync = "mkdir W/x30.RUN && tar -xf OUT.v2.tar -C W/x30.RUN && sync"
    for v in ("v2", "v1 (lease)"):
        clean()
        pair("install .tar " + v, ["PS install OUT.%s.tar -p W/k.pub "
                                   "--data-dir W/d30.%s.RUN --yes"
                                   % (v[:2], v[:2])],
             [("minisign -V && tar -xf && sync", mini + " && " + tar_sync),
              ("floor: tar -xf && sync", tar_sync.replace("x30.", "x30.t"))])
    clean()
    if not many:
        sh(q("printf '%s\\n' OUT.v2.tar OUT.v1.tar >W/i30.list"))
        pair("verify --files-from --jobs 2 (the v2 and v1 .tar, 2 GiB)",
             ["PS verify --files-from W/i30.list -p W/k.pub --jobs 2"],
             [("minisign -V of each", mini + " && minisign -V -p W/m.pub "
               "-m OUT.v2.tar >/dev/null")])
        rows += url_rows(q, work, runs, clean)
    sh(q("rm -rf W/d30.* W/x30.* OUT.* W/www30"))
    return rows


def url_rows(q, work, runs, clean):
    """install URL of the v2 and the v1 .tar from the loopback server
    against the pipeline that downloads, verifies, extracts and syncs."""
    for var in PROXY_VARS:
        os.environ.pop(var, None)
    sh(q("rm -rf W/www30 && mkdir W/www30 && ln OUT.v2.tar OUT.v2.tar.sig "
         "OUT.v2.tar.minisig OUT.v1.tar OUT.v1.tar.sig W/www30/"))
    server, port = loopback_server(work)
    url = "https://127.0.0.1:%d/stream/" % port
    rows = []
    try:
        for v in ("v2", "v1"):
            u = url + "i30.%s.tar" % v
            ours = q("PS install %s -p W/k.pub --data-dir W/d30.u%s.RUN "
                     "--yes --ca-file W/ca.pem" % (u, v))
            get = "curl -sSf --cacert W/ca.pem -o W/x30.RUN.tar "
            peer = q(get + u + " && " + get.replace(".tar ", ".tar.minisig ")
                     + url + "i30.v2.tar.minisig && minisign -V -p W/m.pub "
                     "-m W/x30.RUN.tar >/dev/null && mkdir W/x30.RUN && tar "
                     "-xf W/x30.RUN.tar -C W/x30.RUN && sync")
            op = "install https URL .tar " + ("v2 (streamed)" if v == "v2"
                                              else "v1 (private copy)")
            clean()
            rows += measure_rows(op, ["packsign",
                                      "curl -o && minisign -V && tar -xf "
                                      "&& sync"], [ours, peer], runs, False)
            clean()
            written(op, "packsign", ours.replace("RUN", "w"), work,
                    q("W/d30.u%s.w" % v))
            written(op, "curl -o && minisign -V && tar -xf && sync",
                    peer.replace("RUN", "w"), work, q("W/x30.w"))
    finally:
        server.kill()
        server.wait()
    return rows


def issue30(results):
    """Issue 30's targets that these rows measure."""
    big = "%s (1 GiB" % ISSUE30
    many = "%s (100,000" % ISSUE30
    f = lambda sec, op, tool: find(results, sec, op, tool)
    out = []
    for sec, what in ((big, "1 GiB"), (many, "100,000-file")):
        for v, tag in (("v2", "v2"), ("v1", "v1, lease")):
            out.append(at_most("verify %s .tar (%s): at most %sx minisign -V"
                               % (what, tag, "0.6" if sec == big else "1.0"),
                               f(sec, "verify .tar " + v, "minisign -V"),
                               0.6 if sec == big else 1.0))
        for v, tag in (("v2", "v2"), ("v1", "v1, lease")):
            limit = 0.8 if sec == big else 0.9
            out.append(at_most("install %s .tar (%s): at most %.1fx "
                               "minisign -V && tar -xf && sync"
                               % (what, tag, limit),
                               f(sec, "install .tar " + v, "minisign -V"),
                               limit))
    out.append(at_most("install from a loopback https URL, 1 GiB (v2): at "
                       "most 0.7x curl -o && minisign -V && tar -xf && sync",
                       f(big, "install https URL .tar v2", "curl"), 0.7))
    for op, tool, wrote, tree in WRITTEN:
        if tool == "packsign" and "v2" in op:
            ratio = wrote / tree if tree else float("inf")
            out.append(("install from a loopback https URL, 1 GiB (v2): "
                        "bytes written at most 1.15x the extracted files",
                        "%.1f MiB / %.1f MiB = %.2fx" % (wrote / 2**20,
                                                         tree / 2**20, ratio),
                        ratio <= 1.15))
    peak = [r for name, rows in results if name.startswith(ISSUE30)
            for r in rows if r.tool == "packsign"
            and not r.op.startswith("install https URL .tar v1")]
    if peak:
        top = max(peak, key=lambda r: r.rss)
        out.append(("verify, install, `verify --files-from --jobs 2` of "
                    "1 GiB archives: peak memory (RSS + Shmem) at most 64 MiB",
                    "%.1f MiB (largest: %s)" % (top.rss / 1024.0, top.op),
                    top.rss / 1024.0 <= 64))
    earlier = issue8(results) + issue22(results)[:-1]
    measured = [ok for _, _, ok in earlier if ok is not None]
    out.append(("every first- and second-round target (issues 8 and 22) "
                "still met", "%d of %d met (tables above)" %
                (sum(measured), len(measured)) if measured else
                "not measured in this run",
                all(measured) if measured else None))
    return out


def written_table():
    out = ["| operation | tool | written to disk MiB | extracted files MiB | "
           "written / extracted |", "| --- | --- | ---: | ---: | ---: |"]
    for op, tool, wrote, tree in WRITTEN:
        out.append("| %s | %s | %.1f | %.1f | %.2f |" %
                   (op, tool.replace("|", "\\|"), wrote / 2**20,
                    tree / 2**20, wrote / tree if tree else 0))
    return "\n".join(out)


INDEX_ENTRIES = 4500   # about what fits the 4 MiB envelope (index.md 2.3)


def make_index(work, entries):
    """A signed index of `entries` synthetic entries and a policy trusting
    its key, written with Python's `cryptography` (python3-cryptography):
    packsign can only list archives it verified, and signing thousands
    of packs would measure signing, not the index."""
    import base64, hashlib, json
    from cryptography.hazmat.primitives.asymmetric.ed25519 import \
        Ed25519PrivateKey
    from cryptography.hazmat.primitives import serialization
    key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"bench").digest())
    raw = key.public_key().public_bytes(serialization.Encoding.Raw,
                                        serialization.PublicFormat.Raw)
    wire = b"".join(len(x).to_bytes(4, "big") + x
                    for x in (b"ssh-ed25519", raw))
    digest = "sha256:" + "ab" * 32
    fp = "SHA256:" + base64.b64encode(hashlib.sha256(wire).digest()).decode().rstrip("=")
    packs = [{"archive_digest": digest, "format": "agentpack",
              "id": "bench.pack-%05d" % i, "published": "2026-12-01T00:00:00Z",
              "signers": [fp], "size": 4096, "tree_digest": digest,
              "url": "v1/bench.pack-%05d-1.0.0.tar.gz" % i, "version": "1.0.0"}
             for i in range(entries)]
    payload = json.dumps({"base_url": "https://example.org/releases/",
                          "expires": "2999-01-01T00:00:00Z",
                          "issued": "2026-12-01T00:00:00Z", "packs": packs,
                          "packsign_index": 1, "publisher": "bench",
                          "version": 1}, sort_keys=True,
                         separators=(",", ":")).encode()
    ptype = b"application/vnd.packsign.index+json"
    pae = b"DSSEv1 %d %s %d %s" % (len(ptype), ptype, len(payload), payload)
    env = {"payload": base64.b64encode(payload).decode(),
           "payloadType": ptype.decode(),
           "signatures": [{"keyid": fp,
                           "sig": base64.b64encode(key.sign(pae)).decode()}]}
    with open(os.path.join(work, "index.json"), "w") as f:
        json.dump(env, f, separators=(",", ":"))
    with open(os.path.join(work, "index-policy.yaml"), "w") as f:
        f.write("version: 1\nsigners:\n  - identity: bench\n    roles: [index]\n"
                "    keys:\n      - key: ssh-ed25519 %s\n    packs: [\"*\"]\n"
                % base64.b64encode(wire).decode())
    return os.path.getsize(os.path.join(work, "index.json"))


def index_suite(work, runs):
    """Verifying (and recording) the largest index that fits."""
    size = make_index(work, INDEX_ENTRIES)
    q = lambda c: c.replace("PS", PACKSIGN).replace("W", work)
    got = measure([q("PS index verify W/index.json --trust W/index-policy.yaml "
                     "--data-dir W/index-dd --at 2026-12-02T00:00:00Z"),
                   q("python3 -c 'import json,base64,sys; json.loads(base64."
                     "b64decode(json.load(open(sys.argv[1]))[\"payload\"]))' "
                     "W/index.json"),
                   q("openssl dgst -sha256 W/index.json")], runs)
    op = "index verify (%d entries, %d KiB)" % (INDEX_ENTRIES, size // 1024)
    rows = [Row(op, "packsign", *got[0])]
    rows.append(Row(op, "python3 json.loads of the payload", *got[1],
                    base=got[0][0]))
    rows.append(Row(op, "openssl dgst -sha256", *got[2], base=got[0][0]))
    return rows


def deletion_window():
    """Seconds to wait after deleting 100,000 files before creating as
    many.  ext4 without a journal (this machine's root) does not reuse an
    inode deleted less than the dirty-expire interval ago: allocating
    one scans past every such inode, reading inode tables (its
    recently_deleted(), seen with perf: an install of 100,000 files took
    40-90 s instead of 6 s after a few deletions).  16 s, the pause
    before, was less than this machine's 30 s interval."""
    try:
        with open("/proc/sys/vm/dirty_expire_centisecs") as f:
            return int(f.read()) / 100 + 2
    except (OSError, ValueError):
        return 32


def settle(work):
    """Removes extracted trees, then lets ext4 forget the deletions."""
    sh("rm -rf %s/data.ps.* %s/x.* && sync" % (work, work))
    time.sleep(deletion_window())


def unlock(work, runs):
    """What an scrypt-protected key costs to unlock, by limit level."""
    rows = []
    with open(os.path.join(work, "pw"), "w") as f:
        f.write("bench passphrase\n")
    for kdf in ("sensitive", "interactive"):
        key = os.path.join(work, "enc-%s" % kdf)
        if not os.path.exists(key + ".key"):
            sh("%s keygen -o %s --identity bench --kdf %s "
               "--passphrase-file %s/pw >/dev/null" % (PACKSIGN, key, kdf, work))
        [(s, r)] = measure(["%s key show %s.key --passphrase-file %s/pw" %
                            (PACKSIGN, key, work)], runs)
        rows.append(Row("unlock (--kdf %s)" % kdf, "packsign key show", s, r))
    return rows


# ------------------------------------------------------ short commands
#
# Under 50 ms GNU time's 10 ms says nothing: these rows run under
# build/bench/runmany (bench/runmany.c), commands given as argv lists.

SMALL_RUNS = 200       # --small-runs: runs of each small-pack command
EXAMPLE_RUNS = 50      # --example-runs: of each example suite's commands
BATCH_COUNT = 10000    # --batch-count: packs of the batch row


def runmany(cmds, runs, warmup=1):
    """Median, p90 and CPU seconds (user + sys) and peak memory (KiB: RSS
    plus Shmem) of each
    of `cmds` (argv lists), run alternately by runmany."""
    argv = [RUNMANY, "-n", str(runs), "-w", str(warmup)]
    if VERBOSE:
        argv.append("-v")
    for k, cmd in enumerate(cmds):
        argv += (["--"] if k == 0 else ["---"]) + cmd
    res = subprocess.run(argv, stdout=subprocess.PIPE, text=True)
    if res.returncode != 0:
        sys.exit("bench: runmany failed (%d): %s" % (res.returncode,
                                                       " ".join(argv)))
    out = []
    for line in res.stdout.splitlines():
        f = dict(kv.split("=", 1) for kv in line.split())
        out.append((float(f["median_s"]), float(f["p90_s"]),
                    float(f["cpu_median_s"]), int(f["max_rss_kib"])))
    return out


def fine_rows(op, tools, cmds, runs, warmup=1):
    """Rows of `op`: tools[0] is packsign, the others its peers."""
    got = runmany(cmds, runs, warmup)
    rows = []
    for tool, (med, p90, cpu, rss) in zip(tools, got):
        rows.append(Row(op, tool, med, rss, base=got[0][0] if rows else None,
                        p90=p90, cpu=cpu, runs=runs))
    return rows


def small_archives(work):
    """Each example pack signed as a .tar (the holon one with its source),
    and minisign's signature of the same .tar: {name: archive}."""
    d = os.path.join(work, "small")
    os.makedirs(d, exist_ok=True)
    out = {}
    for name in sorted(os.listdir(EXAMPLES)):
        src, tar = os.path.join(EXAMPLES, name), os.path.join(d, name + ".tar")
        sh("rm -f %s %s.sig %s.minisig && %s sign %s -q -s %s/k.key -o %s %s "
           ">/dev/null && minisign -S -s %s/m.key -m %s >/dev/null" %
           (tar, tar, tar, PACKSIGN, src, work, tar, source_args(src),
            work, tar))
        out[name] = tar
    return out


def small_suite(work, runs):
    """`packsign verify` of each example's archive against `minisign -V`
    of the same archive, whole process."""
    rows = []
    k, m = os.path.join(work, "k.pub"), os.path.join(work, "m.pub")
    for name, tar in small_archives(work).items():
        rows += fine_rows("verify %s (%d KiB)" % (name, os.path.getsize(tar)
                                                  // 1024),
                          ["packsign", "minisign -V"],
                          [[PACKSIGN, "verify", tar, "-p", k],
                           ["minisign", "-V", "-p", m, "-m", tar]], runs)
    return rows


def startup_suite(work, runs):
    """What starting packsign costs: --version, and the digest of the
    smallest example archive, against minisign -v and sha256sum."""
    tars = small_archives(work)
    tar = min(tars.values(), key=os.path.getsize)
    rows = fine_rows("--version", ["packsign", "minisign -v"],
                     [[PACKSIGN, "--version"], ["minisign", "-v"]], runs)
    rows += fine_rows("digest %s (%d KiB)" % (os.path.basename(tar),
                                              os.path.getsize(tar) // 1024),
                      ["packsign", "sha256sum", "minisign -v"],
                      [[PACKSIGN, "digest", tar], ["sha256sum", tar],
                       ["minisign", "-v"]], runs)
    return rows


def batch_packs(work, count):
    """`count` distinct small signed packs (build/bench/genpacks, in
    process through the library), checked by packsign and the real
    minisign on a few; the list of their paths.  Kept between runs."""
    d = os.path.join(work, "batch-%d" % count)
    lst = os.path.join(d, "list")
    if not os.path.exists(lst):
        print("bench: generating %d packs" % count, file=sys.stderr)
        sh("rm -rf %s && %s %s %d" % (d, GENPACKS, d, count))
    with open(lst) as f:
        paths = f.read().split()
    for p in paths[:2] + paths[-1:]:
        sh("minisign -V -q -p %s/m.pub -m %s && %s verify -q %s -p %s/k.pub "
           ">/dev/null" % (d, p, PACKSIGN, p, d))
    return d, lst


CONFORMANCE = os.path.join(ROOT, "tests", "conformance", "bundle-verify")
NODE_MODULES = os.path.join(ROOT, "build", "node", "node_modules")
SIGSTORE_RUNS = 50     # --sigstore-runs: Node starts in about 0.8 s
SIGSTORE_CASES = (     # conformance cases timed: (case, what it holds)
    ("happy-path-v0.3", "bundle v0.3, Rekor v1 hashedrekord, public-good root"),
    ("rekor2-happy-path", "Rekor v2 checkpoint and an RFC 3161 timestamp"))
SIGSTORE_IDENTITY = ("https://github.com/sigstore-conformance/extremely-"
                     "dangerous-public-oidc-beacon/.github/workflows/extremely-"
                     "dangerous-oidc-beacon.yml@refs/heads/main")
SIGSTORE_ISSUER = "https://token.actions.githubusercontent.com"


def sigstore_suite(runs):
    """`packsign verify-blob` of keyless conformance bundles against
    @sigstore/verify in Node (bench/verify-blob.js) on the same artifact,
    bundle, trusted root and identity, whole process.  The case without
    its own trusted_root.json gets none on packsign's side (the compiled-in
    root) and sigstore/publicgood.json, the same bytes, on Node's."""
    if shutil.which("node") is None or not os.path.isdir(
            os.path.join(NODE_MODULES, "@sigstore", "verify")):
        why = ("node or build/node/node_modules/@sigstore/verify missing "
               "(scripts/install-deps): sigstore row skipped")
        print("bench: " + why, file=sys.stderr)
        return []
    os.environ["NODE_PATH"] = NODE_MODULES
    rows = []
    for case, what in SIGSTORE_CASES:
        d = os.path.join(CONFORMANCE, case)
        bundle = os.path.join(d, "bundle.sigstore.json")
        artifact = os.path.join(CONFORMANCE, "a.txt")
        root = os.path.join(d, "trusted_root.json")
        ours = [PACKSIGN, "verify-blob", artifact, "--bundle", bundle,
                "--certificate-identity", SIGSTORE_IDENTITY,
                "--certificate-oidc-issuer", SIGSTORE_ISSUER]
        if os.path.exists(root):
            ours += ["--trusted-root", root]
        else:
            root = os.path.join(ROOT, "sigstore", "publicgood.json")
        node = ["node", os.path.join(ROOT, "bench", "verify-blob.js"),
                artifact, bundle, root, SIGSTORE_IDENTITY, SIGSTORE_ISSUER]
        rows += fine_rows("verify-blob %s (%s)" % (case, what),
                          ["packsign", "@sigstore/verify 3.1.1 (node %s)" %
                           version("node --version")], [ours, node], runs)
    return rows


def has_files_from():
    res = subprocess.run([PACKSIGN, "verify", "--help"], capture_output=True,
                         text=True)
    return "--files-from" in res.stdout + res.stderr


BATCH_SKIPPED = []     # why the batch row did not run, for the report


def batch_suite(work, runs, count):
    """One `packsign verify --files-from` over `count` packs against a
    shell loop of `count` `minisign -V` processes over the same archives
    (and, for scale, the same spread over every core by xargs -P)."""
    d, lst = batch_packs(work, count)
    if not has_files_from():
        why = "%s verify has no --files-from: batch row skipped" % PACKSIGN
        print("bench: " + why, file=sys.stderr)
        BATCH_SKIPPED.append(why)
        return []
    m, jobs = os.path.join(d, "m.pub"), str(os.cpu_count() or 1)
    loop = ('while read -r f; do minisign -V -q -p %s -m "$f" || exit 1; '
            'done < %s' % (m, lst))
    par = "xargs -P %s -n 1 minisign -V -q -p %s -m < %s" % (jobs, m, lst)
    n = format(count, ",")
    return fine_rows("verify %s packs (one list)" % n,
                     ["packsign --files-from --jobs " + jobs,
                      "%s minisign -V processes (sh loop)" % n,
                      "%s minisign -V processes (xargs -P %s)" % (n, jobs)],
                     [[PACKSIGN, "verify", "--files-from", lst, "-p",
                       os.path.join(d, "k.pub"), "--jobs", jobs],
                      ["sh", "-c", loop], ["sh", "-c", par]], runs)


# ---------------------------------------------------------------- report

def version(cmd):
    try:
        out = subprocess.run(cmd, shell=True, capture_output=True, text=True)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return "unknown"


def machine():
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) // (1024 * 1024)
    return [("CPU", "%s, %d cores" % (cpu, os.cpu_count())),
            ("memory", "%d GiB" % mem),
            ("kernel", platform.release()),
            ("packsign", version(PACKSIGN + " --version")),
            ("GNU tar", version("tar --version")),
            ("gzip", version("gzip --version")),
            ("zstd", version("zstd --version")),
            ("minisign", version("minisign -v")),
            ("OpenSSL", version("openssl version")),
            ("sha256sum", version("sha256sum --version"))]


def table(rows):
    out = ["| operation | tool | median s | peak memory MiB (RSS + Shmem) | packsign / tool |",
           "| --- | --- | ---: | ---: | ---: |"]
    for r in rows:
        ratio = "" if r.base is None else (
            "%.2f" % (r.base / r.secs) if r.secs > 0 else "n/a")
        out.append("| %s | %s | %.3f | %.1f | %s |" %
                   (r.op, r.tool.replace("|", "\\|"), r.secs, r.rss / 1024.0,
                    ratio))
    return "\n".join(out)


def fine_table(rows):
    """A table of runmany rows: milliseconds, CPU and cores used."""
    out = ["| operation | tool | runs | median ms | p90 ms | user+sys ms | "
           "(user+sys) / wall | peak memory MiB (RSS + Shmem) | packsign / tool |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        ratio = "" if r.base is None else (
            "%.2f" % (r.base / r.secs) if r.secs > 0 else "n/a")
        out.append("| %s | %s | %d | %.3f | %.3f | %.3f | %.2f | %.1f | %s |"
                   % (r.op, r.tool.replace("|", "\\|"), r.runs, r.secs * 1e3,
                      r.p90 * 1e3, r.cpu * 1e3,
                      r.cpu / r.secs if r.secs > 0 else 0, r.rss / 1024.0,
                      ratio))
    return "\n".join(out)


TARGETS = [
    # dataset prefix, operation, peer, at most (packsign / peer)
    ("1 GiB", "pack .tar", "GNU tar recipe", 1.0),
    ("100,000", "pack .tar", "GNU tar recipe", 1.0),
    ("1 GiB", "sign .tar", "GNU tar recipe alone", 1.2),
    ("1 GiB", "verify .tar", "openssl dgst -sha256", 1.15),
    ("100,000", "install .tar", "tar -xf + sync", 1.3),
]
RSS_TARGETS = [("1 GiB", 32), ("100,000", 64)]    # MiB, every packsign row


def issue8(results):
    """Issue 8's targets, read from the tables: (target, measured, met)."""
    out = []
    for prefix, op, peer, limit in TARGETS:
        for name, rows in results:
            if not name.startswith(prefix):
                continue
            for r in rows:
                if r.op == op and r.tool == peer and r.secs > 0:
                    ratio = r.base / r.secs
                    out.append(("%s, %s: packsign at most %.2fx %s" %
                                (name, op, limit, peer), "%.2fx" % ratio,
                                ratio <= limit))
    for prefix, mib in RSS_TARGETS:
        for name, rows in results:
            if not name.startswith(prefix):
                continue
            top = max((r for r in rows if r.tool == "packsign"
                       and not r.op.startswith("unlock")),
                      key=lambda r: r.rss, default=None)
            if top is not None:
                out.append(("%s: peak memory (RSS + Shmem) of every packsign command at most "
                            "%d MiB" % (name, mib),
                            "%.1f MiB (%s)" % (top.rss / 1024.0, top.op),
                            top.rss / 1024.0 <= mib))
    return out


def target_table(entries):
    out = ["| target | measured | |", "| --- | --- | --- |"]
    for what, measured, met in entries:
        out.append("| %s | %s | %s |" % (what, measured.replace("|", "\\|"),
                                         "-" if met is None else
                                         "met" if met else "missed"))
    return "\n".join(out)


def dur(secs):
    return "%.3f s" % secs if secs >= 1 else "%.2f ms" % (secs * 1e3)


def find(results, section, op, tool):
    """The row of `tool` for `op` in the section whose name starts with
    `section`; None when that was not measured."""
    for name, rows in results:
        if name.startswith(section):
            for r in rows:
                if r.op.startswith(op) and r.tool.startswith(tool):
                    return r
    return None


def at_most(what, row, limit):
    """packsign / peer at most `limit`, the arithmetic shown."""
    if row is None:
        return (what, "not measured in this run", None)
    if row.secs <= 0:
        return (what, "n/a: %s measured 0 s (GNU time's resolution is 10 ms)"
                % row.tool, None)
    ratio = row.base / row.secs
    return (what, "%s / %s = %.2fx %s %.2fx" %
            (dur(row.base), dur(row.secs), ratio,
             "<=" if ratio <= limit else ">", limit), ratio <= limit)


BATCH = "Batch"      # the batch section's name starts so
SMALL = "Small packs"
CORES_USED = 1.5     # (user + sys) / wall reading "both cores used"


def batch_targets(results):
    n = format(BATCH_COUNT, ",")
    loop = find(results, BATCH, "verify", "%s minisign -V processes (sh" % n)
    what = "verify %s distinct signed small packs in one invocation" % n
    if loop is None:
        why = BATCH_SKIPPED[0] if BATCH_SKIPPED else "not measured in this run"
        return [(what + ": at least 5x faster than %s minisign -V processes"
                 % n, why, None)]
    ps = find(results, BATCH, "verify", "packsign")
    speed = loop.secs / ps.secs
    cores = ps.cpu / ps.secs
    mib = ps.rss / 1024.0
    return [(what + ": at least 5x faster than %s minisign -V processes "
             "(sh loop)" % n, "%s / %s = %.2fx %s 5x" %
             (dur(loop.secs), dur(ps.secs), speed,
              ">=" if speed >= 5 else "<"), speed >= 5),
            (what + ": both cores used ((user+sys) / wall at least %.1f)" %
             CORES_USED, "%s / %s = %.2f" % (dur(ps.cpu), dur(ps.secs),
                                             cores), cores >= CORES_USED),
            (what + ": peak memory (RSS + Shmem) at most 64 MiB", "%.1f MiB" % mib, mib <= 64)]


def issue22(results):
    """Issue 22's targets, with the arithmetic: (target, measured, met)."""
    out = []
    for name in sorted(os.listdir(EXAMPLES)):
        out.append(at_most("verify example %s, whole process: at most 2.0x "
                           "minisign -V of the same archive" % name,
                           find(results, SMALL, "verify %s " % name,
                                "minisign -V"), 2.0))
    out += batch_targets(results)
    out.append(at_most("sign 100,000 files of 1-8 KiB: at most 1.0x the GNU "
                       "tar recipe alone", find(results, "100,000",
                       "sign .tar", "GNU tar recipe alone"), 1.0))
    out.append(at_most("verify the 100,000-file .tar: at most 1.5x openssl "
                       "dgst -sha256 of the same file", find(results,
                       "100,000", "verify .tar", "openssl dgst"), 1.5))
    for prefix, what in (("1 GiB", "1 GiB"), ("100,000", "100,000 files")):
        out.append(at_most("install %s: at most 1.15x tar -xf + sync" % what,
                           find(results, prefix, "install .tar",
                                "tar -xf + sync"), 1.15))
    first = issue8(results)
    met = sum(1 for _, _, ok in first if ok)
    out.append(("every first-round (issue 8) target and RSS limit still met",
                "%d of %d met (table above)" % (met, len(first)) if first
                else "not measured in this run",
                met == len(first) if first else None))
    return out


NOTES = os.path.join(ROOT, "bench", "notes.md")

ONLY = ("unlock", "index", "big", "many", "examples", "small", "startup",
        "batch", "sigstore", "issue30")     # the row names of --only (make bench BENCH_ONLY=...)


def method(runs, small_runs, example_runs, scale, sigstore_runs):
    """How each figure was taken: the report's introduction."""
    return [
        "**Rows in seconds** (key unlock, the index, the 1 GiB and "
        "100,000-file datasets) were measured with GNU "
        "time (`/usr/bin/time`, 10 ms resolution): each figure is the median "
        "of %d runs after one warm-up run (page cache warm), packsign and the "
        "tools it is compared with taking turns run by run; peak memory is the "
        "largest of the runs' peak RSS plus the peak of the system's Shmem "
        "above its start (`/proc/meminfo`, sampled every 10 ms: memory in "
        "a memfd or on tmpfs, such as a private copy, is no process's RSS). "
        "`sync` runs, untimed, before every run, so "
        "that no run pays for the writeback of the one before; packsign "
        "flushes what it writes (fsync before the rename that publishes it) "
        "inside its timed run, GNU tar does not: the pack tables also show "
        "the recipe followed by `sync` of its output, the same durability. "
        "Install runs each extract into a fresh directory (ext4 slows down "
        "creating files right after deleting many).%s" %
        (runs, "" if scale == 1.0 else " Datasets scaled by %.3g." % scale),
        "",
        "**Rows in milliseconds** (the example packs, small packs, startup, "
        "batch, sigstore) were measured with `build/bench/runmany` (bench/runmany.c), "
        "because GNU time cannot resolve them: each command is spawned "
        "directly (posix_spawnp; no shell unless the command is a shell "
        "loop, as the example packs' pipelines are, through `sh -c`, for "
        "packsign and its peers alike) and timed with "
        "`clock_gettime(CLOCK_MONOTONIC)` from the spawn to `wait4`; the "
        "commands of a row alternate run by run (each round starting with "
        "the next one), after one untimed warm-up run each, with `sync(2)` "
        "untimed before every run; %d runs each for the small-pack and "
        "startup rows, %d for the example packs' rows, %d for the batch "
        "row. Reported: the median, the "
        "nearest-rank 90th percentile, the median user+sys CPU time "
        "(`wait4`'s rusage, which counts the children a shell loop waited "
        "for) and the peak memory: the largest peak RSS, or the RSS plus "
        "the Shmem above its start (sampled every millisecond) of one more, "
        "untimed run of each command, whichever is larger; (user+sys) / "
        "wall above 1 means "
        "more than one core worked. Any command exiting non-zero stops the "
        "benchmark." % (small_runs, example_runs, runs),
        "",
        "**Small packs**: each example of examples/packs packed and signed "
        "as a .tar by `packsign sign` (holon-pdf-profile with `--source-repo`"
        " and `--source-commit` of its holon.yaml's `source`, the commit it "
        "pins), and the same .tar signed by `minisign -S`; `packsign verify "
        "A -p K.pub` against `minisign -V -p M.pub -m A`. **Batch**: %s "
        "distinct AgentPacks (.tar of 5.5-8.5 KiB) generated in one process by "
        "`build/bench/genpacks` through libpacksign (ps_pack, ps_sign of the "
        "archive) with keys from fixed seeds, and minisign's signature of "
        "each archive written with libsodium in minisign's format: the same "
        "bytes on any machine; `packsign verify --files-from LIST` (one "
        "process) against a shell loop of as many `minisign -V` processes, "
        "and the same spread over every core by `xargs -P`." %
        format(BATCH_COUNT, ","),
        "",
        "**Sigstore**: `packsign verify-blob` of the conformance suite's "
        "keyless bundles (tests/conformance) against @sigstore/verify 3.1.1 "
        "(tests/node's pin) in Node, `bench/verify-blob.js`: the same "
        "artifact, bundle, trusted root, identity and issuer, the library's "
        "default thresholds, whole process (Node's start and module loading "
        "included, as packsign's start is), %d runs each." % sigstore_runs,
        "",
        "\"packsign / tool\" is packsign's median divided by the tool's: "
        "below 1.00 packsign is faster. Keys are unencrypted; unlocking an "
        "scrypt-protected key costs what its owner chose and is reported in "
        "its own table. One row is re-run with `make bench BENCH_ONLY=ROW` "
        "(several: comma-separated), ROW one of %s, or part of a dataset's "
        "name (e.g. `holon`)." % ", ".join("`%s`" % w for w in ONLY)]


def report(results, a):
    lines = ["# Performance", "",
             "Written by `make bench` (bench/run.py) on %s; do not edit by hand." %
             time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(a.started)), ""]
    lines += method(a.runs, a.small_runs, a.example_runs, a.scale,
                    a.sigstore_runs)
    lines += ["", "## Machine and tools", "", "| | |", "| --- | --- |"]
    lines += ["| %s | %s |" % kv for kv in machine()]
    lines += ["", "## Targets (issue 8)", "", target_table(issue8(results))]
    lines += ["", "## Targets (issue 22)", "", target_table(issue22(results))]
    lines += ["", "## Targets (issue 30)", "", target_table(issue30(results))]
    for name, rows in results:
        fine = rows and rows[0].runs is not None
        lines += ["", "## " + name, "", fine_table(rows) if fine
                  else table(rows)]
    if WRITTEN:
        lines += ["", "## %s: bytes written to disk" % ISSUE30, "",
                  "Each command run once more, untimed, between two `sync`s: "
                  "the growth of the block device's sectors written "
                  "(`/sys/dev/block/MAJ:MIN/stat`; file data, metadata and "
                  "the journal, and anything else written meanwhile) beside "
                  "the bytes of the regular files the command extracted.",
                  "", written_table()]
    # What was changed to reach the targets, and what was not: prose kept
    # in bench/notes.md (written by hand), appended as it is.
    with open(NOTES) as f:
        lines += ["", f.read().rstrip("\n")]
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")


METHOD_ARGS = ("runs", "small_runs", "example_runs", "scale", "sigstore_runs",
               "batch_count", "started")  # the report's method and date


def save_results(results, path, a):
    """The measurements behind the report (--results): the report can be
    written again from them (--report-from) after bench/notes.md
    changed, without measuring again."""
    data = {"results": [[name, [vars(r) for r in rows]]
                        for name, rows in results],
            "written": WRITTEN, "batch_skipped": BATCH_SKIPPED,
            "args": {k: getattr(a, k) for k in METHOD_ARGS}}
    with open(path + ".part", "w") as f:
        json.dump(data, f, indent=1)
    os.rename(path + ".part", path)


def load_results(path, a):
    global BATCH_COUNT
    with open(path) as f:
        data = json.load(f)
    for k, v in data["args"].items():
        setattr(a, k, v)
    BATCH_COUNT = a.batch_count
    WRITTEN.extend(tuple(w) for w in data["written"])
    BATCH_SKIPPED.extend(data["batch_skipped"])
    return [(name, [Row(**r) for r in rows]) for name, rows in
            data["results"]]


def wanted(only, row, name=""):
    """Whether --only asks for `row` (or names part of dataset `name`)."""
    return not only or any(w == row or (name and w in name) for w in only)


def dataset_row(name):
    if name.startswith("1 GiB"):
        return "big"
    return "many" if name.startswith("100,000") else "examples"


def short_suites(a, work):
    """The runmany sections --only asks for: [(name, rows)]."""
    out = []
    if wanted(a.only, "small"):
        print("bench: small packs", file=sys.stderr)
        out.append(("%s: verify, whole process" % SMALL,
                    small_suite(work, a.small_runs)))
    if wanted(a.only, "startup"):
        print("bench: startup", file=sys.stderr)
        out.append(("Startup", startup_suite(work, a.small_runs)))
    if wanted(a.only, "batch"):
        print("bench: batch of %d packs" % BATCH_COUNT, file=sys.stderr)
        rows = batch_suite(work, a.runs, BATCH_COUNT)
        if rows:
            out.append(("%s: %s small packs in one invocation" %
                        (BATCH, format(BATCH_COUNT, ",")), rows))
    if wanted(a.only, "sigstore"):
        print("bench: sigstore", file=sys.stderr)
        rows = sigstore_suite(a.sigstore_runs)
        if rows:
            out.append(("Sigstore: verify-blob of a keyless bundle, whole "
                        "process", rows))
    return out


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--small-runs", type=int, default=SMALL_RUNS,
                    help="runs of each small-pack and startup command")
    ap.add_argument("--example-runs", type=int, default=EXAMPLE_RUNS,
                    help="runs of each command of the example suites")
    ap.add_argument("--sigstore-runs", type=int, default=SIGSTORE_RUNS,
                    help="runs of each command of the sigstore row")
    ap.add_argument("--batch-count", type=int, default=BATCH_COUNT,
                    help="packs of the batch row")
    ap.add_argument("--dir", default="/tmp/packsign-bench")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    ap.add_argument("--only", default="",
                    help="comma-separated: " + ", ".join(ONLY))
    ap.add_argument("--verbose", action="store_true",
                    help="print every run's time on stderr")
    ap.add_argument("--results", default=os.path.join(
        ROOT, "build", "bench", "results.json"),
                    help="where the measurements are kept (JSON)")
    ap.add_argument("--report-from", metavar="RESULTS",
                    help="write the report from kept measurements, "
                    "measuring nothing (dated when they were taken)")
    a = ap.parse_args()
    a.only = [w for w in a.only.split(",") if w]
    return a


def main():
    global VERBOSE, BATCH_COUNT
    a = parse_args()
    VERBOSE, BATCH_COUNT = a.verbose, a.batch_count
    a.started = time.time()
    if a.report_from:
        report(load_results(a.report_from, a), a)
        print("bench: wrote %s from %s" % (a.out, a.report_from),
              file=sys.stderr)
        return
    os.makedirs(a.dir, exist_ok=True)
    work = os.path.join(a.dir, "work")
    os.makedirs(work, exist_ok=True)
    keys(work)
    results = []

    def write():
        report(results, a)
        save_results(results, a.results, a)

    if wanted(a.only, "unlock"):
        print("bench: key unlock", file=sys.stderr)
        results.append(("Unlocking an encrypted secret key", unlock(work, a.runs)))
    if wanted(a.only, "index"):
        print("bench: pack index", file=sys.stderr)
        results.append(("A signed pack index", index_suite(work, a.runs)))
    for name, make in datasets(a.dir, a.scale):
        if not wanted(a.only, dataset_row(name), name):
            continue
        print("bench: %s" % name, file=sys.stderr)
        example = dataset_row(name) == "examples"
        results.append((name, suite(name, make(), work, a.example_runs
                                    if example else a.runs, fine=example)))
        write()      # after every dataset: a failure later keeps what ran
    if wanted(a.only, "issue30"):
        for name, make, many in (("1 GiB in 16 files", make_big, False),
                                 ("100,000 files of 1-8 KiB", make_many,
                                  True)):
            print("bench: issue 30 (%s, v2 and v1)" % name, file=sys.stderr)
            results.append(("%s (%s)" % (ISSUE30, name), issue30_suite(
                make(a.dir, a.scale), work, a.runs, many)))
            write()
    results += short_suites(a, work)
    write()
    print("bench: wrote %s" % a.out, file=sys.stderr)


if __name__ == "__main__":
    main()
