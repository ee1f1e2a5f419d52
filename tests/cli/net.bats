#!/usr/bin/env bats
# CLI tests: packsign install URL and packsign fetch against a loopback
# HTTPS server (tests/cli/net_server.py) with a throwaway CA made here.
# Nothing leaves 127.0.0.1: every proxy variable is unset and every
# redirect target is the same server.

load helpers
load net_helpers
bats_require_minimum_version 1.5.0

AP_ID=research.top-journal-reviewer

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	F=$BATS_FILE_TMPDIR
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	cat >policy.yaml <<YAML
version: 1
signers:
  - identity: alice
    first_party: false
    keys:
      - key: $(sed -n 2p alice.pub)
    packs: ["*"]
threshold: 1
YAML
	cp -R "$EXAMPLES/$AGENTPACK" ap && chmod -R u+w ap
	"$PACKSIGN" sign ap -s alice.key -o ap.tar.gz >/dev/null
	echo "an edit after the release" >>ap/README.md
	"$PACKSIGN" sign ap -s alice.key -o apx.tar.gz >/dev/null
	mkdir -p www/nosig www/swap www/bigsig
	cp ap.tar.gz ap.tar.gz.sig www/
	cp ap.tar.gz www/nosig/
	cp apx.tar.gz www/swap/ap.tar.gz
	cp ap.tar.gz.sig www/swap/
	cp ap.tar.gz www/bigsig/
	head -c $((4 * 1024 * 1024 + 1)) /dev/zero >www/bigsig/ap.tar.gz.sig
	ca ca
	ca otherca
	cert server IP:127.0.0.1 ca
	cert other DNS:other.example ca
	serve server PORT
	echo "PORT=$PORT PORT_PID=$PORT_PID" >server.env
}

teardown_file() {
	net_stop
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	unset PACKSIGN_DATA_DIR
	F=$BATS_FILE_TMPDIR
	D=$BATS_TEST_TMPDIR/data
	net_env
	U=https://127.0.0.1:$PORT
}

teardown() {
	chmod -R u+w "$BATS_TEST_TMPDIR" 2>/dev/null || true
}

# inst URL [ARGS...]: install into $D, trusting the test CA.
inst() {
	local u=$1
	shift
	"$PACKSIGN" install "$u" --trust "$F/policy.yaml" --data-dir "$D" \
	    --yes --ca-file "$F/ca.pem" "$@"
}

# nothing_left: no tree, no receipt, no work file in the data directory.
nothing_left() {
	[ ! -d "$D" ] || [ -z "$(cd "$D" && find . -mindepth 1 | \
	    grep -vxE '\./(\.lock|\.tmp|receipts)')" ]
}

# fails STATUS CODE: the last run exited STATUS with CODE, left nothing.
fails() {
	echo "$output"
	[ "$status" -eq "$1" ]
	[[ "$output" == *"[$2]"* ]]
	nothing_left
}

@test "install URL: a good install, the receipt records the URL" {
	run inst "$U/files/ap.tar.gz?token=x"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "installed $AP_ID 0.1.0 to $D/agentpacks/$AP_ID/0.1.0" ]]
	grep -q "\"url\": \"$U/files/ap.tar.gz\"" \
	    "$D/receipts/agentpacks/$AP_ID/0.1.0.json"
	! grep -q token "$D/receipts/agentpacks/$AP_ID/0.1.0.json"
	run "$PACKSIGN" list --data-dir "$D"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$AP_ID 0.1.0"* ]]
}

@test "install URL: a GitHub-style latest URL is resolved once" {
	run inst "$U/acme/packs/releases/latest/download/ap.tar.gz"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "\"url\": \"$U/acme/packs/releases/latest/download/ap.tar.gz\"" \
	    "$D/receipts/agentpacks/$AP_ID/0.1.0.json"
}

@test "install URL: no .sig is exit 2 fetch_http_status" {
	run inst "$U/files/nosig/ap.tar.gz"
	fails 2 fetch_http_status
	[[ "$output" == *"no signature at $U/files/nosig/ap.tar.gz.sig"* ]]
}

@test "install URL: HTTP 500 is exit 2 fetch_http_status" {
	run inst "$U/status500/ap.tar.gz"
	fails 2 fetch_http_status
	[[ "$output" == *"500"* ]]
}

@test "install URL: http, file and a redirect to http: are refused" {
	run inst "http://127.0.0.1:$PORT/files/ap.tar.gz"
	fails 2 url_scheme_refused
	run inst "file:///etc/passwd.tar.gz"
	fails 2 url_scheme_refused
	run inst "$U/tohttp/ap.tar.gz"
	fails 2 url_scheme_refused
}

@test "install URL: a redirect loop is exit 2 fetch_redirect" {
	run inst "$U/loop/ap.tar.gz"
	fails 2 fetch_redirect
}

@test "install URL: bytes past Content-Length are discarded, the digest decides" {
	run inst "$U/longer/ap.tar.gz"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -f "$D/agentpacks/$AP_ID/0.1.0/manifest.yml" ]
}

