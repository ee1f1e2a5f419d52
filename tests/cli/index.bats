#!/usr/bin/env bats
# CLI tests: the signed pack index (docs/formats/index.md): packsign index
# build/yank/remove/refresh/verify, install ID --index, outdated, update,
# list --index and the client state DIR/index-state.json.  Archives are
# served by a loopback HTTPS server (tests/cli/net_server.py) with a
# throwaway CA; every proxy variable is unset.

load helpers
load net_helpers
bats_require_minimum_version 1.5.0

AP_ID=research.top-journal-reviewer
SIGNER="${PACKSIGN_TESTSIGN:-$BATS_TEST_DIRNAME/../../build/tests/ps-testsign}"
T0=2026-01-01T00:00:00Z

# policy FILE [EXTRA-INDEX-LINES]: acme signs packs, acme-index signs
# indexes of research.* packs; bob (pack role only) is listed too.
policy() {
	cat >"$1" <<YAML
version: 1
signers:
  - identity: acme
    first_party: false
    keys:
      - key: $(sed -n 2p "$F/acme.pub")
    packs: ["*"]
  - identity: bob
    keys:
      - key: $(sed -n 2p "$F/bob.pub")
    packs: ["*"]
  - identity: acme-index
    roles: [index]
    keys:
      - key: $(sed -n 2p "$F/ixk.pub")
    packs: ["research.*"]
$2
threshold: 1
YAML
}

# sign_version V [PERMISSION-EDIT]: ap-V.tar.gz(.sig) of a copy of the
# AgentPack example with version V, signed by acme.
sign_version() {
	sed -i "s/^version: .*/version: $1/" "$F/ap/manifest.yml"
	[ -z "${2:-}" ] || sed -i "$2" "$F/ap/manifest.yml"
	"$PACKSIGN" sign "$F/ap" -s "$F/acme.key" -o "$F/ap-$1.tar.gz" >/dev/null
}

# ix OUT ARGS...: index build by acme-index at T0, ten years of validity.
ix() {
	local out=$1
	shift
	"$PACKSIGN" index build -o "$out" -s "$F/ixk.key" --trust "$F/policy.yaml" \
	    --at "$T0" --expires P3650D "$@" >/dev/null
}

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	F=$BATS_FILE_TMPDIR
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	local k
	for k in acme bob ixk stranger; do
		"$PACKSIGN" keygen -o $k --identity \
		    "$([ $k = ixk ] && echo acme-index || echo $k)" \
		    --no-passphrase >/dev/null
	done
	policy policy.yaml
	policy floor.yaml "    min_index_version: 3"
	policy both.yaml
	sed -i '0,/first_party: false/s//first_party: false\n    roles: [pack, index]/' both.yaml
	grep -q 'roles: \[pack, index\]' both.yaml
	cp -R "$EXAMPLES/$AGENTPACK" ap && chmod -R u+w ap
	cp -R "$EXAMPLES/soyapack-research-summarizer" holon && chmod -R u+w holon
	sign_version 0.1.0
	sign_version 0.2.0
	sign_version 0.3.0 's/^  network: false/  network: true/'
	"$PACKSIGN" sign holon -s acme.key -o holon.tar.gz >/dev/null
	# The same 0.1.0 tree signed by bob: the same archive bytes.
	sed -i "s/^version: .*/version: 0.1.0/; s/^  network: true/  network: false/" ap/manifest.yml
	"$PACKSIGN" sign ap -s bob.key -o bob-0.1.0.tar.gz >/dev/null
	cmp bob-0.1.0.tar.gz ap-0.1.0.tar.gz
	ca ca
	cert server IP:127.0.0.1 ca
	mkdir -p www/mixa www/mixb www/mixc
	cp ap-0.1.0.tar.gz www/mixc/
	cp bob-0.1.0.tar.gz.sig www/mixc/ap-0.1.0.tar.gz.sig
	cp ap-*.tar.gz ap-*.tar.gz.sig holon.tar.gz* www/
	# Mix-and-match: genuinely signed archives under another entry's name.
	cp ap-0.2.0.tar.gz www/mixa/ap-0.1.0.tar.gz
	cp ap-0.2.0.tar.gz.sig www/mixa/ap-0.1.0.tar.gz.sig
	cp holon.tar.gz www/mixb/ap-0.1.0.tar.gz
	cp holon.tar.gz.sig www/mixb/ap-0.1.0.tar.gz.sig
	serve server PORT
	B=https://127.0.0.1:$PORT/files/
	ix ix1.json ap-0.1.0.tar.gz --base-url "$B"
	ix ix2.json ap-0.2.0.tar.gz --previous ix1.json
	ix ix2b.json ap-0.3.0.tar.gz --previous ix1.json
	ix ix3.json ap-0.3.0.tar.gz --previous ix2.json
	"$PACKSIGN" index yank ix2.json "$AP_ID@0.2.0" --reason "broken prompts" \
	    -o ixy.json -s ixk.key --at "$T0" --expires P3650D >/dev/null
	cp ix1.json ix2.json ix3.json ixy.json www/
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
	B=$U/files/
	S=$D/index-state.json
}

teardown() {
	chmod -R u+w "$BATS_TEST_TMPDIR" 2>/dev/null || true
}

# inst TARGET INDEX [ARGS...]: install by name into $D.
inst() {
	local t=$1 i=$2
	shift 2
	"$PACKSIGN" install "$t" --index "$i" --trust "$F/policy.yaml" \
	    --data-dir "$D" --yes --ca-file "$F/ca.pem" "$@"
}

# iv INDEX [ARGS...]: index verify against $D.
iv() {
	local i=$1
	shift
	"$PACKSIGN" index verify "$i" --trust "$F/policy.yaml" --data-dir "$D" \
	    --ca-file "$F/ca.pem" "$@"
}

# installed: the installed versions of AP_ID, sorted, space-separated.
installed() {
	[ -d "$D/agentpacks/$AP_ID" ] || return 0
	(cd "$D/agentpacks/$AP_ID" && ls | sort -V | tr '\n' ' ' | sed 's/ $//')
}

# nothing_installed: no tree, no receipt, no work file in .tmp.
nothing_installed() {
	[ ! -d "$D/agentpacks" ] || [ -z "$(ls -A "$D/agentpacks")" ]
	[ ! -d "$D/receipts" ] || [ -z "$(find "$D/receipts" -type f)" ]
	[ ! -d "$D/.tmp" ] || [ -z "$(ls -A "$D/.tmp")" ]
}

# fails STATUS CODE: the last run exited STATUS with [CODE].
fails() {
	echo "$output"
	[ "$status" -eq "$1" ]
	[[ "$output" == *"[$2]"* ]]
}

# state_version PUBLISHER: the recorded version, or "none".
state_version() {
	python3 -c 'import json,sys
try: s = json.load(open(sys.argv[1]))
except FileNotFoundError: print("none"); sys.exit()
p = s["publishers"].get(sys.argv[2])
print(p["version"] if p else "none")' "$S" "$1"
}

