#!/usr/bin/env python3
"""packsign benchmarks: `make bench` runs this and writes docs/performance.md.

Every command runs under /usr/bin/time (GNU time), which gives wall-clock
seconds and peak resident memory; each is run once to warm the page cache,
then --runs times, and the median is reported; `sync` runs (untimed) before
each run.  packsign and its peers run
in the same session on the same data, taking turns run by run, so the
ratios compare like with like.  Nothing here is a pass/fail test: targets are read from the
tables (issue 8, docs/performance.md).

usage: bench/run.py [--runs N] [--dir DIR] [--scale F] [--out FILE] [--only NAME,...]
                    [--verbose]
"""
import argparse
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKSIGN = os.path.join(ROOT, "build", "packsign")
EXAMPLE = os.path.join(ROOT, "examples", "packs", "research.top-journal-reviewer")
TAR_RECIPE = ("tar --sort=name --format=posix "
              "--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime "
              "--mtime=@0 --owner=0 --group=0 --numeric-owner")


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, **kw)


def run_once(cmd):
    """Wall seconds and peak RSS (KiB) of one run of `cmd`."""
    # No run pays for the previous run's writeback: tools that leave
    # dirty pages (tar) would otherwise slow down whatever runs next.
    sh("sync")
    res = subprocess.run(["/usr/bin/time", "-f", "%e %M", "sh", "-c", cmd],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    if res.returncode != 0:
        sys.exit("bench: command failed (%d): %s\n%s" %
                 (res.returncode, cmd, res.stderr))
    wall, peak = res.stderr.strip().splitlines()[-1].split()
    return float(wall), int(peak)


VERBOSE = False  # --verbose: every run's time on stderr


def measure(cmds, runs, before=None):
    """Median wall seconds and peak RSS (KiB) of each of `cmds` over `runs`
    runs, taken in turn (A B A B ...): a slow spell of the machine (this
    VM's disk has them) falls on every tool alike, not on one tool's block
    of runs.

    RUN in a command becomes the run's number, so that each run can write
    to a fresh directory."""
    times = [[] for _ in cmds]
    rss = [[] for _ in cmds]
    for i in range(runs + 1):
        for k, cmd in enumerate(cmds):
            if before:
                sh(before)
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
    out = [("1 GiB in 16 files", make_big(base, scale)),
           ("100,000 files of 1-8 KiB", make_many(base, scale))]
    for name in sorted(os.listdir(os.path.join(ROOT, "examples", "packs"))):
        out.append(("example " + name,
                    os.path.join(ROOT, "examples", "packs", name)))
    return out


# ---------------------------------------------------------------- suites

class Row:
    def __init__(self, op, tool, secs, rss, base=None):
        self.op, self.tool, self.secs, self.rss, self.base = op, tool, secs, rss, base


def keys(work):
    if not os.path.exists(os.path.join(work, "k.key")):
        sh("%s keygen --no-passphrase --identity bench -o %s/k >/dev/null"
           % (PACKSIGN, work))
        sh("minisign -G -W -p %s/m.pub -s %s/m.key >/dev/null" % (work, work))


# Datasets only packed: signing needs what exists only upstream.
PACK_ONLY = {"holon-pdf-profile": "its holon.yaml pins a source commit of its "
             "own repository, which signing checks; packed only"}


def suite(name, src, work, runs):
    """Rows for one dataset: (operation, tool, median s, peak KiB, ref)."""
    rows = []
    many_files = not name.startswith("example")
    o = os.path.join(work, "out")
    q = lambda s: s.replace("SRC", src).replace("OUT", o).replace(
        "PS", PACKSIGN).replace("W", work).replace("RECIPE", TAR_RECIPE)

    def pair(op, ours, peers, before=None):
        got = measure([q(ours)] + [q(cmd) for _, cmd in peers], runs,
                      q(before) if before else None)
        s, r = got[0]
        rows.append(Row(op, "packsign", s, r))
        for (tool, _), (ps, pr) in zip(peers, got[1:]):
            rows.append(Row(op, tool, ps, pr, base=s))

    # packsign flushes its output before publishing it; "+ sync" is the
    # recipe held to the same durability (sync FILE is fsync(2) of it).
    pair("pack .tar", "PS pack SRC -o OUT.tar",
         [("GNU tar recipe", "RECIPE -C SRC -cf OUT.t2 ."),
          ("GNU tar recipe + sync", "RECIPE -C SRC -cf OUT.t3 . && sync OUT.t3")])
    pair("pack .tar.gz", "PS pack SRC -o OUT.tar.gz",
         [("recipe | gzip -n -6", "RECIPE -C SRC -cf - . | gzip -n -6 > OUT.t2.gz")])
    pair("pack .tar.zst", "PS pack SRC -o OUT.tar.zst",
         [("recipe | zstd -3", "RECIPE -C SRC -cf - . | zstd -q -3 > OUT.t2.zst")])
    if os.path.basename(src) in PACK_ONLY:
        return rows
    pair("sign .tar", "rm -f OUT.s.tar OUT.s.tar.sig; PS sign SRC -s W/k.key "
         "-o OUT.s.tar",
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
    # ext4 scans recently deleted inodes (the last ~15 s) when it
    # allocates new ones: every run extracts into a directory of its own,
    # and deletions happen only between rows, followed by a pause.
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


def settle(work):
    """Removes extracted trees, then lets ext4 forget the deletions."""
    sh("rm -rf %s/data.ps.* %s/x.* && sync" % (work, work))
    time.sleep(16)


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
    out = ["| operation | tool | median s | peak RSS MiB | packsign / tool |",
           "| --- | --- | ---: | ---: | ---: |"]
    for r in rows:
        ratio = "" if r.base is None else (
            "%.2f" % (r.base / r.secs) if r.secs > 0 else "n/a")
        out.append("| %s | %s | %.3f | %.1f | %s |" %
                   (r.op, r.tool.replace("|", "\\|"), r.secs, r.rss / 1024.0,
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


def targets(results):
    """Issue 8's targets, read from the tables: met or missed."""
    out = ["| target | measured | |", "| --- | --- | --- |"]
    for prefix, op, peer, limit in TARGETS:
        for name, rows in results:
            if not name.startswith(prefix):
                continue
            for r in rows:
                if r.op == op and r.tool == peer and r.secs > 0:
                    ratio = r.base / r.secs
                    out.append("| %s, %s: packsign at most %.2fx %s | %.2fx "
                               "| %s |" % (name, op, limit, peer, ratio,
                                           "met" if ratio <= limit else
                                           "missed"))
    for prefix, mib in RSS_TARGETS:
        for name, rows in results:
            if not name.startswith(prefix):
                continue
            top = max((r for r in rows if r.tool == "packsign"
                       and not r.op.startswith("unlock")),
                      key=lambda r: r.rss, default=None)
            if top is not None:
                out.append("| %s: peak RSS of every packsign command at most "
                           "%d MiB | %.1f MiB (%s) | %s |" %
                           (name, mib, top.rss / 1024.0, top.op,
                            "met" if top.rss / 1024.0 <= mib else "missed"))
    return "\n".join(out)


def report(path, results, runs, scale, started):
    lines = ["# Performance", "",
             "Written by `make bench` (bench/run.py) on %s; do not edit by hand." %
             time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)), "",
             "Each figure is the median of %d runs after one warm-up run (page cache "
             "warm), measured with GNU time in the same session, packsign and "
             "the tools it is compared with taking turns run by run; peak RSS is the "
             "largest of the runs. \"packsign / tool\" is packsign's median divided "
             "by the tool's: below 1.00 packsign is faster. Keys are unencrypted; "
             "unlocking an scrypt-protected key costs what its owner chose and is "
             "reported in its own table. `sync` runs, untimed, before every run, so "
             "that no run pays for the writeback of the one before; packsign "
             "flushes what it writes (fsync before the rename that publishes "
             "it) inside its timed run, GNU tar does not: the pack tables also "
             "show the recipe followed by `sync` of its output, the same "
             "durability. Install runs each "
             "extract into a fresh directory (ext4 slows down creating files "
             "right after deleting many).%s" % (runs, "" if scale == 1.0 else
                                  " Datasets scaled by %.3g." % scale), "",
             "## Machine and tools", "", "| | |", "| --- | --- |"]
    lines += ["| %s | %s |" % kv for kv in machine()]
    lines += ["", "## Targets (issue 8)", "", targets(results)]
    for name, rows in results:
        lines += ["", "## " + name, "", table(rows)]
        why = PACK_ONLY.get(name.replace("example ", ""))
        if why:
            lines += ["", "(%s.)" % why]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", default="/tmp/packsign-bench")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    ap.add_argument("--only", default="")
    ap.add_argument("--verbose", action="store_true",
                    help="print every run's time on stderr")
    a = ap.parse_args()
    global VERBOSE
    VERBOSE = a.verbose
    started = time.time()
    os.makedirs(a.dir, exist_ok=True)
    work = os.path.join(a.dir, "work")
    os.makedirs(work, exist_ok=True)
    keys(work)
    results = []
    if not a.only or "unlock" in a.only:
        print("bench: key unlock", file=sys.stderr)
        results.append(("Unlocking an encrypted secret key", unlock(work, a.runs)))
    if not a.only or "index" in a.only:
        print("bench: pack index", file=sys.stderr)
        results.append(("A signed pack index", index_suite(work, a.runs)))
    for name, src in datasets(a.dir, a.scale):
        if a.only and not any(w in name for w in a.only.split(",")):
            continue
        print("bench: %s" % name, file=sys.stderr)
        results.append((name, suite(name, src, work, a.runs)))
        # Written after every dataset: a failure later keeps what ran.
        report(a.out, results, a.runs, a.scale, started)
    report(a.out, results, a.runs, a.scale, started)
    print("bench: wrote %s" % a.out, file=sys.stderr)


if __name__ == "__main__":
    main()
