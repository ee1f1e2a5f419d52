"""Sigstore trust material as JSON: a trusted root
(dev.sigstore.trustroot.v1.TrustedRoot, media type v0.1) and a signing
config (dev.sigstore.trustroot.v1.SigningConfig, media type v0.2), in
protobuf's JSON mapping (lowerCamelCase names, bytes as base64, times as RFC
3339, enums by name)."""

from cryptography.hazmat.primitives import serialization

from . import util
from .keys import spki_der

TRUSTED_ROOT_V01 = "application/vnd.dev.sigstore.trustedroot+json;version=0.1"
SIGNING_CONFIG_V02 = "application/vnd.dev.sigstore.signingconfig.v0.2+json"


def validity(start, end=None):
    out = {"start": util.rfc3339(start)}
    if end is not None:
        out["end"] = util.rfc3339(end)
    return out


def _der(cert):
    return cert.public_bytes(serialization.Encoding.DER)


class TrustedRoot:
    """Collects logs and authorities; to_json() gives the document.

    Each add_* takes the validity window (start, optional end) and returns
    the entry, which a test may alter (remove "start", change a key)."""

    def __init__(self):
        self.tlogs, self.cas, self.ctlogs, self.tsas = [], [], [], []

    @staticmethod
    def log_entry(base_url, public, key_details, log_id, start, end=None):
        return {"baseUrl": base_url, "hashAlgorithm": "SHA2_256",
                "publicKey": {"rawBytes": util.b64(spki_der(public)),
                              "keyDetails": key_details,
                              "validFor": validity(start, end)},
                "logId": {"keyId": util.b64(log_id)}}

    def add_tlog(self, log, start, end=None):
        e = self.log_entry(log.base_url, log.key.public, log.key.key_details,
                           log.log_id, start, end)
        self.tlogs.append(e)
        return e

    def add_ctlog(self, log, start, end=None):
        e = self.log_entry("https://" + log.name, log.key.public, log.key.key_details,
                           log.log_id, start, end)
        self.ctlogs.append(e)
        return e

    @staticmethod
    def authority(chain, uri, start, end=None):
        """A CertificateAuthority entry: subject of the chain's root (as
        Sigstore's roots name theirs), the chain leafmost first."""
        root = chain[-1].subject
        org = [a.value for a in root if a.oid.dotted_string == "2.5.4.10"]
        cn = [a.value for a in root if a.oid.dotted_string == "2.5.4.3"]
        return {"subject": {"organization": org[0] if org else "",
                            "commonName": cn[0] if cn else ""},
                "uri": uri,
                "certChain": {"certificates": [{"rawBytes": util.b64(_der(c))}
                                               for c in chain]},
                "validFor": validity(start, end)}

    def add_ca(self, ca, start, end=None, uri="https://fulcio.local"):
        e = self.authority(ca.chain, uri, start, end)
        self.cas.append(e)
        return e

    def add_tsa(self, tsa, start, end=None, uri="https://tsa.local/api/v1/timestamp"):
        e = self.authority(tsa.chain, uri, start, end)
        self.tsas.append(e)
        return e

    def to_json(self):
        return {"mediaType": TRUSTED_ROOT_V01, "tlogs": self.tlogs,
                "certificateAuthorities": self.cas, "ctlogs": self.ctlogs,
                "timestampAuthorities": self.tsas}


def service(url, major_api_version, start, end=None, operator="sigstore.local"):
    return {"url": url, "majorApiVersion": major_api_version,
            "validFor": validity(start, end), "operator": operator}


def signing_config(ca_urls, oidc_urls, rekor_urls, tsa_urls,
                   rekor_selector="ANY", tsa_selector="ANY"):
    """A SigningConfig v0.2: each *_urls a list of service() entries;
    selectors ANY, ALL or EXACT (EXACT also needs a count, add it after)."""
    return {"mediaType": SIGNING_CONFIG_V02, "caUrls": ca_urls, "oidcUrls": oidc_urls,
            "rekorTlogUrls": rekor_urls, "rekorTlogConfig": {"selector": rekor_selector},
            "tsaUrls": tsa_urls, "tsaConfig": {"selector": tsa_selector}}