payload() {
	python3 -c 'import json,sys,base64
print(base64.b64decode(json.load(open(sys.argv[1]))["payload"]).decode())' "$1"
}

# field FILE EXPR: a Python expression over the payload p.
field() {
	python3 -c 'import json,sys,base64
p = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
print(eval(sys.argv[2]))' "$1" "$2"
}

# ---------------------------------------------------------------- build

@test "build: verify --json fields, a fresh data dir has no state" {
	run --separate-stderr iv "$F/ix1.json" --json
	echo "$output"
	[ "$status" -eq 0 ]
	python3 - "$output" "$B" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
assert j["ok"] is True and j["publisher"] == "acme-index", j
assert j["version"] == 1 and j["issued"] == "2026-01-01T00:00:00Z", j
assert j["expires"] == "2035-12-30T00:00:00Z", j["expires"]
assert j["index_state"] is None and j["recorded"] is False
assert j["fingerprint"].startswith("SHA256:")
assert j["index_sha256"].startswith("sha256:") and len(j["index_sha256"]) == 71
[e] = j["packs"]
assert e["id"] == "research.top-journal-reviewer" and e["version"] == "0.1.0"
assert e["format"] == "agentpack" and e["yanked"] is None
assert e["url"] == sys.argv[2] + "ap-0.1.0.tar.gz", e["url"]
assert e["archive_digest"].startswith("sha256:") and e["size"] > 0
PY
	# The payload digest is the SHA-256 of the payload bytes as signed.
	[ "$(echo "$output" | python3 -c 'import json,sys; print(json.load(sys.stdin)["index_sha256"])')" = \
	    "sha256:$(payload "$F/ix1.json" | tr -d '\n' | sha256sum | cut -d' ' -f1)" ]
	[ "$(echo "$output" | python3 -c 'import json,sys; print(json.load(sys.stdin)["packs"][0]["size"])')" = \
	    "$(stat -c %s "$F/ap-0.1.0.tar.gz")" ]
	[ ! -e "$S" ]
	run iv "$U/files/ix1.json" --json
	[ "$status" -eq 0 ]
	[[ "$output" == *'"publisher": "acme-index"'* ]]
}

@test "an index and a pack signature cannot be swapped; a tampered payload is refused" {
	# Judged by a key that may sign both, the pack's .sig is still no
	# index; with pack role only it is role_missing first.
	run "$PACKSIGN" index verify "$F/ap-0.1.0.tar.gz.sig" --trust "$F/both.yaml" --data-dir "$D"
	fails 1 index_invalid
	run iv "$F/ap-0.1.0.tar.gz.sig"
	fails 1 role_missing
	run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" --base-url "$B" -o both.json \
	    -s "$F/acme.key" --trust "$F/policy.yaml" --at "$T0" --expires P3650D
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify "$F/ap-0.1.0.tar.gz" --sig both.json --trust "$F/both.yaml"
	fails 1 payload_type_unknown
	[ ! -e "$S" ]
	python3 - "$F/ix1.json" t.json <<'PY'
import base64, json, sys
e = json.load(open(sys.argv[1]))
p = base64.b64decode(e["payload"]).replace(b'"version":1', b'"version":9')
assert b'"version":9' in p
e["payload"] = base64.b64encode(p).decode()
open(sys.argv[2], "w").write(json.dumps(e))
PY
	run iv t.json --record
	fails 1 signature_untrusted
	[ ! -e "$S" ]
	# A previous index not signed by -s's key is refused.
	run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" --base-url "$B" -o s.json \
	    -s "$F/stranger.key" --trust "$F/policy.yaml"
	[ "$status" -eq 0 ]
	run "$PACKSIGN" index build "$F/ap-0.2.0.tar.gz" --previous s.json -o x.json \
	    -s "$F/ixk.key" --trust "$F/policy.yaml"
	fails 1 signature_untrusted
	[ ! -e x.json ]
	# Bad base URL and prefix.
	for u in "http://127.0.0.1/files/" "https://127.0.0.1/files" "https://u@127.0.0.1/x/" \
	    "https://127.0.0.1/x/?q=1/" "https://Example.com/x/" "https://h/%zz/" \
	    "https://h/x#f/" "https:///x/"; do
		run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" --base-url "$u" -o x.json \
		    -s "$F/ixk.key" --trust "$F/policy.yaml"
		echo "$u: $output"
		[ "$status" -ne 0 ]
		[[ "$output" == *"[index_url_invalid]"* ]]
		[ ! -e x.json ]
	done
	for u in "http://127.0.0.1/files/" "../up/" "/abs/" "a//b/" "dl"; do
		run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" --base-url "$B" --url-prefix "$u" \
		    -o x.json -s "$F/ixk.key" --trust "$F/policy.yaml"
		echo "$u: $output"
		[ "$status" -ne 0 ]
		[[ "$output" == *"[index_url_invalid]"* ]]
		[ ! -e x.json ]
	done
}

@test "build: the same inputs and --at give byte-identical files; SOURCE_DATE_EPOCH too" {
	ix a.json "$F/ap-0.1.0.tar.gz" --base-url "$B"
	ix b.json "$F/ap-0.1.0.tar.gz" --base-url "$B"
	cmp a.json b.json
	cmp a.json "$F/ix1.json"
	SOURCE_DATE_EPOCH=$(date -u -d "$T0" +%s) "$PACKSIGN" index build \
	    "$F/ap-0.1.0.tar.gz" --base-url "$B" -o c.json -s "$F/ixk.key" \
	    --trust "$F/policy.yaml" --expires P3650D
	cmp a.json c.json
	ix d.json "$F/ap-0.1.0.tar.gz" --base-url "$B" --at 2026-01-01T00:00:01Z
	! cmp -s a.json d.json
	# One LF at the end, no other whitespace in the envelope.
	[ "$(tail -c1 a.json | od -An -tx1 | tr -d ' ')" = 0a ]
	[ "$(wc -l <a.json)" -eq 1 ]
	[ "$(field a.json 'p["packsign_index"]')" = 1 ]
}

@test "build and refresh take the index key from PACKSIGN_SECRET_KEY when -s is absent" {
	ix a.json "$F/ap-0.1.0.tar.gz" --base-url "$B"
	PACKSIGN_SECRET_KEY=$(cat "$F/ixk.key") "$PACKSIGN" index build \
	    "$F/ap-0.1.0.tar.gz" --base-url "$B" -o e.json --identity acme-index \
	    --trust "$F/policy.yaml" --at "$T0" --expires P3650D
	cmp a.json e.json
	PACKSIGN_SECRET_KEY=$(cat "$F/ixk.key") "$PACKSIGN" index refresh e.json \
	    -o r.json --identity acme-index --at "$T0" --expires P3650D
	[ "$(field r.json 'p["version"]')" = 2 ]
	# Without -s and without the variable: a usage error naming both.
	run "$PACKSIGN" index refresh e.json -o r.json --identity acme-index
	[ "$status" -eq 2 ]
	[[ "$output" == *"needs -o OUT and -s KEY (or the key's text in PACKSIGN_SECRET_KEY)"* ]]
	# From the variable there is no NAME.pub beside: --identity is needed.
	run env PACKSIGN_SECRET_KEY="$(cat "$F/ixk.key")" "$PACKSIGN" index \
	    refresh e.json -o r.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"give --identity ID"* ]]
}

