#!/usr/bin/env python3
"""An outsider's check of the v2 chunk rule (docs/formats/signature.md,
section 4.4), written from the spec, not from packsign's code: the
reference functions are taken from the spec's own Python block, the rest
(DSSE envelope, statement, subject) read here.  It checks the chunk
claim only, not the signatures.

usage: chunkcheck.py ARCHIVE [SIG] [--spec signature.md] [--print]
Exit 0 with "v2: N chunks match" or "v1: no chunks", 1 with the reason,
2 when the input cannot be read.  --print prints the chunk digests the
archive's bytes give, one per line, instead.
"""
import base64
import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
V1 = "https://packsign.dev/attestation/pack/v1"
V2 = "https://packsign.dev/attestation/pack/v2"


def reference(spec_path):
    text = open(spec_path, encoding="utf-8").read()
    section = text[text.index("### 4.4 Chunk digests (v2)"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    scope = {}
    exec(code, scope)  # the spec's reference, as published
    return scope


def statement(sig_path):
    env = json.load(open(sig_path, encoding="utf-8"))
    return json.loads(base64.b64decode(env["payload"]))


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    spec = os.path.join(HERE, "..", "..", "docs", "formats", "signature.md")
    if "--spec" in argv:
        spec = argv[argv.index("--spec") + 1]
        args.remove(spec)
    ref = reference(spec)
    archive = args[0]
    data = open(archive, "rb").read()
    if "--print" in argv:
        print("\n".join(ref["chunk_digests"](data)))
        return 0
    st = statement(args[1] if len(args) > 1 else archive + ".sig")
    kind = st.get("predicateType")
    pred = st.get("predicate", {})
    if kind == V1:
        if "chunks" in pred:
            print("refused: chunks in a v1 statement")
            return 1
        print("v1: no chunks")
        return 0
    if kind != V2:
        print("refused: unknown predicate type %r" % kind)
        return 1
    subjects = st.get("subject", [])
    if len(subjects) != 1 or subjects[0]["name"].endswith(".zip"):
        print("refused: a v2 statement has one subject, not a zip")
        return 1
    if hashlib.sha256(data).hexdigest() != subjects[0]["digest"]["sha256"]:
        print("refused: the archive's SHA-256 is not the subject's")
        return 1
    if "chunks" not in pred or not ref["chunks_valid"](pred["chunks"], data):
        print("refused: the chunks do not match the archive")
        return 1
    print("v2: %d chunks match" % len(pred["chunks"]["sha256"]))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError, KeyError, IndexError) as e:
        print("cannot check: %s" % e)
        sys.exit(2)
