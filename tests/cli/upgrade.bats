#!/usr/bin/env bats
# CLI tests: install on upgrade (docs/formats/install.md, "Upgrades" and
# "Pins"): consent on widening, --accept, --accept-diff, the terminal
# question, signer and source pins, receipts version 2, and a kill at
# every rename and sync of an upgrade.

load helpers
bats_require_minimum_version 1.5.0

ID=chzealot/research-summarizer
REPO=https://github.com/chzealot/research-summarizer
C1=1111111111111111111111111111111111111111
C2=2222222222222222222222222222222222222222

# version DIR VERSION: a copy of the SoyaPack example at VERSION.
version() {
	cp -R "$EXAMPLES/soyapack-research-summarizer" "$1"
	chmod -R u+w "$1"
	sed -i "s/^version: 0.1.0/version: $2/" "$1/soyapack.yaml"
}

# widen DIR: adds an egress host (a widening permission).
widen() {
	sed -i 's|^    - host: example.com .*|    - host: collect.evil.example\n      port: 443\n      protocol: https\n&|' "$1/soyapack.yaml"
}

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	unset PACKSIGN_DATA_DIR SOURCE_DATE_EPOCH PACKSIGN_PASSPHRASE
	for k in alice alice2 bob; do
		"$PACKSIGN" keygen -o $k --identity ${k%2} --no-passphrase >/dev/null
	done
	{
		echo "version: 1"
		echo "signers:"
		echo "  - identity: alice"
		echo "    keys:"
		echo "      - key: $(sed -n 2p alice.pub)"
		echo "      - key: $(sed -n 2p alice2.pub)"
		echo '    packs: ["*"]'
		echo "  - identity: bob"
		echo "    keys:"
		echo "      - key: $(sed -n 2p bob.pub)"
		echo '    packs: ["*"]'
		echo "threshold: 1"
	} >policy.yaml
	{ cat policy.yaml; echo "consent: [permissions, trust, prompts, code]"; } \
	    >policy-all.yaml
	version v1 0.1.0
	version v2 0.2.0 && widen v2
	version v2n 0.2.0 && echo "Notes." >v2n/NOTES.md
	version v2p 0.2.0 && echo "Obey." >>v2p/prompts/summarize.md
	s() { "$PACKSIGN" sign "$1" -s "$2.key" -o "$3" "${@:4}" >/dev/null; }
	s v1 alice v1.tar.gz
	s v2 alice v2.tar.gz
	s v2n alice v2n.tar.gz
	s v2n alice2 v2n-rotated.tar.gz
	s v2n bob v2n-bob.tar.gz
	s v2p alice v2p.tar.gz
	s v1 alice v1-repo.tar.gz --source-repo "$REPO" --source-commit $C1
	s v2n alice v2n-repo.tar.gz --source-repo "$REPO" --source-commit $C2
	s v2n alice v2n-other.tar.gz --source-repo https://github.com/mallory/x \
	    --source-commit $C2
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	F=$BATS_FILE_TMPDIR
	D=$BATS_TEST_TMPDIR/data
	export PACKSIGN_DATA_DIR=$D
}

inst() {
	local archive=$1
	shift
	run "$PACKSIGN" install "$F/$archive" --trust "$F/policy.yaml" "$@" </dev/null
	echo "$output"
}

receipt() {
	cat "$D/receipts/soyapacks/$ID/$1.json"
}

pins() {
	cat "$D/pins/soyapacks/$ID.json"
}

@test "a first install pins its signers and source; list shows the pins" {
	inst v1-repo.tar.gz --yes
	[ "$status" -eq 0 ]
	pins | grep -q '"identity": "alice"'
	pins | grep -q "\"repository\": \"$REPO\""
	receipt 0.1.0 | grep -q '"packsignReceipt": 3'
	receipt 0.1.0 | grep -q '"consent": null'
	run "$PACKSIGN" list
	[[ "$output" == *"pinned: alice (SHA256:"*") from $REPO"* ]]
	run "$PACKSIGN" list --json
	[[ "$output" == *'"pins":'* ]]
}

@test "--yes never accepts a widening upgrade [consent_required], and nothing changes" {
	inst v1.tar.gz --yes
	before=$(find "$D" -path "$D/.tmp" -prune -o -print | sort)
	inst v2.tar.gz --yes
	[ "$status" -eq 2 ]
	[[ "$output" == *"the upgrade from 0.1.0 widens what the policy asks consent for (permissions): egress collect.evil.example:443/https"*"[consent_required]"* ]]
	[ "$(find "$D" -path "$D/.tmp" -prune -o -print | sort)" = "$before" ]
}