@test "build with separate pack and index keys: a refused archive names -p/--trust" {
	# Without --trust the archives are verified with the index key, which
	# signed none of them.
	run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" --base-url "$B" \
	    -o x.json -s "$F/ixk.key"
	fails 1 signature_untrusted
	[[ "$output" == *"(index build verifies the archives with the index key -s unless -p KEY.pub or --trust POLICY names their signers)"* ]]
	[ ! -e x.json ]
	run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" --base-url "$B" \
	    -o x.json -s "$F/ixk.key" -p "$F/bob.pub"
	fails 1 signature_untrusted
	[[ "$output" == *"(index build verified the archive with -p $F/bob.pub)"* ]]
}

@test "build --previous: entries carried with their published times, version +1, base URL kept" {
	run "$PACKSIGN" index build "$F/ap-0.2.0.tar.gz" --previous "$F/ix1.json" \
	    -o new.json -s "$F/ixk.key" --trust "$F/policy.yaml" \
	    --at 2026-02-01T00:00:00Z
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "wrote new.json: index version 2 of acme-index, 2 entries" ]]
	[ "$(field new.json 'p["version"]')" = 2 ]
	[ "$(field new.json 'p["base_url"]')" = "$B" ]
	[ "$(field new.json '[e["published"] for e in p["packs"]]')" = \
	    "['2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z']" ]
	[ "$(field new.json '[e["url"] for e in p["packs"]]')" = \
	    "['ap-0.1.0.tar.gz', 'ap-0.2.0.tar.gz']" ]
	[ "$(field new.json 'p["issued"]')" = 2026-02-01T00:00:00Z ]
	[ "$(field new.json 'p["expires"]')" = 2026-03-03T00:00:00Z ]
	# A rebuilt 0.2.0 replaces its entry (one version, one archive).
	ix again.json "$F/ap-0.2.0.tar.gz" --previous new.json
	[ "$(field again.json 'len(p["packs"])')" = 2 ]
	[ "$(field again.json 'p["version"]')" = 3 ]
	# Entries are sorted by SemVer precedence, whatever the order given.
	ix sorted.json "$F/ap-0.3.0.tar.gz" "$F/ap-0.1.0.tar.gz" "$F/ap-0.2.0.tar.gz" --base-url "$B"
	[ "$(field sorted.json '[e["version"] for e in p["packs"]]')" = \
	    "['0.1.0', '0.2.0', '0.3.0']" ]
}

@test "yank, remove, refresh: each makes version +1 and keeps the rest" {
	local o="-s $F/ixk.key --at 2026-03-01T00:00:00Z"
	# shellcheck disable=SC2086
	run "$PACKSIGN" index yank "$F/ix2.json" "$AP_ID@0.1.0" --reason "bad" -o y.json $o
	[ "$status" -eq 0 ]
	[ "$(field y.json 'p["version"]')" = 3 ]
	[ "$(field y.json '[e.get("yanked") for e in p["packs"]]')" = "['bad', None]" ]
	[ "$(field y.json '[e["published"] for e in p["packs"]]')" = \
	    "['2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z']" ]
	# shellcheck disable=SC2086
	run "$PACKSIGN" index yank y.json "$AP_ID@0.1.0" --reason "worse" -o y.json $o
	[ "$status" -eq 0 ]
	[ "$(field y.json 'p["version"]')" = 4 ]
	[ "$(field y.json 'p["packs"][0]["yanked"]')" = worse ]
	# shellcheck disable=SC2086
	run "$PACKSIGN" index remove y.json "$AP_ID@0.1.0" -o r.json $o
	[ "$status" -eq 0 ]
	[ "$(field r.json 'p["version"]')" = 5 ]
	[ "$(field r.json '[e["version"] for e in p["packs"]]')" = "['0.2.0']" ]
	# shellcheck disable=SC2086
	run "$PACKSIGN" index refresh r.json -o f.json $o --expires P1D
	[ "$status" -eq 0 ]
	[ "$(field f.json 'p["version"]')" = 6 ]
	[ "$(field f.json 'p["expires"]')" = 2026-03-02T00:00:00Z ]
	[ "$(field f.json 'p["packs"]')" = "$(field r.json 'p["packs"]')" ]
	# Not listed.
	# shellcheck disable=SC2086
	run "$PACKSIGN" index remove r.json "$AP_ID@9.9.9" -o x.json $o
	fails 1 index_not_listed
	[ ! -e x.json ]
	no_temp_files .
}

@test "build --url-prefix: relative and absolute, percent-encoded file names" {
	cp "$F/ap-0.1.0.tar.gz" "a b+.tar.gz"
	cp "$F/ap-0.1.0.tar.gz.sig" "a b+.tar.gz.sig"
	ix rel.json "a b+.tar.gz" --base-url "$B" --url-prefix v1/
	[ "$(field rel.json 'p["packs"][0]["url"]')" = "v1/a%20b%2B.tar.gz" ]
	ix abs.json "a b+.tar.gz" --url-prefix "$U/dl/"
	[ "$(field abs.json 'p["packs"][0]["url"]')" = "$U/dl/a%20b%2B.tar.gz" ]
	[ "$(field abs.json '"base_url" in p')" = False ]
	# A relative URL without a base URL cannot be composed.
	run "$PACKSIGN" index build "a b+.tar.gz" --url-prefix v1/ -o none.json \
	    -s "$F/ixk.key" --trust "$F/policy.yaml"
	fails 1 index_url_invalid
	[ ! -e none.json ]
}

# ------------------------------------------------------------- install

@test "install by name from a file index: receipt, list, state recorded" {
	run inst "$AP_ID" "$F/ix2.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed $AP_ID 0.2.0 to $D/agentpacks/$AP_ID/0.2.0"* ]]
	[[ "$output" == *"no index state for acme-index: rollback cannot be checked on first use"* ]]
	[ "$(grep -c 'no index state' <<<"$output")" -eq 1 ]
	[ -f "$D/receipts/agentpacks/$AP_ID/0.2.0.json" ]
	[ "$(installed)" = 0.2.0 ]
	[ "$(state_version acme-index)" = 2 ]
	run "$PACKSIGN" list --data-dir "$D"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$AP_ID 0.2.0"* ]]
	# An exact version and a range.
	run inst "$AP_ID@0.1.0" "$F/ix2.json" --allow-downgrade
	[ "$status" -eq 0 ]
	run inst "$AP_ID@~0.1" "$F/ix2.json"
	[ "$status" -eq 0 ]
	[ "$(installed)" = "0.1.0 0.2.0" ]
	[ -z "$(ls -A "$D/.tmp" 2>/dev/null)" ]
}

