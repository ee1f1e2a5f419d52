#!/usr/bin/env bats
# CLI tests: install URL --bundle URL (issue 28): a keyless pack and its
# bundle downloaded from a loopback HTTPS server (tests/cli/net_server.py)
# with a throwaway CA; the bundle made by the local Sigstore
# (tests/cli/keyless_sign.py).  Nothing leaves 127.0.0.1.  Also a keyless
# pack listed in a key-signed index (bundles:) and installed by name.

load helpers
load net_helpers

SIGNER="${PACKSIGN_TESTSIGN:-$BATS_TEST_DIRNAME/../../build/tests/ps-testsign}"

GH=https://token.actions.githubusercontent.com
REL=https://github.com/acme/packs/.github/workflows/release.yml

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	F=$BATS_FILE_TMPDIR
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	cp -R "$EXAMPLES/$AGENTPACK" pk && chmod -R u+w pk
	"$PACKSIGN" keygen -o throwaway --no-passphrase >/dev/null
	"$PACKSIGN" keygen -o ixk --identity acme-index --no-passphrase >/dev/null
	"$PACKSIGN" sign pk -s throwaway.key -o p.tar.gz >/dev/null
	python3 "$BATS_TEST_DIRNAME/keyless_sign.py" p.tar.gz.sig kl.json root.json \
	    repository=acme/packs ref=refs/tags/v1.0.0
	head -c $((4 * 1024 * 1024 + 1)) /dev/zero >big.json
	mkdir -p www
	cp p.tar.gz kl.json big.json www/
	ca ca
	cert server IP:127.0.0.1 ca
	serve server PORT
	U0=https://127.0.0.1:$PORT
	echo "PORT=$PORT PORT_PID=$PORT_PID" >server.env
	cat >trust.yaml <<YAML
version: 1
trusted_roots: [root.json]
signers:
  - identity: acme-release
    keyless:
      - issuer: $GH
        subject: $REL@refs/tags/v*
        repository_id: 601234567
    packs: ["*"]
  - identity: acme-index
    roles: [index]
    keys:
      - key: $(sed -n 2p ixk.pub)
    packs: ["*"]
YAML
	"$PACKSIGN" index build p.tar.gz --bundle kl.json --url-prefix "$U0/files/" \
	    -o ix.json -s ixk.key --trust trust.yaml --expires P3650D >/dev/null
	# version 0.2.0, keyless too, in index version 2
	sed -i 's/^version: .*/version: 0.2.0/' pk/manifest.yml
	"$PACKSIGN" sign pk -s throwaway.key -o p2.tar.gz >/dev/null
	python3 "$BATS_TEST_DIRNAME/keyless_sign.py" p2.tar.gz.sig kl2.json root2.json \
	    repository=acme/packs ref=refs/tags/v1.0.0
	cp p2.tar.gz kl2.json www/
	"$PACKSIGN" index build p2.tar.gz --bundle kl2.json --url-prefix "$U0/files/" \
	    --previous ix.json -o ix2.json -s ixk.key --trust trust.yaml \
	    --expires P3650D >/dev/null
}

teardown_file() {
	net_stop
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	F=$BATS_FILE_TMPDIR
	D=$BATS_TEST_TMPDIR/data
	net_env
	U=https://127.0.0.1:$PORT
}

@test "install URL --bundle URL: the archive and its keyless bundle downloaded, verified, kept" {
	run "$PACKSIGN" install "$U/files/p.tar.gz" --bundle "$U/files/kl.json" \
	    --trust "$F/trust.yaml" --data-dir "$D" --yes --ca-file "$F/ca.pem"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"signed by: acme-release (KEYLESS:"* ]]
	cmp "$F/kl.json" "$D/receipts/agentpacks/$AGENTPACK/0.1.0.1.sigstore.json"
	# a local bundle with an archive URL works too
	run "$PACKSIGN" install "$U/files/p.tar.gz" --bundle "$F/kl.json" \
	    --trust "$F/trust.yaml" --data-dir "$D" --yes --ca-file "$F/ca.pem" --reinstall
	[ "$status" -eq 0 ]
}

