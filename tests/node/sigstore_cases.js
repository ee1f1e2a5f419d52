#!/usr/bin/env node
// Sigstore's JavaScript verifier on bundle-verify case directories
// (tests/sigstore/mkcases; tests/cli/sigstore_local.bats).
//
//   node sigstore_cases.js CASEDIR...
//
// One line per case on standard output: NAME, a tab, "verified" or
// "refused", and for a refusal a tab and the error's code and message.
// Exit 0 when every case was examined, 2 on a usage or I/O error.
//
// Each case is verified the way sigstore-js's own verify() would with the
// case's trusted_root.json: @sigstore/verify's Verifier with a threshold of
// one transparency-log entry when the root lists transparency logs, one SCT
// when it lists CT logs and the bundle has a certificate, and one verified
// time (an integrated time from a SET or an RFC 3161 timestamp).  A
// certificate's identity is matched exactly (the SAN as an anchored pattern,
// since @sigstore/verify treats the string as a regular expression) and the
// issuer by equality; a key case uses key.pub whatever the bundle's hint.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function readIf(dir, name) {
  const p = path.join(dir, name);
  return fs.existsSync(p) ? fs.readFileSync(p) : null;
}

function verifyCase(dir) {
  const { bundleFromJSON } = require('@sigstore/bundle');
  const { TrustedRoot } = require('@sigstore/protobuf-specs');
  const { Verifier, toSignedEntity, toTrustMaterial } = require('@sigstore/verify');
  const root = TrustedRoot.fromJSON(JSON.parse(fs.readFileSync(path.join(dir, 'trusted_root.json'), 'utf8')));
  const artifact = fs.readFileSync(path.join(dir, 'artifact'));
  const keyPem = readIf(dir, 'key.pub');
  const bundle = bundleFromJSON(JSON.parse(fs.readFileSync(path.join(dir, 'bundle.sigstore.json'), 'utf8')));
  const keys = keyPem ? () => ({ publicKey: crypto.createPublicKey(keyPem), validFor: () => true })
    : {};
  const trust = toTrustMaterial(root, keys);
  const hasCert = bundle.verificationMaterial.content.$case !== 'publicKey';
  const verifier = new Verifier(trust, {
    tlogThreshold: root.tlogs.length > 0 ? 1 : 0,
    ctlogThreshold: hasCert && root.ctlogs.length > 0 ? 1 : 0,
    timestampThreshold: 1,
  });
  let policy;
  if (hasCert) {
    policy = {
      subjectAlternativeName: '^' + escapeRegExp(readIf(dir, 'identity').toString('utf8').trim()) + '$',
      extensions: { issuer: readIf(dir, 'issuer').toString('utf8').trim() },
    };
  }
  verifier.verify(toSignedEntity(bundle, artifact), policy);
}

function main(argv) {
  if (argv.length === 0) {
    console.error('usage: sigstore_cases.js CASEDIR...');
    return 2;
  }
  for (const dir of argv) {
    const name = path.basename(dir);
    try {
      verifyCase(dir);
      console.log(`${name}\tverified`);
    } catch (e) {
      if (e.code === 'ENOENT') {
        console.error(`error: ${e.message}`);
        return 2;
      }
      const msg = String(e.message).replace(/\s+/g, ' ');
      console.log(`${name}\trefused\t${e.code || e.name}: ${msg}`);
    }
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