@test "install by name from an https index URL; the second run has state" {
	run inst "$AP_ID@0.1.0" "$U/files/ix1.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -f "$D/receipts/agentpacks/$AP_ID/0.1.0.json" ]
	grep -q "\"url\": \"${B}ap-0.1.0.tar.gz\"" \
	    "$D/receipts/agentpacks/$AP_ID/0.1.0.json"
	run --separate-stderr inst "$AP_ID" "$U/files/ix2.json"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"no index state"* ]]
	[ "$(installed)" = "0.1.0 0.2.0" ]
	[ "$(state_version acme-index)" = 2 ]
}

@test "install --index: the archive URL is the signed one, not relative to the index URL" {
	mkdir -p "$F/www/elsewhere"
	cp "$F/ix1.json" "$F/www/elsewhere/ix1.json"
	run inst "$AP_ID" "$U/files/elsewhere/ix1.json"
	[ "$status" -eq 0 ]
	grep -q "\"url\": \"${B}ap-0.1.0.tar.gz\"" \
	    "$D/receipts/agentpacks/$AP_ID/0.1.0.json"
}

# ---------------------------------------------------------------- expiry

@test "expiry: after expires index_expired, before it passes; nothing recorded" {
	ix short.json "$F/ap-0.1.0.tar.gz" --base-url "$B" --expires PT1H
	run iv short.json --record
	fails 1 index_expired
	[ ! -e "$S" ]
	run inst "$AP_ID" short.json
	fails 1 index_expired
	nothing_installed
	[ ! -e "$S" ]
	run iv short.json --at 2026-01-01T00:59:59Z
	[ "$status" -eq 0 ]
	run iv short.json --at 2026-01-01T01:00:00Z
	[ "$status" -eq 0 ]
	run iv short.json --at 2026-01-01T01:00:01Z
	fails 1 index_expired
	run iv "$F/ix1.json" --at 2036-01-01T00:00:00Z
	fails 1 index_expired
}

# -------------------------------------------------- rollback, equivocation

@test "rollback: version 2 recorded, version 1 offered is index_rollback" {
	run iv "$F/ix2.json" --record
	[ "$status" -eq 0 ]
	[[ "$output" == *"; recorded"* ]]
	[ "$(state_version acme-index)" = 2 ]
	cp "$S" before
	run iv "$F/ix1.json"
	fails 1 index_rollback
	run inst "$AP_ID" "$F/ix1.json"
	fails 1 index_rollback
	nothing_installed
	run inst "$AP_ID" "$U/files/ix1.json"
	fails 1 index_rollback
	cmp "$S" before
	# The same version again and a higher one pass; recording a lower
	# one never lowers the state.
	run iv "$F/ix2.json" --record --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; j = json.loads(sys.argv[1])
assert j["recorded"] is False and j["version"] == 2 and j["index_state"]["version"] == 2, j' "$output"
	run iv "$F/ix3.json" --record
	[ "$status" -eq 0 ]
	[ "$(state_version acme-index)" = 3 ]
	run iv "$F/ix2.json" --record
	fails 1 index_rollback
	[ "$(state_version acme-index)" = 3 ]
}

@test "rollback: min_index_version 3 refuses version 2 in a fresh data dir" {
	run "$PACKSIGN" index verify "$F/ix2.json" --trust "$F/floor.yaml" --data-dir "$D"
	fails 1 index_rollback
	run "$PACKSIGN" install "$AP_ID" --index "$F/ix2.json" --trust "$F/floor.yaml" \
	    --data-dir "$D" --yes --ca-file "$F/ca.pem"
	fails 1 index_rollback
	nothing_installed
	[ ! -e "$S" ]
	# Version 3 passes with no first-use warning, even with
	# --require-index-state: the floor is the state.
	run --separate-stderr "$PACKSIGN" index verify "$F/ix3.json" \
	    --trust "$F/floor.yaml" --data-dir "$D" --require-index-state
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"no index state"* ]]
}

@test "equivocation: another index with the recorded version is index_equivocation" {
	[ "$(field "$F/ix2.json" 'p["version"]')" = "$(field "$F/ix2b.json" 'p["version"]')" ]
	run iv "$F/ix2.json" --record
	[ "$status" -eq 0 ]
	cp "$S" before
	run iv "$F/ix2b.json"
	fails 1 index_equivocation
	run inst "$AP_ID" "$F/ix2b.json"
	fails 1 index_equivocation
	nothing_installed
	run iv "$F/ix2b.json" --record
	fails 1 index_equivocation
	cmp "$S" before
}

# ------------------------------------------------- signers and publishers

@test "a pack signer without the index role is role_missing" {
	run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" --base-url "$B" -o bad.json \
	    -s "$F/acme.key" --trust "$F/policy.yaml" --at "$T0" --expires P3650D
	[ "$status" -eq 0 ]
	run iv bad.json --record
	fails 1 role_missing
	run inst "$AP_ID" bad.json
	fails 1 role_missing
	nothing_installed
	[ ! -e "$S" ]
}

@test "an unknown key is signature_untrusted" {
	run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" --base-url "$B" -o bad.json \
	    -s "$F/stranger.key" --trust "$F/policy.yaml" --at "$T0" --expires P3650D
	[ "$status" -eq 0 ]
	run iv bad.json
	fails 1 signature_untrusted
	run inst "$AP_ID" bad.json
	fails 1 signature_untrusted
	nothing_installed
}

@test "--identity other than the key's policy identity is index_publisher_mismatch" {
	ix bad.json "$F/ap-0.1.0.tar.gz" --base-url "$B" --identity acme
	[ "$(field bad.json 'p["publisher"]')" = acme ]
	run iv bad.json --record
	fails 1 index_publisher_mismatch
	run inst "$AP_ID" bad.json
	fails 1 index_publisher_mismatch
	nothing_installed
	[ ! -e "$S" ]
	# Building on a previous index of another publisher is refused too.
	run "$PACKSIGN" index refresh bad.json -o x.json -s "$F/ixk.key"
	fails 1 index_publisher_mismatch
	[ ! -e x.json ]
}

@test "an entry outside the publisher's packs: scope is index_out_of_scope" {
	ix bad.json "$F/ap-0.1.0.tar.gz" "$F/holon.tar.gz" --base-url "$B"
	run iv bad.json --record
	fails 1 index_out_of_scope
	[[ "$output" == *"research-summarizer"* ]]
	run inst "$AP_ID" bad.json
	fails 1 index_out_of_scope
	nothing_installed
	[ ! -e "$S" ]
}

# -------------------------------------------------------- mix-and-match

@test "mix-and-match: another version's genuinely signed archive is index_mismatch" {
	ix mm.json "$F/ap-0.1.0.tar.gz" --base-url "$B" --url-prefix mixa/
	run inst "$AP_ID" mm.json
	fails 1 index_mismatch
	nothing_installed
}

@test "mix-and-match: another pack's genuinely signed archive is index_mismatch" {
	ix mm.json "$F/ap-0.1.0.tar.gz" --base-url "$B" --url-prefix mixb/
	run inst "$AP_ID" mm.json
	fails 1 index_mismatch
	nothing_installed
	# The index was seen before the download failed: it is recorded.
	[ "$(state_version acme-index)" = 1 ]
}

