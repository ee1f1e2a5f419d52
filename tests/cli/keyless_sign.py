#!/usr/bin/env python3
"""Keyless bundles of packsign statements, made by the local Sigstore
(tests/sigstore) for tests/cli/keyless.bats.

    keyless_sign.py ENVELOPE BUNDLE ROOT [NAME=VALUE ...]

ENVELOPE is a DSSE envelope (packsign's .sig, or a bundle whose
dsseEnvelope is taken); its payload is signed again by a fresh key whose
Fulcio-style certificate carries a GitHub Actions (kind=github, default) or
GitLab CI (kind=gitlab) identity, logged to Rekor v1 (dsse 0.0.1) at
2026-06-01T12:01:00Z.  BUNDLE gets the v0.3 bundle, ROOT the instance's
trusted root.  NAME=VALUE: kind, repository, workflow, ref, sha, event (the
token's claims), seed, payload (a file whose bytes replace the payload),
and any Fulcio field by its name (source_repository_identifier,
build_signer_uri, ...; an empty value removes it).
"""
import base64
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sigstore"))
from localsigstore import bundle, fulcio, instance, util  # noqa: E402

CLAIMS = ("repository", "workflow", "ref", "sha", "event", "project")


def main(argv):
    env_path, out, root = argv[:3]
    opts = dict(a.split("=", 1) for a in argv[3:])
    kind = opts.pop("kind", "github")
    seed = opts.pop("seed", "packsign keyless.bats").encode()
    doc = json.load(open(env_path))
    env = doc.get("dsseEnvelope", doc)
    payload = base64.b64decode(env["payload"])
    if "payload" in opts:
        payload = open(opts.pop("payload"), "rb").read()
    claims = {k: opts.pop(k) for k in CLAIMS if k in opts}
    if kind == "gitlab" and "event" in claims:
        claims["pipeline_source"] = claims.pop("event")
    ident = instance.identity(kind, **claims)
    san = opts.pop("san", None)
    ident = ident.replace(**{k: (v or None) for k, v in opts.items()})
    if san is not None:
        ident = fulcio.Identity(san, ident.fields)
    s = instance.LocalSigstore(seed)
    key = s.key("signer:" + ident.san)
    cert = s.certificate(key, ident, util.utc(2026, 6, 1, 12, 0, 0))
    signed = s.sign_dsse(key, cert, payload, env["payloadType"])
    entry = s.rekor1.entry(s.log_v1(signed, util.utc(2026, 6, 1, 12, 1, 0)))
    b = bundle.make("0.3", bundle.material_certificate(cert), [entry], signed.content)
    json.dump(b, open(out, "w"))
    json.dump(s.trusted_root().to_json(), open(root, "w"))


if __name__ == "__main__":
    main(sys.argv[1:])