@test "install URL: a body over --max-download is cut off" {
	run inst "$U/files/ap.tar.gz" --max-download 1000
	fails 2 fetch_too_large
}

@test "install URL: a stalled server meets --timeout" {
	# The only test with a short timeout; slack for the sanitizer build.
	run inst "$U/stall/ap.tar.gz" --sig "$U/files/ap.tar.gz.sig" --timeout 3
	fails 2 fetch_timeout
}

@test "install URL: a connection closed mid-body is fetch_truncated" {
	run inst "$U/cut/ap.tar.gz" --sig "$U/files/ap.tar.gz.sig"
	fails 2 fetch_truncated
}

@test "install URL: a certificate for another host is fetch_tls" {
	serve other OTHER
	run inst "https://127.0.0.1:$OTHER/files/ap.tar.gz"
	kill "$OTHER_PID"
	fails 2 fetch_tls
}

@test "install URL: an unknown CA is fetch_tls" {
	run "$PACKSIGN" install "$U/files/ap.tar.gz" --trust "$F/policy.yaml" \
	    --data-dir "$D" --yes --ca-file "$F/otherca.pem"
	fails 2 fetch_tls
}

@test "install URL: an archive swapped on the server is refused (exit 1)" {
	run inst "$U/files/swap/ap.tar.gz"
	fails 1 subject_mismatch
}

@test "install URL: a .sig over the envelope limit is refused" {
	run inst "$U/files/bigsig/ap.tar.gz"
	fails 1 envelope_too_large
}

@test "install URL: a name that is not an archive's" {
	run inst "$U/files/"
	fails 1 url_name_invalid
	run inst "$U/files/a%2Fb.tar.gz"
	fails 1 url_name_invalid
}

@test "fetch: downloads and verifies, archive and .sig beside FILE" {
	run "$PACKSIGN" fetch "$U/files/ap.tar.gz" -o out.tar.gz \
	    --trust "$F/policy.yaml" --ca-file "$F/ca.pem"
	echo "$output"
	[ "$status" -eq 0 ]
	cmp out.tar.gz "$F/ap.tar.gz"
	cmp out.tar.gz.sig "$F/ap.tar.gz.sig"
	no_temp_files .
	# -q: nothing printed on success (issue 26).
	run --separate-stderr "$PACKSIGN" fetch "$U/files/ap.tar.gz" -o q.tar.gz \
	    --trust "$F/policy.yaml" --ca-file "$F/ca.pem" -q
	[ "$status" -eq 0 ] && [ -z "$output" ] && [ -z "$stderr" ]
	cmp q.tar.gz "$F/ap.tar.gz"
}

@test "fetch: a swapped archive leaves nothing" {
	run "$PACKSIGN" fetch "$U/files/swap/ap.tar.gz" -o out.tar.gz \
	    --trust "$F/policy.yaml" --ca-file "$F/ca.pem"
	echo "$output"
	[ "$status" -eq 1 ]
	[ ! -e out.tar.gz ] && [ ! -e out.tar.gz.sig ]
	[ -z "$(ls -A)" ]
}

@test "install URL: the proxy is https_proxy, no_proxy exempts, --json hides credentials" {
	# A proxy nobody listens on: used, the download cannot connect.
	run env https_proxy=http://127.0.0.1:9 "$PACKSIGN" install \
	    "$U/files/ap.tar.gz" --trust "$F/policy.yaml" --data-dir "$D" \
	    --yes --ca-file "$F/ca.pem"
	fails 2 fetch_connect
	# Exempted by no_proxy, and http_proxy is never read for https.
	run env https_proxy=http://127.0.0.1:9 no_proxy=127.0.0.1 \
	    http_proxy=http://127.0.0.1:9 "$PACKSIGN" install \
	    "https://me:secret@127.0.0.1:$PORT/files/ap.tar.gz?sig=x" \
	    --trust "$F/policy.yaml" --data-dir "$D" --yes \
	    --ca-file "$F/ca.pem" --json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"\"archive\": \"$U/files/ap.tar.gz\""* ]]
	[[ "$output" != *secret* ]]
	! grep -rq secret "$D/receipts"
}

@test "fetch and install URL: SIGTERM during a download leaves nothing" {
	"$PACKSIGN" fetch "$U/stall/ap.tar.gz" --sig "$U/files/ap.tar.gz.sig" \
	    -o out.tar.gz --trust "$F/policy.yaml" --ca-file "$F/ca.pem" \
	    --timeout 20 3>&- &
	pid=$!
	sleep 2
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 143 ]
	[ -z "$(ls -A)" ]
	# The binary itself (a function would run in a subshell).
	"$PACKSIGN" install "$U/stall/ap.tar.gz" --sig "$U/files/ap.tar.gz.sig" \
	    --trust "$F/policy.yaml" --data-dir "$D" --yes --ca-file "$F/ca.pem" \
	    --timeout 20 3>&- &
	pid=$!
	sleep 2
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 143 ]
	[ -z "$(ls -A "$D/.tmp")" ]
	nothing_left
	# The next run removes the killed one's work directory.
	run inst "$U/files/ap.tar.gz"
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$D/.tmp")" ]
}