@test "mix-and-match: the listed archive signed by a signer the entry does not list is index_mismatch" {
	ix mm.json "$F/ap-0.1.0.tar.gz" --base-url "$B" --url-prefix mixc/
	run inst "$AP_ID" mm.json
	fails 1 index_mismatch
	[[ "$output" == *signers* ]]
	nothing_installed
	# The same with the entry's own signature installs (version 2: the
	# data directory has seen version 1).
	ix ok.json "$F/ap-0.1.0.tar.gz" --base-url "$B" --previous mm.json
	run inst "$AP_ID" ok.json
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "mix-and-match: a listed size too small is refused before the archive is used" {
	ix mm.json "$F/ap-0.1.0.tar.gz" --base-url "$B" --url-prefix mixb/
	# holon.tar.gz differs in size from ap-0.1.0.tar.gz: either the size
	# cap or the digest stops it.
	[ "$(stat -c %s "$F/holon.tar.gz")" != "$(stat -c %s "$F/ap-0.1.0.tar.gz")" ]
	run inst "$AP_ID" mm.json
	echo "$output"
	fails 1 index_mismatch
	[[ "$output" == *"the entry's size"* ]]
	nothing_installed
}

# resized OUT DELTA [VERSION]: ix1.json (0.1.0 at $B) with its entry's
# size off by DELTA bytes and VERSION (default 1), signed by the index
# key: the publisher's data disagreeing with what the server sends.
resized() {
	python3 - "$F/ix1.json" "$1.payload" "$2" "${3:-1}" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
p = json.loads(base64.b64decode(env["payload"]))
p["packs"][0]["size"] += int(sys.argv[3])
p["version"] = int(sys.argv[4])
open(sys.argv[2], "w").write(json.dumps(p, sort_keys=True, separators=(",", ":")))
PY
	"$SIGNER" -s "$F/ixk.key" --payload \
	    --payload-type application/vnd.packsign.index+json -o "$1" "$1.payload"
}

@test "an entry's size binds both ways: a longer or shorter body is index_mismatch (exit 1)" {
	local size
	size=$(stat -c %s "$F/ap-0.1.0.tar.gz")
	resized short.json -1
	run iv short.json
	[ "$status" -eq 0 ]
	run inst "$AP_ID" short.json
	fails 1 index_mismatch
	[[ "$output" == *"expected $((size - 1)) bytes (the entry's size), found more: the transfer was cut off at $((size - 1))"* ]]
	nothing_installed
	# The right digest under a size too large: the body is shorter.
	resized long.json 1 2
	run inst "$AP_ID" long.json
	fails 1 index_mismatch
	[[ "$output" == *"expected $((size + 1)) bytes (the entry's size), found $size bytes"* ]]
	nothing_installed
}

@test "outdated: the entry's size is compared before the archive is parsed (index_mismatch, exit 1)" {
	run inst "$AP_ID@0.1.0" "$F/ix1.json"
	[ "$status" -eq 0 ]
	# 0.2.0's entry with its size one short, and served from mixb/ another
	# pack's archive: neither reaches the verifier.
	python3 - "$F/ix2.json" short.payload <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
p = json.loads(base64.b64decode(env["payload"]))
e = [e for e in p["packs"] if e["version"] == "0.2.0"][0]
e["size"] -= 1
p["version"] = 2
open(sys.argv[2], "w").write(json.dumps(p, sort_keys=True, separators=(",", ":")))
PY
	"$SIGNER" -s "$F/ixk.key" --payload \
	    --payload-type application/vnd.packsign.index+json -o short.json short.payload
	run "$PACKSIGN" outdated --index short.json --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem"
	echo "$output"
	fails 1 index_mismatch
	[[ "$output" == *"the entry's size"* ]]
}

# --------------------------------------------------------------- yanked

@test "yanked: an exact version is version_yanked with the reason; --allow-yanked installs it" {
	run inst "$AP_ID@0.2.0" "$F/ixy.json"
	fails 1 version_yanked
	[[ "$output" == *"broken prompts"* ]]
	nothing_installed
	run inst "$AP_ID@0.2.0" "$F/ixy.json" --allow-yanked
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(installed)" = 0.2.0 ]
}

@test "yanked: a range skips the yanked version; list --index shows YANKED" {
	run inst "$AP_ID" "$F/ixy.json"
	[ "$status" -eq 0 ]
	[ "$(installed)" = 0.1.0 ]
	run inst "$AP_ID@>=0.2.0" "$F/ixy.json"
	fails 1 index_no_match
	run inst "$AP_ID@0.2.0" "$F/ixy.json" --allow-yanked
	[ "$status" -eq 0 ]
	run "$PACKSIGN" list --data-dir "$D" --index "$F/ixy.json" --trust "$F/policy.yaml"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$(grep ' 0.2.0' <<<"$output")" == *"YANKED: broken prompts"* ]]
	[[ "$(grep ' 0.1.0' <<<"$output")" != *YANKED* ]]
	run "$PACKSIGN" list --data-dir "$D" --index "$F/ixy.json" --trust "$F/policy.yaml" --json
	[ "$status" -eq 0 ]
	[[ "$output" == *'"yanked": "broken prompts"'* ]]
}

# ------------------------------------------------------ resolve failures

@test "resolve: no match is index_no_match listing versions; unknown id index_not_listed" {
	run inst "$AP_ID@^5" "$F/ix2.json"
	fails 1 index_no_match
	[[ "$output" == *0.1.0* && "$output" == *0.2.0* ]]
	nothing_installed
	run inst other.pack "$F/ix2.json"
	fails 1 index_not_listed
	nothing_installed
	run inst "$AP_ID@not a range!" "$F/ix2.json"
	echo "$output"
	[ "$status" -ne 0 ]
	nothing_installed
}

# ------------------------------------------------------------- outdated

@test "outdated: exit 0 up to date, 1 when newer; widens lists permissions" {
	run inst "$AP_ID@0.2.0" "$F/ix2.json"
	[ "$status" -eq 0 ]
	run "$PACKSIGN" outdated --index "$F/ix2.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem"
	echo "$output"
	[ "$status" -eq 0 ]
	run --separate-stderr "$PACKSIGN" outdated --index "$F/ix2.json" \
	    --trust "$F/policy.yaml" --data-dir "$D" --ca-file "$F/ca.pem" -q
	[ "$status" -eq 0 ] && [ -z "$output" ] && [ -z "$stderr" ]
	run "$PACKSIGN" outdated --index "$U/files/ix3.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem" --json
	echo "$output"
	[ "$status" -eq 1 ]
	python3 - "$output" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
print(j)
def find(o):
    if isinstance(o, dict):
        if "widens" in o:
            return o
        for v in o.values():
            r = find(v)
            if r: return r
    if isinstance(o, list):
        for v in o:
            r = find(v)
            if r: return r
p = find(j)
assert p is not None, j
assert "permissions" in p["widens"].split(","), p
assert p["installed"] == "0.2.0" and p["newest"] == "0.3.0" and p["outdated"] is True, p
PY
	[ "$(state_version acme-index)" = 3 ]
	# Nothing was installed by outdated.
	[ "$(installed)" = 0.2.0 ]
	[ -z "$(ls -A "$D/.tmp" 2>/dev/null)" ]
	run "$PACKSIGN" outdated --index "$F/ix3.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --no-widening-check --json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'"widens": null'* ]]
	# -q: the exit status alone says it (issue 26).
	run --separate-stderr "$PACKSIGN" outdated --index "$F/ix3.json" \
	    --trust "$F/policy.yaml" --data-dir "$D" --no-widening-check -q
	[ "$status" -eq 1 ] && [ -z "$output" ] && [ -z "$stderr" ]
}

@test "outdated: a newer version that widens nothing has empty widens" {
	run inst "$AP_ID@0.1.0" "$F/ix2.json"
	[ "$status" -eq 0 ]
	run "$PACKSIGN" outdated --index "$F/ix2.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem" --json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'"widens": ""'* ]]
	run "$PACKSIGN" outdated --index "$F/ix2.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem"
	[ "$status" -eq 1 ]
	[[ "$output" == *0.1.0* && "$output" == *0.2.0* ]]
}

