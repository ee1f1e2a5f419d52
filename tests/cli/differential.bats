#!/usr/bin/env bats
# Differential test of the archive reader.  tests/corpus/mkhostile writes a
# corpus of archives of the example pack (hostile twists and ordinary
# shapes) and cases.tsv (FILE, EXPECT, DESCRIPTION); then:
#   - every refused case exits 1 with [CODE] (`packsign digest`; codes
#     extract_* from `packsign install --dry-run`, the archive signed as it
#     is by ps-testsign --raw-from, as in install_hostile.bats);
#   - every accepted tar lists and extracts the same with GNU tar, bsdtar,
#     Python tarfile and Go's archive/tar, and holds no zip; every accepted
#     zip the same with bsdtar, Python zipfile, Info-ZIP unzip, 7-Zip and
#     Go's archive/zip, and holds no tar (tests/corpus/compare against
#     `packsign digest --files --json`; Go's readers are
#     tests/corpus/goread.go, built here into build/tests, offline);
#   - `packsign digest` of the 12,000-file deep tree stays within 64 MiB.
# One test per group; each runs every case and prints every failing one.

load helpers

SIGNER="${PACKSIGN_TESTSIGN:-$BATS_TEST_DIRNAME/../../build/tests/ps-testsign}"
CORPUS_TOOLS="$BATS_TEST_DIRNAME/../corpus"
# The Debian interpreter starts in a fraction of a pyenv shim's time.
PY=python3
[ ! -x /usr/bin/python3 ] || PY=/usr/bin/python3
DEEP=11-deep-12000.tar.gz
RSS_LIMIT_KIB=65536
GOREAD_DIR="$BATS_TEST_DIRNAME/../../build/tests"

# Go's readers, from the standard library alone: no module is fetched
# (GOPROXY=off, GO111MODULE=off), the build cache stays in build/.
build_goread() {
	command -v go >/dev/null || return 0
	mkdir -p "$GOREAD_DIR"
	GO111MODULE=off GOPROXY=off GOFLAGS= GOTOOLCHAIN=local GOTELEMETRY=off \
	    GOCACHE="$GOREAD_DIR/go-cache" GOPATH="$GOREAD_DIR/go" \
	    go build -o "$GOREAD_DIR/goread" "$CORPUS_TOOLS/goread.go"
	export COMPARE_GOREAD="$GOREAD_DIR/goread"
}

setup_file() {
	export CORPUS="$BATS_FILE_TMPDIR/corpus"
	PACKSIGN="$PACKSIGN" "$PY" "$CORPUS_TOOLS/mkhostile" "$CORPUS"
	build_goread
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
}

# need TOOL...: skips the test, naming the Debian package, when a tool is
# missing (scripts/install-deps installs them all).
need() {
	local t pkg
	for t in "$@"; do
		case $t in
		bsdtar) pkg=libarchive-tools ;;
		7z) pkg=7zip; seven_zip >/dev/null && continue ;;
		go) pkg=golang-go ;;
		*) pkg=$t ;;
		esac
		command -v "$t" >/dev/null ||
		    skip "$t not found: install the Debian package $pkg (scripts/install-deps)"
	done
}

seven_zip() {
	command -v 7z || command -v 7zz || command -v 7za
}

# cases KIND: the lines of cases.tsv of KIND: refused, tar (accepted tars)
# or zip (accepted zips).
cases() {
	local f expect desc
	while IFS=$'\t' read -r f expect desc; do
		case $1:$expect:$f in
		refused:accept:* | tar:accept:*.zip) continue ;;
		refused:* | zip:accept:*.zip | tar:accept:*) ;;
		*) continue ;;
		esac
		printf '%s\t%s\t%s\n' "$f" "$expect" "$desc"
	done <"$CORPUS/cases.tsv"
}

# install_options FILE: the limits a refused extract_* case is installed
# with (the defaults otherwise).
install_options() {
	case $1 in
	10-bomb-1gib.tar.gz) echo "--max-size 67108864" ;;   # 64 MiB
	esac
}

# refusal FILE CODE: runs the command that must refuse FILE; sets $status
# and $output.
refusal() {
	local f=$1 code=$2
	case $code in
	extract_*)
		if [ ! -f alice.key ]; then
			"$PACKSIGN" keygen -o alice --identity alice \
			    --no-passphrase >/dev/null
			"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o good.tar \
			    -q >/dev/null
		fi
		cp "$CORPUS/$f" .
		if ! "$SIGNER" -s alice.key --raw-from good.tar "$f" 2>sign.err; then
			status=2 output="ps-testsign could not sign it: $(tail -n 1 sign.err)"
			rm -f "$f"
			return
		fi
		# shellcheck disable=SC2046
		run "$PACKSIGN" install "$f" -p alice.pub --yes --dry-run \
		    --data-dir "$BATS_TEST_TMPDIR/data" $(install_options "$f")
		rm -f "$f" "$f.sig"
		;;
	*)
		run "$PACKSIGN" digest "$CORPUS/$f"
		;;
	esac
}