@test "install URL --bundle URL: a bundle over 4 MiB is refused, a missing one is fetch_http_status" {
	run "$PACKSIGN" install "$U/files/p.tar.gz" --bundle "$U/files/big.json" \
	    --trust "$F/trust.yaml" --data-dir "$D" --yes --ca-file "$F/ca.pem"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[envelope_too_large]"* ]]
	run "$PACKSIGN" install "$U/files/p.tar.gz" --bundle "$U/files/none.json" \
	    --trust "$F/trust.yaml" --data-dir "$D" --yes --ca-file "$F/ca.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"[fetch_http_status]"* ]]
	# a bundle URL with a local archive
	run "$PACKSIGN" install "$F/p.tar.gz" --bundle "$U/files/kl.json" \
	    --trust "$F/trust.yaml" --data-dir "$D" --yes
	[ "$status" -eq 2 ]
	[[ "$output" == *"a bundle URL goes with an archive URL"* ]]
}

# ------------------------------------------------- a keyless pack in an index

# ix.json's payload edited by python (stdin) and signed again by the index key.
forged() {
	python3 - "$F/ix.json" "$1.payload" "$2" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
p = json.loads(base64.b64decode(env["payload"]))
e = p["packs"][0]
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(p, sort_keys=True, separators=(",", ":")))
PY
	"$SIGNER" -s "$F/ixk.key" --payload \
	    --payload-type application/vnd.packsign.index+json -o "$1" "$1.payload"
}

inst_ix() {
	"$PACKSIGN" install "$AGENTPACK" --index "$1" --trust "$F/trust.yaml" \
	    --data-dir "$D" --yes --ca-file "$F/ca.pem"
}

@test "index: a keyless pack in a key-signed index (bundles:) is installed by name" {
	python3 - "$F/ix.json" "$U/files/kl.json" <<'PY'
import base64, json, sys
e = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["packs"][0]
assert e["bundles"] == [sys.argv[2]], e
assert len(e["signers"]) == 1 and e["signers"][0].startswith("KEYLESS:"), e
PY
	run inst_ix "$F/ix.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"signed by: acme-release (KEYLESS:"* ]]
	cmp "$F/kl.json" "$D/receipts/agentpacks/$AGENTPACK/0.1.0.1.sigstore.json"
	run "$PACKSIGN" verify --installed "$AGENTPACK" --data-dir "$D" --trust "$F/trust.yaml"
	[ "$status" -eq 0 ]
	# --bundle goes with one archive
	run "$PACKSIGN" index build "$F/p.tar.gz" "$F/p.tar.gz" --bundle "$F/kl.json" \
	    -o x.json -s "$F/ixk.key" --trust "$F/trust.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--bundle takes one ARCHIVE"* ]]
}

@test "index: an entry whose signers name another keyless id is index_mismatch" {
	forged other.json 'e["signers"] = ["KEYLESS:" + "A" * 43]'
	run inst_ix other.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[index_mismatch]"* ]]
	[[ "$output" == *"the signers that counted"* ]]
	[ ! -d "$D/agentpacks/$AGENTPACK/0.1.0" ]
}

@test "index: a bundle URL on another host or port is index_url_invalid; a keyless signer needs bundles" {
	forged host.json 'e["bundles"] = ["https://127.0.0.2:%s/files/kl.json" % e["url"].split(":")[2].split("/")[0]]'
	run inst_ix host.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[index_url_invalid]"* ]]
	[[ "$output" == *"on the archive URL's host and port"* ]]
	forged port.json 'e["bundles"] = ["https://127.0.0.1:1/files/kl.json"]'
	run inst_ix port.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[index_url_invalid]"* ]]
	forged http.json 'e["bundles"] = ["http://127.0.0.1/files/kl.json"]'
	run inst_ix http.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[index_url_invalid]"* ]]
	forged nobundle.json 'del e["bundles"]'
	run inst_ix nobundle.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[index_invalid]"* ]]
	[[ "$output" == *"a keyless signer id in an entry without bundles"* ]]
	forged nine.json 'e["bundles"] = [e["bundles"][0] + "?%d" % i for i in range(9)]'
	run inst_ix nine.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"not a list of 1 to 8 bundle URLs"* ]]
}