# --------------------------------------------------------------- update

@test "update: installs the newest; a widening needs --accept permissions" {
	run inst "$AP_ID@0.1.0" "$F/ix2.json"
	[ "$status" -eq 0 ]
	run "$PACKSIGN" update --index "$F/ix2.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem" --yes
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(installed)" = "0.1.0 0.2.0" ]
	# 0.3.0 widens permissions: --yes alone is not consent.
	run "$PACKSIGN" update --index "$F/ix3.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem" --yes
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$(installed)" = "0.1.0 0.2.0" ]
	[ -z "$(ls -A "$D/.tmp" 2>/dev/null)" ]
	run "$PACKSIGN" update --index "$F/ix3.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem" --yes --accept permissions
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(installed)" = "0.1.0 0.2.0 0.3.0" ]
	[ -f "$D/receipts/agentpacks/$AP_ID/0.3.0.json" ]
}

@test "update: --dry-run installs nothing; not newer is skipped; never downgrades" {
	run inst "$AP_ID@0.1.0" "$F/ix1.json"
	[ "$status" -eq 0 ]
	run "$PACKSIGN" update --index "$F/ix2.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem" --yes --dry-run
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"would install $AP_ID 0.2.0"* ]]
	[ "$(installed)" = 0.1.0 ]
	[ -z "$(ls -A "$D/.tmp" 2>/dev/null)" ]
	run "$PACKSIGN" update --index "$F/ix2.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem" --yes
	[ "$status" -eq 0 ]
	[ "$(installed)" = "0.1.0 0.2.0" ]
	run "$PACKSIGN" update --index "$F/ix2.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem" --yes
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *skipped* ]]
	[ "$(installed)" = "0.1.0 0.2.0" ]
	run --separate-stderr "$PACKSIGN" update --index "$F/ix2.json" \
	    --trust "$F/policy.yaml" --data-dir "$D" --ca-file "$F/ca.pem" --yes -q
	[ "$status" -eq 0 ] && [ -z "$output" ] && [ -z "$stderr" ]
	# ixy (version 3) yanks 0.2.0: its newest is 0.1.0, below what is
	# installed, so nothing is installed (never a downgrade).
	run "$PACKSIGN" update "$AP_ID" --index "$F/ixy.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem" --yes
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *skipped* ]]
	[ "$(installed)" = "0.1.0 0.2.0" ]
	[ "$(cd "$D/receipts/agentpacks/$AP_ID" && ls *.json | tr "\n" " ")" = "0.1.0.json 0.2.0.json " ]
	run "$PACKSIGN" update other.pack --index "$F/ixy.json" --trust "$F/policy.yaml" \
	    --data-dir "$D" --ca-file "$F/ca.pem" --yes
	echo "$output"
	[ "$status" -eq 1 ]
}

@test "update --json: one object, each id as install --json reports it" {
	run inst "$AP_ID@0.1.0" "$F/ix1.json"
	[ "$status" -eq 0 ]
	run --separate-stderr "$PACKSIGN" update --index "$F/ix2.json" \
	    --trust "$F/policy.yaml" --data-dir "$D" --ca-file "$F/ca.pem" --yes --json
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	jq -e --arg id "$AP_ID" '.ok and .exit == 0 and .index_version == 2 and
	    (.updates | length) == 1 and .updates[0].action == "installed" and
	    .updates[0].id == $id and .updates[0].version == "0.2.0" and
	    .updates[0].upgrade.from == "0.1.0" and .updates[0].ok' <<<"$output"
	[ "$(installed)" = "0.1.0 0.2.0" ]
	# Nothing newer: skipped; an id not installed: its refusal, exit 1.
	run --separate-stderr "$PACKSIGN" update "$AP_ID" other.pack --index "$F/ix2.json" \
	    --trust "$F/policy.yaml" --data-dir "$D" --ca-file "$F/ca.pem" --yes --json
	echo "$output"; echo "$stderr"
	[ "$status" -eq 1 ]
	jq -e --arg id "$AP_ID" '(.ok | not) and .exit == 1 and
	    .updates[0] == {format: "agentpack", id: $id, installed: "0.2.0",
	        action: "skipped", newest: "0.2.0", reason: "not_newer", ok: true,
	        exit: 0, code: null, subject: null, message: null,
	        expected: null, found: null} and
	    .updates[1].id == "other.pack" and .updates[1].code == "not_installed" and
	    .updates[1].exit == 1' <<<"$output"
	[[ "$stderr" == *"other.pack: no version of it is installed"*"[not_installed]"* ]]
	# A refused update is in its object, with the code.
	run --separate-stderr "$PACKSIGN" update --index "$F/ix3.json" \
	    --trust "$F/policy.yaml" --data-dir "$D" --ca-file "$F/ca.pem" --yes --json
	[ "$status" -eq 2 ]
	jq -e '.exit == 2 and .updates[0].code == "consent_required" and
	    .updates[0].action == null' <<<"$output"
}

# ------------------------------------------------- offline: --from-dir

