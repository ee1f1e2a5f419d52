"""A local Sigstore for tests: a Fulcio-style CA, CT logs, Rekor v1 and v2
logs, a timestamp authority, and writers for trusted roots, signing configs
and bundles.  Offline, from a seed; see tests/sigstore/README.md."""