# last_line: the last line of $output (the refusal, when there is one).
last_line() {
	printf '%s\n' "$output" | tail -n 1 | cut -c1-300
}

# outcome: what a refusal's command did instead.
outcome() {
	if [ "$status" -eq 0 ]; then
		echo "accepted"
	else
		last_line
	fi
}

@test "differential: every hostile archive is refused with its code" {
	local f code desc failed=0 n=0
	[ -x "$SIGNER" ] || skip "build/tests/ps-testsign missing (make tools)"
	need zstd
	while IFS=$'\t' read -r -u 4 f code desc; do
		n=$((n + 1))
		refusal "$f" "$code"
		if [ "$status" -eq 1 ] && [[ "$output" == *"[$code]"* ]]; then
			echo "ok   $f [$code]"
		else
			failed=$((failed + 1))
			echo "FAIL $f ($desc): expected exit 1 and [$code], got exit $status: $(outcome)"
		fi
	done 4< <(cases refused)
	echo "$failed of $n refusals failed"
	[ "$n" -gt 0 ] && [ "$failed" -eq 0 ]
}

# accepted KIND: every accepted case of KIND through tests/corpus/compare.
accepted() {
	local f json desc failed=0 n=0
	while IFS=$'\t' read -r -u 4 f _ desc; do
		n=$((n + 1))
		json="$BATS_TEST_TMPDIR/$f.json"
		if ! "$PACKSIGN" digest "$CORPUS/$f" --files --json >"$json" \
		    2>"$json.err"; then
			failed=$((failed + 1))
			echo "FAIL $f ($desc): packsign refused it: $(tail -n 1 "$json.err" | cut -c1-300)"
			continue
		fi
		run "$PY" "$CORPUS_TOOLS/compare" "$CORPUS/$f" "$json"
		if [ "$status" -eq 0 ]; then
			echo "ok   $f${output:+ ($output)}"
		else
			failed=$((failed + 1))
			echo "FAIL $f ($desc): the readers differ (compare exit $status):"
			printf '%s\n' "$output" | head -n 40 | sed 's/^/    /'
		fi
	done 4< <(cases "$1")
	echo "$failed of $n accepted ${1}s failed"
	[ "$n" -gt 0 ] && [ "$failed" -eq 0 ]
}

@test "differential: accepted tars mean the same to GNU tar, bsdtar, tarfile and Go's archive/tar, and hold no zip" {
	need bsdtar unzip zstd go
	accepted tar
}

@test "differential: accepted zips mean the same to bsdtar, zipfile, unzip, 7-Zip and Go's archive/zip, and hold no tar" {
	need bsdtar unzip 7z go
	accepted zip
}

# peak_rss CMD...: runs CMD; prints its stderr, then its exit status and
# its peak resident set in KiB (ru_maxrss) on the last line.
peak_rss() {
	"$PY" -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)
sys.stderr.write(r.stderr.decode(errors="replace"))
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
' "$@" 2>&1
}

# within_rss EXIT CODE CMD...: CMD exits EXIT (printing [CODE] unless CODE
# is -) within RSS_LIMIT_KIB.
within_rss() {
	local want=$1 code=$2 out last
	shift 2
	out=$(peak_rss "$@")
	last=$(tail -n 1 <<<"$out")
	echo "$* -> exit ${last% *}, peak RSS ${last#* } KiB (limit $RSS_LIMIT_KIB)"
	[ "${last% *}" -eq "$want" ] || { echo "$out"; return 1; }
	[ "$code" = - ] || grep -qF "[$code]" <<<"$out" || { echo "$out"; return 1; }
	[ "${last#* }" -le "$RSS_LIMIT_KIB" ]
}

