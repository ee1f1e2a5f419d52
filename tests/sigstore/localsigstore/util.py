"""Encodings every part of the local Sigstore shares: base64, Sigstore's
canonical JSON, RFC 3339 times, and keys derived from a seed."""

import base64
import datetime
import hashlib
import hmac
import json


def b64(data):
    return base64.b64encode(data).decode("ascii")


def unb64(text):
    return base64.b64decode(text, validate=True)


def sha256(data):
    return hashlib.sha256(data).digest()


def canonical_json(obj):
    """RFC 8785 for the values used here (strings, integers, lists, objects):
    keys sorted, no whitespace, non-ASCII kept as UTF-8.  Rekor's
    canonicalized bodies and the SET payload are in this form."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def utc(year, month, day, hour=0, minute=0, second=0):
    return datetime.datetime(year, month, day, hour, minute, second,
                             tzinfo=datetime.timezone.utc)


def now():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def rfc3339(when):
    return when.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def unix(when):
    return int(when.timestamp())


def derive(seed, label, length=32):
    """length bytes that depend only on the seed and the label."""
    out, counter = b"", 0
    while len(out) < length:
        out += hmac.new(seed, b"%d:%s" % (counter, label.encode()),
                        hashlib.sha256).digest()
        counter += 1
    return out[:length]
