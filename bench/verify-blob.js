#!/usr/bin/env node
// The peer of `packsign verify-blob` in bench/run.py's "sigstore" row:
// Sigstore's @sigstore/verify (pinned in tests/node, installed into
// build/node by scripts/install-deps) verifying a keyless bundle offline,
// whole process, with the same inputs and the same checks asked for.
//
//   node verify-blob.js ARTIFACT BUNDLE TRUSTED_ROOT SAN ISSUER
//
// Exit 0 verified, 1 refused, 2 usage or error.  Thresholds are the
// library's defaults (one transparency-log entry, one SCT, one timestamp).
'use strict';
const fs = require('fs');

function main(argv) {
  if (argv.length !== 5) {
    console.error('usage: verify-blob.js ARTIFACT BUNDLE TRUSTED_ROOT SAN ISSUER');
    return 2;
  }
  const [artifactPath, bundlePath, rootPath, san, issuer] = argv;
  const { bundleFromJSON } = require('@sigstore/bundle');
  const { TrustedRoot } = require('@sigstore/protobuf-specs');
  const { Verifier, toSignedEntity, toTrustMaterial } = require('@sigstore/verify');
  const root = TrustedRoot.fromJSON(JSON.parse(fs.readFileSync(rootPath, 'utf8')));
  const bundle = bundleFromJSON(JSON.parse(fs.readFileSync(bundlePath, 'utf8')));
  const verifier = new Verifier(toTrustMaterial(root));
  try {
    verifier.verify(toSignedEntity(bundle, fs.readFileSync(artifactPath)),
      { subjectAlternativeName: san, extensions: { issuer } });
  } catch (e) {
    console.error(`refused: ${e.code || ''} ${e.message}`);
    return 1;
  }
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  console.error(`error: ${e.message}`);
  process.exitCode = 2;
}
