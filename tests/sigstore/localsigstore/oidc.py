"""A local OIDC issuer: ES256 identity tokens (compact JWS), its JWKS and
discovery document, and the token check Fulcio makes (signature by a key of
the issuer's JWKS, iss, aud, exp, nbf).

Issue 29's loopback issuer serves discovery() at
/.well-known/openid-configuration and jwks() at its jwks_uri; its Fulcio
calls verify().
"""

import base64
import json

from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature, encode_dss_signature)

from . import util
from .keys import SigningKey


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class TokenError(ValueError):
    """A refused token; reason is one word: malformed, signature, issuer,
    audience, expired, not_yet_valid."""

    def __init__(self, reason, message):
        super().__init__(message)
        self.reason = reason


class Issuer:
    def __init__(self, seed, url):
        self.url = url
        self.key = SigningKey.from_seed(seed, "oidc:" + url, "p256")
        self.kid = util.sha256(self.key.spki_der())[:8].hex()

    def discovery(self):
        return {"issuer": self.url, "jwks_uri": self.url + "/.well-known/jwks",
                "response_types_supported": ["id_token"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["ES256"]}

    def jwks(self):
        numbers = self.key.public.public_numbers()
        return {"keys": [{"kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256",
                          "kid": self.kid,
                          "x": b64url(numbers.x.to_bytes(32, "big")),
                          "y": b64url(numbers.y.to_bytes(32, "big"))}]}

    def token(self, claims, issued_at, lifetime=300, audience="sigstore", key=None):
        """A signed token with iss, aud, iat, nbf, exp added to claims
        (claims win, so a test can set any of them).  key signs instead of
        the issuer's (a forged token)."""
        now = util.unix(issued_at)
        body = {"iss": self.url, "aud": audience, "iat": now, "nbf": now,
                "exp": now + lifetime}
        body.update(claims)
        header = {"alg": "ES256", "kid": self.kid, "typ": "JWT"}
        signing_input = (b64url(json.dumps(header, separators=(",", ":")).encode()) + "." +
                         b64url(json.dumps(body, separators=(",", ":")).encode()))
        r, s = decode_dss_signature((key or self.key).sign(signing_input.encode()))
        return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))

    def verify(self, token, audience, now):
        """The claims of token if this issuer signed it for audience and it
        is valid at now; TokenError otherwise."""
        parts = token.split(".")
        if len(parts) != 3:
            raise TokenError("malformed", "a JWT has three dot-separated parts")
        try:
            header = json.loads(unb64url(parts[0]))
            claims = json.loads(unb64url(parts[1]))
            sig = unb64url(parts[2])
        except ValueError as e:
            raise TokenError("malformed", "token does not decode: %s" % e)
        if header.get("alg") != "ES256" or header.get("kid") != self.kid or len(sig) != 64:
            raise TokenError("signature", "token is not ES256 under key %s" % self.kid)
        der_sig = encode_dss_signature(int.from_bytes(sig[:32], "big"),
                                       int.from_bytes(sig[32:], "big"))
        if not self.key.verify(der_sig, (parts[0] + "." + parts[1]).encode()):
            raise TokenError("signature", "token signature does not verify")
        if claims.get("iss") != self.url:
            raise TokenError("issuer", "token issuer %r, expected %r" % (claims.get("iss"), self.url))
        aud = claims.get("aud")
        if audience not in (aud if isinstance(aud, list) else [aud]):
            raise TokenError("audience", "token audience %r, expected %r" % (aud, audience))
        t = util.unix(now)
        if not isinstance(claims.get("exp"), int) or t >= claims["exp"]:
            raise TokenError("expired", "token expired at %s" % claims.get("exp"))
        if isinstance(claims.get("nbf"), int) and t < claims["nbf"]:
            raise TokenError("not_yet_valid", "token not valid before %s" % claims["nbf"])
        return claims