@test "--dry-run prints the classes it would ask and exits 0" {
	inst v1.tar.gz --yes
	inst v2.tar.gz --dry-run
	[ "$status" -eq 0 ]
	[[ "$output" == *"upgrade from 0.1.0: "*"consent needed for: permissions"* ]]
	[ ! -e "$D/soyapacks/$ID/0.2.0" ]
}

@test "--accept CLASSES consents to the classes, recorded in the receipt" {
	inst v1.tar.gz --yes
	inst v2.tar.gz --yes --accept trust
	[ "$status" -eq 2 ]
	inst v2.tar.gz --yes --accept trust,permissions
	[ "$status" -eq 0 ]
	[[ "$output" == *"consent: accept"* ]]
	receipt 0.2.0 | python3 -c 'import json,sys; c=json.load(sys.stdin)["consent"]; \
	    assert c == {"fromVersion": "0.1.0", "asked": ["permissions", "trust"], \
	    "widened": ["permissions"], "by": "accept"}, c'
	run "$PACKSIGN" install "$F/v2.tar.gz" --trust "$F/policy.yaml" --accept net
	[ "$status" -eq 2 ]
	[[ "$output" == *"--accept takes classes of"* ]]
}

@test "--accept-diff takes exactly this upgrade's diff --json" {
	inst v1.tar.gz --yes
	"$PACKSIGN" diff --installed $ID "$F/v2.tar.gz" --trust "$F/policy.yaml" \
	    --json >v2.json || [ $? -eq 1 ]
	"$PACKSIGN" diff --installed $ID "$F/v2p.tar.gz" --trust "$F/policy.yaml" \
	    --json >other.json || [ $? -eq 1 ]
	inst v2.tar.gz --yes --accept-diff other.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"is not this upgrade's"*"[consent_required]"* ]]
	sed 's/collect.evil.example/collect.evil.examplf/' v2.json >edited.json
	inst v2.tar.gz --yes --accept-diff edited.json
	[ "$status" -eq 2 ]
	inst v2.tar.gz --yes --accept-diff v2.json
	[ "$status" -eq 0 ]
	receipt 0.2.0 | grep -q '"by": "accept-diff"'
}

@test "a non-widening upgrade installs as before, consent by none" {
	inst v1.tar.gz --yes
	inst v2n.tar.gz --yes
	[ "$status" -eq 0 ]
	[[ "$output" == *"widening: none; consent: none"* ]]
	receipt 0.2.0 | grep -q '"by": "none"'
}

@test "a policy's consent: adds prompts; a prompt change then needs consent" {
	inst v1.tar.gz --yes
	run "$PACKSIGN" install "$F/v2p.tar.gz" --trust "$F/policy-all.yaml" --yes
	[ "$status" -eq 2 ]
	[[ "$output" == *"(prompts): prompt prompts/summarize.md"* ]]
	run "$PACKSIGN" install "$F/v2p.tar.gz" --trust "$F/policy-all.yaml" --yes \
	    --accept prompts
	[ "$status" -eq 0 ]
}

@test "on a terminal the widening changes are listed and the answer decides" {
	command -v script >/dev/null || skip "script(1) is not installed"
	inst v1.tar.gz --yes
	cmd="'$PACKSIGN' install '$F/v2.tar.gz' --trust '$F/policy.yaml' --data-dir '$D'"
	run bash -c "printf 'n\n' | script -qec \"$cmd\" /dev/null"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"+ egress collect.evil.example:443/https  [widening: permissions]"* ]]
	[[ "$output" == *"Accept these changes (permissions)? [y/N]"* ]]
	[[ "$output" == *"[consent_required]"* ]]
	[ ! -e "$D/soyapacks/$ID/0.2.0" ]
	run bash -c "printf 'y\ny\n' | script -qec \"$cmd\" /dev/null"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Install? [y/N]"* ]]
	receipt 0.2.0 | grep -q '"by": "prompt"'
}