# Issue 26: an air-gapped installer has the index and the release files,
# not the network.  The index names a host nothing can reach.
@test "install --index FILE --from-dir DIR: the entry's files from DIR, nothing downloaded" {
	ix off1.json "$F/ap-0.1.0.tar.gz" --base-url https://unreachable.invalid/packs/
	ix off2.json "$F/ap-0.2.0.tar.gz" --previous off1.json
	mkdir rel && cp "$F"/ap-0.1.0.tar.gz* "$F"/ap-0.2.0.tar.gz* rel/
	run env https_proxy=http://127.0.0.1:9 "$PACKSIGN" install "$AP_ID" \
	    --index off1.json --from-dir rel --trust "$F/policy.yaml" \
	    --data-dir "$D" --yes
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed $AP_ID 0.1.0 to "* ]]
	# update takes --from-dir too.
	run env https_proxy=http://127.0.0.1:9 "$PACKSIGN" update \
	    --index off2.json --from-dir rel --trust "$F/policy.yaml" \
	    --data-dir "$D" --yes
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(installed)" = "0.1.0 0.2.0" ]
	[ "$(state_version acme-index)" = 2 ]
	# The index's rules hold: an older index is a rollback now.
	run inst "$AP_ID@0.1.0" off1.json --from-dir rel
	[ "$status" -eq 1 ]
	[[ "$output" == *"[index_rollback]"* ]]
	nothing=$(ls -A "$D/.tmp")
	[ -z "$nothing" ]
}

@test "install --from-dir: the entry's digest, size, signers and pack bind the files in DIR" {
	ix off.json "$F/ap-0.1.0.tar.gz" --base-url https://unreachable.invalid/packs/
	# Another genuinely signed archive under the entry's file name: the
	# size (or, at the same size, the digest) is refused before a byte is
	# parsed.
	mkdir mix && cp "$F/ap-0.2.0.tar.gz" mix/ap-0.1.0.tar.gz
	cp "$F/ap-0.2.0.tar.gz.sig" mix/ap-0.1.0.tar.gz.sig
	run inst "$AP_ID@0.1.0" off.json --from-dir mix
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"is not the one index version 1 of 'acme-index' lists for $AP_ID@0.1.0"*"[index_mismatch]"* ]]
	nothing_installed
	# The same bytes signed by a key the entry does not list.
	mkdir other && cp "$F/bob-0.1.0.tar.gz" other/ap-0.1.0.tar.gz
	cp "$F/bob-0.1.0.tar.gz.sig" other/ap-0.1.0.tar.gz.sig
	run inst "$AP_ID@0.1.0" off.json --from-dir other
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the signers that counted"*"[index_mismatch]"* ]]
	nothing_installed
	# Missing files: the archive first, then its .sig.
	mkdir empty
	run inst "$AP_ID@0.1.0" off.json --from-dir empty
	[ "$status" -eq 2 ]
	[[ "$output" == *"empty/ap-0.1.0.tar.gz"*"[not_found]"* ]]
	cp "$F/ap-0.1.0.tar.gz" empty/
	run inst "$AP_ID@0.1.0" off.json --from-dir empty
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signature_missing]"* ]]
	nothing_installed
	run "$PACKSIGN" install "$F/ap-0.1.0.tar.gz" --from-dir empty \
	    --trust "$F/policy.yaml" --data-dir "$D" --yes
	[ "$status" -eq 2 ]
	[[ "$output" == *"--from-dir need --index"*"[usage]"* ]]
}

# ------------------------------------------------------------ first use

@test "first use: a warning; --require-index-state refuses; JSON index_state null then set" {
	run --separate-stderr iv "$F/ix1.json"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"no index state for acme-index: rollback cannot be checked on first use"* ]]
	[ "$(grep -c 'no index state' <<<"$stderr")" -eq 1 ]
	run iv "$F/ix1.json" --require-index-state
	fails 1 index_state_missing
	run inst "$AP_ID" "$F/ix1.json" --require-index-state
	fails 1 index_state_missing
	nothing_installed
	[ ! -e "$S" ]
	run --separate-stderr iv "$F/ix1.json" --json --record
	[ "$status" -eq 0 ]
	[[ "$output" == *'"index_state": null'* ]]
	[[ "$output" == *'"recorded": true'* ]]
	run --separate-stderr iv "$F/ix1.json" --json --require-index-state
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"no index state"* ]]
	python3 -c 'import json,sys; s = json.loads(sys.argv[1])["index_state"]
assert s["version"] == 1 and s["index_sha256"].startswith("sha256:") and s["first_seen"].endswith("Z"), s' "$output"
	python3 -c 'import json,sys; s = json.load(open(sys.argv[1]))
assert set(s) == {"packsign_index_state", "publishers"} and s["packsign_index_state"] == 1
assert set(s["publishers"]["acme-index"]) == {"first_seen", "index_sha256", "version"}' "$S"
}

@test "state: first_seen is the clock's time of recording, whatever --at says" {
	local before after
	before=$(date -u +%s)
	run iv "$F/ix1.json" --record --at 2030-06-01T00:00:00Z
	[ "$status" -eq 0 ]
	run inst "$AP_ID" "$F/ix2.json" --at 2031-01-01T00:00:00Z
	[ "$status" -eq 0 ]
	after=$(date -u +%s)
	python3 - "$S" "$before" "$after" <<'PY'
import calendar, json, sys, time
s = json.load(open(sys.argv[1]))["publishers"]["acme-index"]
seen = calendar.timegm(time.strptime(s["first_seen"], "%Y-%m-%dT%H:%M:%SZ"))
assert s["version"] == 2, s
assert int(sys.argv[2]) <= seen <= int(sys.argv[3]), (s, sys.argv)
PY
}

@test "state: publishers are kept apart; list --index checks but does not record" {
	run iv "$F/ix2.json" --record
	[ "$status" -eq 0 ]
	run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" --base-url "$B" -o acme.json \
	    -s "$F/acme.key" --trust "$F/policy.yaml" --at "$T0" --expires P3650D
	[ "$status" -eq 0 ]
	run "$PACKSIGN" index verify acme.json --trust "$F/both.yaml" --data-dir "$D" --record
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(state_version acme-index)" = 2 ]
	[ "$(state_version acme)" = 1 ]
	# An older index of acme-index is still refused, and acme's stays.
	run "$PACKSIGN" index verify "$F/ix1.json" --trust "$F/both.yaml" --data-dir "$D" --record
	fails 1 index_rollback
	[ "$(state_version acme)" = 1 ]
	cp "$S" before
	run "$PACKSIGN" list --data-dir "$D" --index "$F/ix1.json" --trust "$F/policy.yaml"
	fails 1 index_rollback
	run "$PACKSIGN" list --data-dir "$D" --index "$F/ix3.json" --trust "$F/policy.yaml"
	[ "$status" -eq 0 ]
	cmp "$S" before
}

# ------------------------------------------------------- damaged state