@test "index: outdated and update with keyless entries; install --from-dir reads the bundle from DIR" {
	run "$PACKSIGN" install "$AGENTPACK" --index "$F/ix.json" --from-dir "$F/www" \
	    --trust "$F/trust.yaml" --data-dir "$D" --yes
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"signed by: acme-release (KEYLESS:"* ]]
	run "$PACKSIGN" outdated --index "$F/ix2.json" --trust "$F/trust.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"0.2.0"* ]]
	[ -z "$(ls -A "$D/.tmp" 2>/dev/null)" ]
	run "$PACKSIGN" update --index "$F/ix2.json" --trust "$F/trust.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem" --yes
	echo "$output"
	[ "$status" -eq 0 ]
	cmp "$F/kl2.json" "$D/receipts/agentpacks/$AGENTPACK/0.2.0.1.sigstore.json"
}

@test "index: ps_index_fetch_entry() of a keyless entry verifies from its bundle, keeps no bundle file" {
	python3 -c 'import cffi' 2>/dev/null || skip "no python3 cffi"
	local lib=${PACKSIGN_LIB:-$(dirname "$PACKSIGN")/libpacksign.so.1}
	local preload=""
	# The ASan build's library loads into an unsanitized interpreter only
	# with the runtime preloaded (as tests/run does for the Python suite);
	# the interpreter's own allocations at exit are no finding.
	if readelf -d "$lib" 2>/dev/null | grep -q libasan; then
		preload=$(gcc -print-file-name=libasan.so)
		export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
		export PYTHONMALLOC=malloc
	fi
	mkdir out
	LD_PRELOAD="$preload" \
	run python3 - "$BATS_TEST_DIRNAME/../../bindings/python" "$lib" "$F/trust.yaml" \
	    "$F/ix2.json" "$F/ca.pem" "$PWD/out/got.tar.gz" <<'PY'
import sys, cffi
sys.path.insert(0, sys.argv[1])
from packsign._cdef import CDEF
ffi = cffi.FFI()
ffi.cdef(CDEF + """
int ps_index_fetch_entry(const ps_index *index, const ps_index_entry *entry,
    const char *path, const ps_verify_options *verify,
    const ps_fetch_options *fetch, ps_verify_result **out, ps_error *err);
""")
lib = ffi.dlopen(sys.argv[2])
_, policy, index, ca, path = sys.argv[2:7]
err = ffi.new("ps_error *")
trust = ffi.new("ps_trust **")
assert lib.ps_trust_load_file(policy.encode(), trust, err) == 0, ffi.string(err.code)
data = open(index, "rb").read()
vo = ffi.new("ps_index_verify_options *")
lib.ps_index_verify_options_init(vo)
vo.trust = trust[0]
ix = ffi.new("ps_index **")
assert lib.ps_index_verify(data, len(data), b"ix", vo, ix, err) == 0, ffi.string(err.text)
e = ix[0].entries[ix[0].entry_count - 1]
assert e.bundle_count == 1
v = ffi.new("ps_verify_options *")
lib.ps_verify_options_init(v)
v.trust = trust[0]
f = ffi.new("ps_fetch_options *")
lib.ps_fetch_options_init(f)
cab = ffi.new("char[]", ca.encode())
f.ca_file = cab
out = ffi.new("ps_verify_result **")
rc = lib.ps_index_fetch_entry(ix[0], ffi.addressof(ix[0].entries[ix[0].entry_count - 1]), path.encode(), v, f, out, err)
print(rc, ffi.string(err.code).decode() if rc else "", ffi.string(out[0].signatures[0].fingerprint).decode() if rc == 0 else "")
PY
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "0  KEYLESS:"* ]]
	cmp "$F/p2.tar.gz" out/got.tar.gz
	[ "$(ls -A out)" = got.tar.gz ]
}
