#!/usr/bin/env node
// Sigstore's JavaScript libraries and packsign's bundles (tests/cli/bundle.bats).
//
//   node bundle.js verify BUNDLE KEY.pem   exit 0 verified, 1 refused, 2 error
//   node bundle.js sign-p256 STATEMENT OUT.json OUT.pem
//       a bundle v0.3 over STATEMENT signed with a new ECDSA P-256 key by
//       Node's crypto (DSSE PAE, SHA-256), and that key's public PEM
//
// Offline: an empty trusted root, thresholds 0 for transparency-log
// entries, SCTs and timestamps; the public key is the one given.
'use strict';
const crypto = require('crypto');
const fs = require('fs');

function pae(type, payload) {
  const t = Buffer.from(type);
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${t.length} `), t,
    Buffer.from(` ${payload.length} `), payload,
  ]);
}

function verify(bundlePath, pemPath) {
  const { bundleFromJSON } = require('@sigstore/bundle');
  const { Verifier, toSignedEntity, toTrustMaterial } = require('@sigstore/verify');
  const json = JSON.parse(fs.readFileSync(bundlePath, 'utf8'));
  const key = crypto.createPublicKey(fs.readFileSync(pemPath));
  const root = { certificateAuthorities: [], timestampAuthorities: [],
    tlogs: [], ctlogs: [] };
  const trust = toTrustMaterial(root, () => ({ publicKey: key,
    validFor: () => true }));
  const verifier = new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0,
    timestampThreshold: 0 });
  try {
    verifier.verify(toSignedEntity(bundleFromJSON(json)));
  } catch (e) {
    console.error(`refused: ${e.code || ''} ${e.message}`);
    return 1;
  }
  console.log('verified');
  return 0;
}

function signP256(statementPath, outBundle, outPem) {
  const payload = fs.readFileSync(statementPath);
  const type = 'application/vnd.in-toto+json';
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ec',
    { namedCurve: 'prime256v1' });
  const sig = crypto.sign('sha256', pae(type, payload), privateKey);
  const bundle = {
    mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    verificationMaterial: { publicKey: { hint: 'node-p256' },
      tlogEntries: [] },
    dsseEnvelope: { payload: payload.toString('base64'), payloadType: type,
      signatures: [{ sig: sig.toString('base64'), keyid: '' }] },
  };
  fs.writeFileSync(outBundle, JSON.stringify(bundle));
  fs.writeFileSync(outPem, publicKey.export({ type: 'spki', format: 'pem' }));
  return 0;
}

function main(argv) {
  if (argv[0] === 'verify' && argv.length === 3)
    return verify(argv[1], argv[2]);
  if (argv[0] === 'sign-p256' && argv.length === 4)
    return signP256(argv[1], argv[2], argv[3]);
  console.error('usage: bundle.js verify BUNDLE KEY.pem | sign-p256 STATEMENT OUT.json OUT.pem');
  return 2;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  console.error(`error: ${e.message}`);
  process.exitCode = 2;
}