# Issue 17, item 11: 12,000 empty files 64 levels deep once drove verify,
# sign and digest to 1.6 GB, and as a 100 MB plain tar beside another
# pack's genuine .sig, verify to 2.8 GB before it refused.
@test "differential: 12,000 files 64 levels deep: digest, sign, verify within 64 MiB; a borrowed .sig is refused before parsing" {
	# The sanitizers' shadow memory and quarantine inflate the resident
	# set: the limit is the plain build's.
	! readelf -d "$PACKSIGN" 2>/dev/null | grep -q libasan ||
	    skip "an ASan build: peak RSS is measured on the plain build"
	[ -f "$CORPUS/$DEEP" ] || { echo "$DEEP missing from the corpus"; false; }
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	cp "$CORPUS/$DEEP" .
	within_rss 0 - "$PACKSIGN" digest "$DEEP"
	within_rss 0 - "$PACKSIGN" sign "$DEEP" -s alice.key
	within_rss 0 - "$PACKSIGN" verify "$DEEP" -p alice.pub --deep
	# The same entries and an 80 MiB file, as a plain tar of 100 MB
	# whose .sig is another pack's (genuine, by a trusted key).
	"$PY" - "$DEEP" big.tar <<-'PY'
	import gzip, sys, tarfile
	data = gzip.open(sys.argv[1]).read()
	end = len(data)
	while data[end - 512:end] == bytes(512):
	    end -= 512
	with open(sys.argv[2], "wb") as out:
	    out.write(data[:end])
	    info = tarfile.TarInfo("knowledge/zeros.bin")
	    info.size = 80 * 1024 * 1024
	    out.write(info.tobuf(tarfile.USTAR_FORMAT))
	    out.write(bytes(info.size) + bytes(1024))
	PY
	[ "$(stat -c %s big.tar)" -ge 100000000 ]
	"$PACKSIGN" sign "$(copy_pack "$AGENTPACK")" -s alice.key -o other.tar >/dev/null
	cp other.tar.sig big.tar.sig
	within_rss 1 subject_mismatch "$PACKSIGN" verify big.tar -p alice.pub
	# With long components (GNU long names) no canonical header holds a
	# path: refused at the first, whatever follows.
	"$PY" - long.tar.gz <<-'PY'
	import io, sys, tarfile
	with tarfile.open(sys.argv[1], "w:gz", format=tarfile.GNU_FORMAT) as t:
	    for i in range(12000):
	        name = "/".join(["k%05d" % i] + ["d" * 90] * 63) + "/f"
	        t.addfile(tarfile.TarInfo(name), io.BytesIO(b""))
	PY
	within_rss 1 name_too_long "$PACKSIGN" digest long.tar.gz
}

# Issue 26: why bytes 500-511 of a tar header must be NUL (23a is refused
# for it): with "tar\0" in bytes 508-511 Go's archive/tar reads the header
# as the star format, its prefix field cut at byte 475, and names another
# file than GNU tar and bsdtar; with NUL padding (23b, accepted) all agree.
@test "differential: Go's archive/tar names 23a's star header another path than GNU tar and bsdtar" {
	need bsdtar go
	local star=$CORPUS/23a-star-trailer-long-prefix.tar d121 go_name
	d121=$(printf 'd%.0s' $(seq 121))
	go_name=$("$COMPARE_GOREAD" tar "$star" | tail -n 1 |
	    "$PY" -c 'import json, sys; print(json.load(sys.stdin)["name"])')
	echo "Go: $go_name"
	[ "$go_name" = "knowledge/$d121/review.md" ]
	[ "$(tar -tf "$star" | tail -n 1)" = "knowledge/${d121}000000000000000000000000/review.md" ]
	[ "$(bsdtar -tf "$star" | tail -n 1)" = "knowledge/${d121}000000000000000000000000/review.md" ]
	run "$PACKSIGN" digest "$star"
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected 12 NUL bytes, found '\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00tar\\x00' [tar_header_padding]"* ]]
}

@test "differential: packsign's own tars have NUL in bytes 500-511 of every header (prefix and pax headers too)" {
	local pack a70 b70 c90
	pack=$(copy_pack "$AGENTPACK")
	a70=$(printf 'a%.0s' $(seq 70)) b70=$(printf 'b%.0s' $(seq 70))
	c90=$(printf 'c%.0s' $(seq 90))
	mkdir -p "$pack/knowledge/$a70/$b70"
	echo long >"$pack/knowledge/$a70/$b70/$c90.md"
	echo pax >"$pack/knowledge/caf$(printf '\303\251').md"
	"$PACKSIGN" pack "$pack" -o p.tar -q
	"$PY" - p.tar <<-'PY'
	import sys
	d = open(sys.argv[1], "rb").read()
	off = seen = prefix = pax = 0
	while d[off:off + 512] != bytes(512):
	    h = d[off:off + 512]
	    assert h[500:512] == bytes(12), (off, h[500:512])
	    seen += 1
	    prefix += h[345] != 0
	    pax += h[156:157] == b"x"
	    size = int(h[124:136].strip(b"\0 ") or b"0", 8)
	    off += 512 + -(-size // 512) * 512
	print(seen, "headers,", prefix, "with a prefix,", pax, "pax")
	assert prefix >= 1 and pax >= 1
	PY
}