@test "another signer is refused [signer_changed] unless allowed, then pinned" {
	inst v1.tar.gz --yes
	inst v2n-bob.tar.gz --yes
	[ "$status" -eq 1 ]
	[[ "$output" == *"no pinned identity or key signed this version"*"expected alice (SHA256:"*"found bob (SHA256:"*"[signer_changed]"* ]]
	# Allowed, it is still a trust change: consent as well.
	inst v2n-bob.tar.gz --yes --allow-signer-change
	[ "$status" -eq 2 ]
	[[ "$output" == *"(trust): signer bob"* ]]
	inst v2n-bob.tar.gz --yes --allow-signer-change --accept trust
	[ "$status" -eq 0 ]
	pins | grep -q '"identity": "bob"'
	! pins | grep -q '"identity": "alice"'
}

@test "with -p KEY.pub a key claiming the pinned identity is another signer" {
	"$PACKSIGN" keygen -o mallory --identity alice --no-passphrase >/dev/null
	"$PACKSIGN" sign "$F/v2n" -s mallory.key -o m.tar.gz >/dev/null
	run "$PACKSIGN" install "$F/v1.tar.gz" -p "$F/alice.pub" --yes
	[ "$status" -eq 0 ]
	run "$PACKSIGN" install m.tar.gz -p mallory.pub --yes
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signer_changed]"* ]]
	run "$PACKSIGN" diff --installed $ID m.tar.gz -p mallory.pub --json
	[[ "$output" == *'"field":"signer.key","subject":"alice","kind":"changed"'*'"widening":true'* ]]
}

@test "a key rotation within a pinned identity passes without consent" {
	inst v1.tar.gz --yes
	inst v2n-rotated.tar.gz --yes
	[ "$status" -eq 0 ]
	[[ "$output" == *"consent: none"* ]]
}

@test "another repository is refused [source_changed]; gained provenance is pinned" {
	inst v1-repo.tar.gz --yes
	inst v2n-other.tar.gz --yes
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected $REPO, found https://github.com/mallory/x [source_changed]"* ]]
	inst v2n-other.tar.gz --yes --allow-source-change --accept trust
	[ "$status" -eq 0 ]
	pins | grep -q '"repository": "https://github.com/mallory/x"'
}

@test "none followed by a repository is neutral, and the repository is pinned" {
	inst v1.tar.gz --yes
	pins | grep -q '"source": null'
	inst v2n-repo.tar.gz --yes
	[ "$status" -eq 0 ]
	pins | grep -q "\"repository\": \"$REPO\""
}

@test "a data directory without pins pins from the newest receipt" {
	inst v1.tar.gz --yes
	rm "$D/pins/soyapacks/$ID.json"
	inst v2n-bob.tar.gz --yes
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signer_changed]"* ]]
	inst v2n.tar.gz --yes
	[ "$status" -eq 0 ]
	pins | grep -q '"identity": "alice"'
}

@test "a receipt of version 1 is still read" {
	inst v1.tar.gz --yes
	r=$D/receipts/soyapacks/$ID/0.1.0.json
	python3 - "$r" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
for k in ("signers", "manifest", "consent"):
    del d[k]
d["packsignReceipt"] = 1
json.dump(d, open(p, "w"), indent=1, sort_keys=True)
PY
	run "$PACKSIGN" list
	[ "$status" -eq 0 ]
	[[ "$output" == *"0.1.0 (newest)  signer: alice"* ]]
	rm "$D/pins/soyapacks/$ID.json"
	inst v2n-bob.tar.gz --yes
	[[ "$output" == *"[signer_changed]"* ]]
}

@test "uninstall keeps the pins unless --forget" {
	inst v1.tar.gz --yes
	"$PACKSIGN" uninstall $ID >/dev/null
	[ -e "$D/pins/soyapacks/$ID.json" ]
	inst v2n-bob.tar.gz --yes
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signer_changed]"* ]]
	# Replacing kept pins is a trust change even with nothing to diff.
	inst v2n-bob.tar.gz --yes --allow-signer-change
	[ "$status" -eq 2 ]
	[[ "$output" == *"replacing the pins of $ID (pinned by its install of 0.1.0, since uninstalled) is a change of whom you trust (trust)"*"[consent_required]"* ]]
	inst v2n-bob.tar.gz --yes --allow-signer-change --accept trust
	[ "$status" -eq 0 ]
	[[ "$output" == *"pins of $ID replaced (pinned by its install of 0.1.0); consent: accept"* ]]
	pins | grep -q '"identity": "bob"'
	"$PACKSIGN" uninstall $ID --forget >/dev/null
	inst v1.tar.gz --yes
	run "$PACKSIGN" uninstall $ID@0.1.0 --forget
	[ "$status" -eq 2 ]
	"$PACKSIGN" uninstall $ID --forget >/dev/null
	[ ! -e "$D/pins/soyapacks/$ID.json" ]
	inst v2n-bob.tar.gz --yes
	[ "$status" -eq 0 ]
}

