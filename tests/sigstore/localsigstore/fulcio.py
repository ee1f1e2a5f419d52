"""What Fulcio puts in a certificate for an OIDC identity: the subject
alternative name and the extensions under 1.3.6.1.4.1.57264.1 (Fulcio's
docs/oid-info.md), computed from the token's claims.

- .1 the issuer, legacy: the URL's raw bytes as the extension value;
- .2-.6 GitHub Workflow Trigger, SHA, Name, Repository, Ref, legacy, raw;
- .8 the issuer and .9-.22 the build fields: each a DER UTF8String.

identity_from_claims() is what a Fulcio server calls after checking a token;
github_claims() and gitlab_claims() make plausible tokens' claims for tests.
"""

from cryptography import x509

from . import der

GITHUB_ISSUER = "https://token.actions.githubusercontent.com"
GITLAB_ISSUER = "https://gitlab.com"

OID = {
    "issuer_v1": "1.3.6.1.4.1.57264.1.1",
    "github_workflow_trigger": "1.3.6.1.4.1.57264.1.2",
    "github_workflow_sha": "1.3.6.1.4.1.57264.1.3",
    "github_workflow_name": "1.3.6.1.4.1.57264.1.4",
    "github_workflow_repository": "1.3.6.1.4.1.57264.1.5",
    "github_workflow_ref": "1.3.6.1.4.1.57264.1.6",
    "issuer_v2": "1.3.6.1.4.1.57264.1.8",
    "build_signer_uri": "1.3.6.1.4.1.57264.1.9",
    "build_signer_digest": "1.3.6.1.4.1.57264.1.10",
    "runner_environment": "1.3.6.1.4.1.57264.1.11",
    "source_repository_uri": "1.3.6.1.4.1.57264.1.12",
    "source_repository_digest": "1.3.6.1.4.1.57264.1.13",
    "source_repository_ref": "1.3.6.1.4.1.57264.1.14",
    "source_repository_identifier": "1.3.6.1.4.1.57264.1.15",
    "source_repository_owner_uri": "1.3.6.1.4.1.57264.1.16",
    "source_repository_owner_identifier": "1.3.6.1.4.1.57264.1.17",
    "build_config_uri": "1.3.6.1.4.1.57264.1.18",
    "build_config_digest": "1.3.6.1.4.1.57264.1.19",
    "build_trigger": "1.3.6.1.4.1.57264.1.20",
    "run_invocation_uri": "1.3.6.1.4.1.57264.1.21",
    "source_repository_visibility": "1.3.6.1.4.1.57264.1.22",
}
LEGACY_RAW = {"issuer_v1", "github_workflow_trigger", "github_workflow_sha",
              "github_workflow_name", "github_workflow_repository",
              "github_workflow_ref"}


class Identity:
    """A certificate's identity: SAN (a URI or an email) and Fulcio fields.

    fields maps the names of OID to text; order is kept.  issuer_v1 and
    issuer_v2 may differ or be absent (tests of the issuer rules)."""

    def __init__(self, san, fields, san_kind="uri"):
        if san_kind not in ("uri", "email"):
            raise ValueError("SAN kind is uri or email")
        self.san = san
        self.san_kind = san_kind
        self.fields = dict(fields)

    @property
    def issuer(self):
        return self.fields.get("issuer_v2", self.fields.get("issuer_v1"))

    def replace(self, **changes):
        """A copy with fields changed (None removes one)."""
        fields = dict(self.fields)
        for k, v in changes.items():
            if k not in OID:
                raise KeyError(k)
            if v is None:
                fields.pop(k, None)
            else:
                fields[k] = v
        return Identity(self.san, fields, self.san_kind)

    def extensions(self):
        """[(x509 extension, critical)] for the Fulcio fields, OID order."""
        out = []
        for name in sorted(self.fields, key=lambda n: [int(p) for p in OID[n].split(".")]):
            value = self.fields[name].encode("utf-8")
            if name not in LEGACY_RAW:
                value = der.utf8_string(self.fields[name])
            out.append((x509.UnrecognizedExtension(x509.ObjectIdentifier(OID[name]), value),
                        False))
        return out

    def san_extension(self):
        if self.san_kind == "uri":
            name = x509.UniformResourceIdentifier(self.san)
        else:
            name = x509.RFC822Name(self.san)
        return x509.SubjectAlternativeName([name])


