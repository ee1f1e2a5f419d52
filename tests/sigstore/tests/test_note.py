"""Signed notes against the C2SP / golang.org/x/mod/sumdb/note example
(PeterNeumann: a published Ed25519 signer key, verifier key and signature),
the key IDs of a Rekor v2 log of Sigstore's staging trusted root, and the
checkpoint shapes the logs write."""

import pytest

from localsigstore import note, rekor, util
from localsigstore.keys import SigningKey

PETER_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
PETER_TEXT = ("If you think cryptography is the answer to your problem,\n"
              "then you don't know what your problem is.\n")
PETER_NOTE = (PETER_TEXT + "\n\u2014 PeterNeumann "
              "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n")


def test_the_published_example_is_reproduced_byte_for_byte():
    signer = note.signer_from_private_key(PETER_SKEY)
    assert signer.verifier_key() == PETER_VKEY
    assert note.sign(PETER_TEXT, [signer.signature_line(PETER_TEXT)]) == PETER_NOTE


def test_open_accepts_the_example_and_refuses_a_changed_text():
    signer = note.signer_from_private_key(PETER_SKEY)
    assert note.open_note(PETER_NOTE, "PeterNeumann", signer.hint, signer.key.public) == PETER_TEXT
    with pytest.raises(ValueError):
        note.open_note(PETER_NOTE.replace("cryptography", "cryptographY"), "PeterNeumann",
                       signer.hint, signer.key.public)


def test_rekor_v2_log_id_is_the_c2sp_key_id():
    # Sigstore's staging trusted root (the conformance suite's rekor2 cases)
    # lists log2025-alpha1 with this Ed25519 key and log ID.
    spki = util.unb64("MCowBQYDK2VwAyEAPn+AREHoBaZ7wgS1zBqpxmLSGnyhxXj4lFxSdWVB8o8=")
    kid = note.key_id("log2025-alpha1.rekor.sigstage.dev", note.ALG_ED25519, spki[-32:])
    assert util.b64(kid) == "8w1amZ2S5mJIQkQmPxdMuOrL/oJkvFg9MnQXmeOCXck="


def test_ecdsa_hint_is_the_log_id_prefix():
    log = rekor.RekorV1(b"seed", "rekor.test")
    assert log.log_id == util.sha256(log.key.spki_der())
    assert log.signer.hint == log.log_id[:4]


def test_checkpoint_lines_and_signatures():
    log = rekor.RekorV2(b"seed", "log.test", prefill=3)
    witness = note.NoteSigner("witness.test", SigningKey.from_seed(b"seed", "w", "ed25519"),
                              cosignature=True)
    cp = log.checkpoint(extra=["ext line"], cosigners=[witness], cosign_time=1700000000)
    text, sigs = note.split(cp)
    assert text == "log.test\n3\n%s\next line\n" % util.b64(log.tree.root())
    assert [s[0] for s in sigs] == ["log.test", "witness.test"]
    assert note.open_note(cp, "log.test", log.signer.hint, log.key.public) == text
    # The cosignature signs "cosignature/v1", the time, then the text.
    name, hint, blob = sigs[1]
    assert hint == witness.hint != log.signer.hint
    assert int.from_bytes(blob[:8], "big") == 1700000000
    assert witness.key.verify(blob[8:], b"cosignature/v1\ntime 1700000000\n" + text.encode())


def test_note_text_rules():
    with pytest.raises(ValueError):
        note.sign("no newline", [])
    with pytest.raises(ValueError):
        note.NoteSigner("has space", SigningKey.from_seed(b"s", "k", "ed25519"))
    with pytest.raises(ValueError):
        note.split("text\n\nnot a signature line\n")