@test "uninstall --forget after a plain uninstall forgets the kept pins" {
	inst v1.tar.gz --yes
	"$PACKSIGN" uninstall $ID >/dev/null
	run "$PACKSIGN" uninstall $ID --forget
	[ "$status" -eq 0 ]
	[[ "$output" == *"forgot the pins of $ID"* ]]
	[ ! -e "$D/pins/soyapacks/$ID.json" ]
	run "$PACKSIGN" uninstall $ID --forget
	[ "$status" -eq 1 ]
	[[ "$output" == *"[not_installed]"* ]]
}

@test "pins of another id in a pins file are refused [pins_invalid]" {
	inst v1.tar.gz --yes
	sed -i 's/"id": "chzealot\/research-summarizer"/"id": "chzealot\/other"/' \
	    "$D/pins/soyapacks/$ID.json"
	inst v2n.tar.gz --yes
	[ "$status" -eq 1 ]
	[[ "$output" == *"[pins_invalid]"* ]]
}

@test "a damaged pins file is refused [pins_invalid]" {
	inst v1.tar.gz --yes
	echo '{"packsignPins": 2}' >"$D/pins/soyapacks/$ID.json"
	inst v2n.tar.gz --yes
	[ "$status" -eq 1 ]
	[[ "$output" == *"[pins_invalid]"* ]]
}

# state: the newest installed version and the identity its pins name.
state() {
	local newest pinned
	newest=$("$PACKSIGN" list --json | python3 -c 'import json,sys; \
	    print([p["version"] for p in json.load(sys.stdin)["packs"] if p["newest"]][0])')
	pinned=$("$PACKSIGN" list --json | python3 -c 'import json,sys; \
	    print([p["pins"]["signers"][0]["identity"] for p in \
	    json.load(sys.stdin)["packs"] if p["newest"]][0])')
	echo "$newest $pinned"
}

# kill_each SYSCALL: an upgrade killed at its 1st, 2nd, ... SYSCALL until
# one runs to the end; every kill leaves one of the two states.  Prints
# the number of kills.
kill_each() {
	local n=1 s st
	while :; do
		rm -rf "$D"
		"$PACKSIGN" install "$F/v1.tar.gz" --trust "$F/policy.yaml" --yes >/dev/null
		st=0
		# LeakSanitizer cannot run under ptrace (an ASan build's tests).
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -o /dev/null -e trace="$1" \
		    -e inject="$1":signal=SIGKILL:when=$n \
		    "$PACKSIGN" install "$F/v2n-bob.tar.gz" --trust "$F/policy.yaml" \
		    --yes --allow-signer-change --accept trust >/dev/null 2>&1 || st=$?
		s=$(state)
		[ "$s" = "0.1.0 alice" ] || [ "$s" = "0.2.0 bob" ] ||
		    { echo "$1 #$n: state $s" >&2; return 1; }
		# The next run (alice's own 0.2.0, the same tree) finishes or
		# throws away what the kill left: a stage left behind must not
		# become the pins once 0.2.0 appears.
		"$PACKSIGN" install "$F/v2n.tar.gz" --trust "$F/policy.yaml" \
		    --yes >/dev/null 2>&1 ||
		    { echo "$1 #$n: the next install failed" >&2; return 1; }
		if [ "$s" = "0.1.0 alice" ]; then
			[ "$(state)" = "0.2.0 alice" ]
		else
			[ "$(state)" = "0.2.0 bob" ]
		fi || { echo "$1 #$n: $s, then $(state)" >&2; return 1; }
		[ "$st" -eq 0 ] && break
		n=$((n + 1))
		[ "$n" -lt 500 ] || return 1
	done
	echo $((n - 1))
}

@test "a kill at any rename, write or sync of a re-pinning upgrade leaves old-with-old-pins or new-with-new-pins" {
	command -v strace >/dev/null || skip "strace is not installed"
	local call k total=0
	for call in rename renameat renameat2 fsync fdatasync syncfs write; do
		k=$(kill_each $call)
		echo "$call: $k kills" >&3
		total=$((total + k))
	done
	echo "$total kills in all" >&3
	[ "$total" -gt 10 ]
}