def github_claims(repository="octo-org/octo-repo", workflow=".github/workflows/release.yml",
                  ref="refs/heads/main", sha="4f5a5b0c1d2e3f405162738495a6b7c8d9e0f102",
                  event="push", run_id="8675309", attempt="1"):
    owner = repository.split("/")[0]
    return {
        "iss": GITHUB_ISSUER,
        "sub": "repo:%s:ref:%s" % (repository, ref),
        "repository": repository, "repository_id": "601234567",
        "repository_owner": owner, "repository_owner_id": "71234567",
        "repository_visibility": "public", "ref": ref, "sha": sha,
        "workflow": "Release", "event_name": event,
        "workflow_ref": "%s/%s@%s" % (repository, workflow, ref), "workflow_sha": sha,
        "job_workflow_ref": "%s/%s@%s" % (repository, workflow, ref),
        "job_workflow_sha": sha, "runner_environment": "github-hosted",
        "run_id": run_id, "run_attempt": attempt,
    }


def gitlab_claims(project="group/project", ref="main", sha="0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c",
                  pipeline_source="push", job_id="424242"):
    namespace = project.split("/")[0]
    config = "gitlab.com/%s//.gitlab-ci.yml@refs/heads/%s" % (project, ref)
    return {
        "iss": GITLAB_ISSUER,
        "sub": "project_path:%s:ref_type:branch:ref:%s" % (project, ref),
        "project_path": project, "project_id": "52341234",
        "namespace_path": namespace, "namespace_id": "7123456",
        "project_visibility": "public", "ref": ref, "ref_type": "branch", "sha": sha,
        "ci_config_ref_uri": config, "ci_config_sha": sha,
        "pipeline_source": pipeline_source, "job_id": job_id,
        "runner_environment": "gitlab-hosted",
    }


def identity_from_claims(claims):
    """The Identity Fulcio issues for a verified token's claims: GitHub
    Actions and GitLab CI by their issuer, else an email identity."""
    iss = claims["iss"]
    if iss == GITHUB_ISSUER:
        return _github(claims)
    if iss == GITLAB_ISSUER:
        return _gitlab(claims)
    if not claims.get("email"):
        raise ValueError("token of %s has no email claim" % iss)
    return Identity(claims["email"], {"issuer_v1": iss, "issuer_v2": iss}, "email")


def _github(c):
    gh = "https://github.com/"
    fields = {
        "issuer_v1": c["iss"],
        "github_workflow_trigger": c["event_name"],
        "github_workflow_sha": c["sha"],
        "github_workflow_name": c["workflow"],
        "github_workflow_repository": c["repository"],
        "github_workflow_ref": c["ref"],
        "issuer_v2": c["iss"],
        "build_signer_uri": gh + c["job_workflow_ref"],
        "build_signer_digest": c["job_workflow_sha"],
        "runner_environment": c["runner_environment"],
        "source_repository_uri": gh + c["repository"],
        "source_repository_digest": c["sha"],
        "source_repository_ref": c["ref"],
        "source_repository_identifier": c["repository_id"],
        "source_repository_owner_uri": gh + c["repository_owner"],
        "source_repository_owner_identifier": c["repository_owner_id"],
        "build_config_uri": gh + c["workflow_ref"],
        "build_config_digest": c["workflow_sha"],
        "build_trigger": c["event_name"],
        "run_invocation_uri": "%s%s/actions/runs/%s/attempts/%s" % (
            gh, c["repository"], c["run_id"], c["run_attempt"]),
        "source_repository_visibility": c["repository_visibility"],
    }
    return Identity(gh + c["job_workflow_ref"], fields)