@test "a damaged index-state.json is exit 2 index_state_invalid and is not rewritten" {
	local bad
	mkdir -p "$D"
	for bad in 'garbage{' '[]' '{"packsign_index_state": 1}' \
	    '{"packsign_index_state": 2, "publishers": {}}' \
	    '{"packsign_index_state": 1, "publishers": {"acme-index": {"version": "2"}}}' \
	    '{"packsign_index_state": 1, "publishers": {}, "extra": 1}' \
	    '{"packsign_index_state": 1, "publishers": {"acme-index": {"first_seen": "2026-01-01T00:00:00Z", "index_sha256": "sha256:00", "version": 1}}}' \
	    '{"packsign_index_state": 1, "publishers": {"acme-index": {"first_seen": "2026-01-01T00:00:00Z", "index_sha256": "sha256:'"$(printf '0%.0s' $(seq 64))"'", "version": 0}}}' \
	    '{"packsign_index_state": 1, "publishers": {}} trailing'; do
		printf '%s' "$bad" >"$S"
		run iv "$F/ix2.json" --record
		fails 2 index_state_invalid
		[[ "$output" == *"remove the file"* ]]
		[ "$(cat "$S")" = "$bad" ]
		run inst "$AP_ID" "$F/ix2.json"
		fails 2 index_state_invalid
		[ "$(cat "$S")" = "$bad" ]
		nothing_installed
	done
	for cmd in outdated update; do
		run "$PACKSIGN" $cmd --index "$F/ix2.json" --trust "$F/policy.yaml" \
		    --data-dir "$D" --ca-file "$F/ca.pem"
		fails 2 index_state_invalid
		[ "$(cat "$S")" = "$bad" ]
	done
	echo '{"packsign_index_state": 1, "publishers": {}}' >real
	rm "$S"
	ln -s "$PWD/real" "$S"
	run iv "$F/ix2.json" --record
	fails 2 index_state_invalid
	[ -L "$S" ]
	[ "$(cat real)" = '{"packsign_index_state": 1, "publishers": {}}' ]
	rm "$S"
	head -c $((1024 * 1024 + 10)) /dev/zero | tr '\0' ' ' >"$S"
	run iv "$F/ix2.json" --record
	fails 2 index_state_invalid
}

# ------------------------------------------------------- kill the writes

# kill_each CALL: kills index verify --record (of version 3 over a state
# of version 2) at its 1st, 2nd, ... CALL; after each the state is the
# old file or the new one.  Prints the number of kills.
kill_each() {
	local n=1 st s
	while :; do
		rm -rf "$D"
		iv "$F/ix2.json" --record >/dev/null 2>&1
		cp "$S" old
		st=0
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -o /dev/null -e trace="$1" \
		    -e inject="$1":signal=SIGKILL:when=$n \
		    "$PACKSIGN" index verify "$F/ix3.json" --trust "$F/policy.yaml" \
		    --data-dir "$D" --record >/dev/null 2>&1 || st=$?
		s=$(state_version acme-index 2>/dev/null) || s=unparseable
		if [ "$s" = 2 ]; then
			cmp -s "$S" old || { echo "$1 #$n: v2 but changed" >&2; return 1; }
		elif [ "$s" != 3 ]; then
			echo "$1 #$n: state '$s'" >&2
			return 1
		fi
		# The next run accepts what was left.
		iv "$F/ix3.json" --record >/dev/null 2>&1 ||
		    { echo "$1 #$n: the next run failed" >&2; return 1; }
		[ "$(state_version acme-index)" = 3 ] || return 1
		[ "$st" -eq 0 ] && break
		n=$((n + 1))
		[ "$n" -lt 60 ] || return 1
	done
	echo $((n - 1))
}

@test "attack findings: a FIFO state file, nine signatures and dot-segment URLs are refused at once" {
	mkdir -p "$D"
	mkfifo "$S"
	# Found by attack: a FIFO there made every index command hang.
	run timeout 10 "$PACKSIGN" index verify "$F/ix2.json" --trust "$F/policy.yaml" \
	    --data-dir "$D"
	fails 2 index_state_invalid
	[[ "$output" == *"not a regular file"* ]]
	rm "$S"
	# Found by attack: 64 forged signatures, each checked over the whole
	# payload with every key, cost seconds; more than 8 are refused first.
	python3 - "$F/ix2.json" nine.json <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
e["signatures"] = e["signatures"] * 9
json.dump(e, open(sys.argv[2], "w"))
PY
	run iv nine.json
	fails 1 index_invalid
	[[ "$output" == *"at most 8 signatures"* ]]
	# Found by attack: ".." in a base URL (curl normalises it away).
	run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" -o x.json -s "$F/ixk.key" \
	    --trust "$F/policy.yaml" --base-url "https://127.0.0.1/a/../b/"
	fails 1 index_url_invalid
	run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" -o x.json -s "$F/ixk.key" \
	    --trust "$F/policy.yaml" --base-url "https://127.0.0.1/b/" --url-prefix "a%2F/"
	fails 1 index_url_invalid
	[ ! -e x.json ]
}

@test "a kill at any write, sync or rename of the state leaves the old state or the new" {
	command -v strace >/dev/null || skip "strace is not installed"
	local call k total=0
	for call in write fsync fdatasync rename renameat renameat2; do
		k=$(kill_each $call)
		echo "$call: $k kills" >&3
		total=$((total + k))
	done
	echo "$total kills in all" >&3
	[ "$total" -ge 3 ]
}

# ---------------------------------------------------------- usage errors

@test "usage errors are exit 2" {
	run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" -s "$F/ixk.key"
	fails 2 usage
	[[ "$output" == *"-o OUT"* ]]
	run "$PACKSIGN" index build "$F/ap-0.1.0.tar.gz" -o x.json
	fails 2 usage
	run "$PACKSIGN" index build -o x.json -s "$F/ixk.key"
	fails 2 usage
	run "$PACKSIGN" index refresh "$F/ix1.json" -o x.json -s "$F/ixk.key" --reason r
	fails 2 usage
	[[ "$output" == *"'--reason' does not apply to 'index refresh'"* ]]
	run "$PACKSIGN" index yank "$F/ix1.json" "$AP_ID@0.1.0" -o x.json -s "$F/ixk.key"
	fails 2 usage
	run "$PACKSIGN" index yank "$F/ix1.json" "$AP_ID" --reason r -o x.json -s "$F/ixk.key"
	fails 2 usage
	run "$PACKSIGN" index verify "$F/ix1.json"
	fails 2 usage
	run "$PACKSIGN" index verify "$F/ix1.json" --trust "$F/policy.yaml" -p "$F/ixk.pub"
	fails 2 usage
	run "$PACKSIGN" index frobnicate
	fails 2 usage
	run "$PACKSIGN" index refresh "$F/ix1.json" -o x.json -s "$F/ixk.key" --expires P11Y
	fails 2 usage
	run "$PACKSIGN" index refresh "$F/ix1.json" -o x.json -s "$F/ixk.key" --expires 30d
	fails 2 usage
	[ ! -e x.json ]
	run "$PACKSIGN" install "$U/files/ap-0.1.0.tar.gz" --index "$F/ix1.json" \
	    --trust "$F/policy.yaml" --data-dir "$D" --yes
	fails 2 usage
	run "$PACKSIGN" install "$AP_ID" --allow-yanked \
	    --trust "$F/policy.yaml" --data-dir "$D" --yes
	echo "$output"
	[ "$status" -eq 2 ]
	run "$PACKSIGN" outdated --trust "$F/policy.yaml" --data-dir "$D"
	fails 2 usage
	run "$PACKSIGN" update --index "$F/ix1.json" --data-dir "$D"
	fails 2 usage
	nothing_installed
	[ ! -e "$S" ]
}
