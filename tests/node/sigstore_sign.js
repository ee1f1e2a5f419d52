// node sigstore_sign.js SIGNING-CONFIG TOKEN-FILE PAYLOAD-FILE OUT-BUNDLE
// @sigstore/sign makes a DSSE bundle over PAYLOAD (an in-toto statement)
// with the services the signing config names (tests/sigstore/serve's, on
// 127.0.0.1; NODE_EXTRA_CA_CERTS carries its TLS CA). The test checks the
// bundle with packsign (tests/cli/keyless_sign.bats).
'use strict';
const fs = require('fs');
const { DSSEBundleBuilder, FulcioSigner, RekorWitness } = require('@sigstore/sign');
const { bundleToJSON } = require('@sigstore/bundle');

async function main() {
	const [configFile, tokenFile, payloadFile, out] = process.argv.slice(2);
	// Fulcio and Rekor v1 by hand: the loopback TSA speaks RFC 3161 only,
	// @sigstore/sign's TSA client timestamp-authority's JSON request
	const config = JSON.parse(fs.readFileSync(configFile, 'utf8'));
	const token = fs.readFileSync(tokenFile, 'utf8').trim();
	const fetchOptions = { retry: 0, timeout: 20000 };
	const builder = new DSSEBundleBuilder({
		signer: new FulcioSigner({
			identityProvider: { getToken: async () => token },
			fulcioBaseURL: config.caUrls[0].url, ...fetchOptions,
		}),
		witnesses: [new RekorWitness({
			rekorBaseURL: config.rekorTlogUrls[0].url, entryType: 'dsse',
			...fetchOptions,
		})],
	});
	const bundle = await builder.create({
		data: fs.readFileSync(payloadFile),
		type: 'application/vnd.in-toto+json',
	});
	fs.writeFileSync(out, JSON.stringify(bundleToJSON(bundle)) + '\n');
}

main().catch((e) => {
	process.stderr.write(`sigstore_sign: ${e && e.stack ? e.stack : e}\n`);
	process.exit(1);
});