def _gitlab(c):
    gl = "https://gitlab.com/"
    ref = ("refs/heads/" if c["ref_type"] == "branch" else "refs/tags/") + c["ref"]
    fields = {
        "issuer_v1": c["iss"],
        "issuer_v2": c["iss"],
        "build_signer_uri": "https://" + c["ci_config_ref_uri"],
        "build_signer_digest": c["ci_config_sha"],
        "runner_environment": c["runner_environment"],
        "source_repository_uri": gl + c["project_path"],
        "source_repository_digest": c["sha"],
        "source_repository_ref": ref,
        "source_repository_identifier": c["project_id"],
        "source_repository_owner_uri": gl + c["namespace_path"],
        "source_repository_owner_identifier": c["namespace_id"],
        "build_config_uri": "https://" + c["ci_config_ref_uri"],
        "build_config_digest": c["ci_config_sha"],
        "build_trigger": c["pipeline_source"],
        "run_invocation_uri": "%s%s/-/jobs/%s" % (gl, c["project_path"], c["job_id"]),
        "source_repository_visibility": c["project_visibility"],
    }
    return Identity("https://" + c["ci_config_ref_uri"], fields)


class FulcioError(Exception):
    """A refused signing-certificate request: status is the HTTP status
    Fulcio answers with (400 bad request, 401 token refused)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class Fulcio:
    """Fulcio's v2 signingCert (POST /api/v2/signingCert) over a
    CertificateAuthority, CT logs and trusted OIDC issuers (oidc.Issuer by
    URL).  signing_cert() takes and returns the JSON bodies as dicts, so an
    HTTP server around it only moves bytes."""

    def __init__(self, authority, ct_logs, issuers, audience="sigstore"):
        self.authority = authority
        self.ct_logs = list(ct_logs)
        self.issuers = {i.url: i for i in issuers}
        self.audience = audience

    def signing_cert(self, request, now):
        """The CreateSigningCertificateRequest request (publicKeyRequest
        form: a PEM public key and proofOfPossession, the signature over
        the token's sub claim) answered at time now."""
        import json
        from cryptography.hazmat.primitives import serialization
        from . import keys, oidc, util
        try:
            token = request["credentials"]["oidcIdentityToken"]
            pkr = request["publicKeyRequest"]
            public = serialization.load_pem_public_key(pkr["publicKey"]["content"].encode())
            proof = util.unb64(pkr["proofOfPossession"])
        except (KeyError, TypeError, ValueError) as e:
            raise FulcioError(400, "malformed request: %s" % e)
        try:
            unverified = json.loads(oidc.unb64url(token.split(".")[1]))
        except (IndexError, ValueError):
            raise FulcioError(401, "identity token does not decode")
        issuer = self.issuers.get(unverified.get("iss"))
        if issuer is None:
            raise FulcioError(401, "issuer %r is not trusted" % unverified.get("iss"))
        try:
            claims = issuer.verify(token, self.audience, now)
        except oidc.TokenError as e:
            raise FulcioError(401, "identity token refused (%s): %s" % (e.reason, e))
        challenge = str(claims.get("sub", claims.get("email", ""))).encode()
        if not keys.verify(public, proof, challenge):
            raise FulcioError(400, "proof of possession does not verify over the subject")
        try:
            identity = identity_from_claims(claims)
        except (KeyError, ValueError) as e:
            raise FulcioError(400, "token lacks a claim Fulcio needs: %s" % e)
        leaf = self.authority.issue_leaf(public, identity, now, ct_logs=self.ct_logs)
        pems = [c.public_bytes(serialization.Encoding.PEM).decode()
                for c in [leaf] + self.authority.chain]
        return {"signedCertificateEmbeddedSct": {"chain": {"certificates": pems}}}
