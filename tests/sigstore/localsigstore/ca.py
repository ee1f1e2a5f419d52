"""A test certificate authority shaped like Fulcio's: a self-signed root, an
intermediate, and short-lived leaf certificates for an OIDC identity (empty
subject, critical SAN, digitalSignature, code-signing EKU, the Fulcio fields
of fulcio.Identity) with SCTs from CT logs embedded (precertificate with the
poison extension first, then the final certificate with the SCT list in the
poison's place)."""

import datetime

from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from . import ctlog, util
from .keys import SigningKey

LEAF_LIFETIME = datetime.timedelta(minutes=10)


def name(common_name, organization=None):
    attrs = []
    if organization:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    attrs.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
    return x509.Name(attrs)


def serial_from(seed, label):
    return int.from_bytes(util.derive(seed, "serial:" + label, 16), "big") >> 1 | 1


def build(subject, issuer, public, signer, serial, not_before, not_after, extensions):
    """An X.509 v3 certificate; extensions is [(extension, critical)] in
    order.  signer is the issuer's SigningKey."""
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
         .public_key(public).serial_number(serial)
         .not_valid_before(not_before).not_valid_after(not_after))
    for ext, critical in extensions:
        b = b.add_extension(ext, critical=critical)
    return b.sign(signer.private, signer.hash_algorithm)


def ca_extensions(public, issuer_public, path_length, code_signing=False):
    exts = [
        (x509.KeyUsage(digital_signature=False, content_commitment=False,
                       key_encipherment=False, data_encipherment=False,
                       key_agreement=False, key_cert_sign=True, crl_sign=True,
                       encipher_only=False, decipher_only=False), True),
        (x509.BasicConstraints(ca=True, path_length=path_length), True),
        (x509.SubjectKeyIdentifier.from_public_key(public), False),
    ]
    if issuer_public is not None:
        exts.append((x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_public), False))
    if code_signing:
        exts.append((x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CODE_SIGNING]), False))
    return exts


class CertificateAuthority:
    """Root and intermediate; issue_leaf() makes Fulcio-style leaves.

    root_validity and intermediate_validity are (not_before, not_after)."""

    def __init__(self, seed, label="fulcio", organization="sigstore.local",
                 root_validity=None, intermediate_validity=None, kind="p384"):
        self.label = label
        self.organization = organization
        start = util.utc(2024, 1, 1)
        root_validity = root_validity or (start, util.utc(2034, 1, 1))
        intermediate_validity = intermediate_validity or root_validity
        self.root_key = SigningKey.from_seed(seed, label + ":root", kind)
        self.intermediate_key = SigningKey.from_seed(seed, label + ":intermediate", kind)
        self._seed = seed
        root_name = name("sigstore", organization)
        self.root = build(root_name, root_name, self.root_key.public, self.root_key,
                          serial_from(seed, label + ":root"), *root_validity,
                          ca_extensions(self.root_key.public, None, 1))
        self.intermediate = build(
            name("sigstore-intermediate", organization), root_name,
            self.intermediate_key.public, self.root_key,
            serial_from(seed, label + ":intermediate"), *intermediate_validity,
            ca_extensions(self.intermediate_key.public, self.root_key.public, 0,
                          code_signing=True))
        self._issued = 0

    @property
    def chain(self):
        """The CA's certificates as a trusted root lists them: intermediate
        first, the root last."""
        return [self.intermediate, self.root]

    def issue_leaf(self, public, identity, not_before, ct_logs=(), not_after=None,
                   eku=(ExtendedKeyUsageOID.CODE_SIGNING,), sct_time=None,
                   corrupt_sct=False, sct_extensions=b""):
        """A leaf for public (a cryptography public key) and identity (a
        fulcio.Identity), valid from not_before for LEAF_LIFETIME unless
        not_after says otherwise, with one embedded SCT per log of ct_logs
        (none: no SCT extension at all)."""
        not_after = not_after or not_before + LEAF_LIFETIME
        self._issued += 1
        serial = serial_from(self._seed, "%s:leaf:%d" % (self.label, self._issued))
        exts = [
            (x509.KeyUsage(digital_signature=True, content_commitment=False,
                           key_encipherment=False, data_encipherment=False,
                           key_agreement=False, key_cert_sign=False, crl_sign=False,
                           encipher_only=False, decipher_only=False), True),
        ]
        if eku:
            exts.append((x509.ExtendedKeyUsage(list(eku)), False))
        exts += [
            (x509.SubjectKeyIdentifier.from_public_key(public), False),
            (x509.AuthorityKeyIdentifier.from_issuer_public_key(
                self.intermediate_key.public), False),
            (identity.san_extension(), True),
        ] + identity.extensions()
        args = (x509.Name([]), self.intermediate.subject, public, self.intermediate_key,
                serial, not_before, not_after)
        if not ct_logs:
            return build(*args, exts)
        precert = build(*args, exts + [(ctlog.poison_extension(), True)])
        when = sct_time or not_before
        scts = [log.add_pre_chain(precert, self.intermediate, when,
                                  extensions=sct_extensions, corrupt=corrupt_sct)
                for log in ct_logs]
        return build(*args, exts + [(ctlog.sct_list_extension(scts), False)])
