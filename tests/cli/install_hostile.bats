#!/usr/bin/env bats
# CLI tests: packsign install against hostile archives, kill -9 at random
# points, and concurrent installs.  Each hostile archive holds the signed
# example pack plus one hostile entry and is signed, as the bytes it is, by
# a trusted key (ps-testsign --raw-from), so the signature and subject
# checks pass and the refusal comes from reading the archive's entries.

load helpers
bats_require_minimum_version 1.5.0

SIGNER="${PACKSIGN_TESTSIGN:-$BATS_TEST_DIRNAME/../../build/tests/ps-testsign}"
ID=research.top-journal-reviewer

# make_hostile: every hostile archive (h-KIND.tar, h-bomb.tar.gz,
# h-zip.zip): good.tar's entries plus one hostile entry, written in one run
# of Python's tarfile and zipfile, which write what they are told.  Names
# aim at $ESCAPE: "../../../../escape" from DIR/.tmp/WORK/TREE is the test's
# own escape, the absolute ones the file's.
make_hostile() {
	local py=python3
	# The Debian interpreter starts in a fraction of a pyenv shim's time.
	[ ! -x /usr/bin/python3 ] || py=/usr/bin/python3
	"$py" - "$ESCAPE" <<'PY'
import io, sys, tarfile, zipfile
escape = sys.argv[1]
src = tarfile.open("good.tar")
members = [(m, src.extractfile(m).read() if m.isfile() else None)
           for m in src.getmembers()]

def entry(name, type=tarfile.REGTYPE, link="", size=0):
    i = tarfile.TarInfo(name)
    i.type, i.linkname, i.mode, i.size = type, link, 0o644, size
    return i

def write(kind, extra, mode="w"):
    out = "h-%s.tar%s" % (kind, ".gz" if mode == "w:gz" else "")
    with tarfile.open(out, mode, format=tarfile.PAX_FORMAT) as t:
        for m, data in members:
            t.addfile(m, io.BytesIO(data) if data is not None else None)
        for info, data in extra:
            if data is not None:
                info.size = len(data) if isinstance(data, bytes) else info.size
                data = io.BytesIO(data) if isinstance(data, bytes) else data
            t.addfile(info, data)

class Zeros:
    """100 MiB of zeros without holding them."""
    left = 100 * 1024 * 1024
    def read(self, n=-1):
        n = self.left if n < 0 else min(n, self.left)
        self.left -= n
        return bytes(n)

dev = entry("znull", tarfile.CHRTYPE)
dev.devmajor, dev.devminor = 1, 3
write("dotdot", [(entry("../../../../escape"), b"pwned")])
write("absolute", [(entry(escape), b"pwned")])
write("symlink", [(entry("zlink", tarfile.SYMTYPE, escape), None),
                  (entry("zlink/evil"), b"pwned")])
write("hardlink", [(entry("zhard", tarfile.LNKTYPE, "/etc/passwd"), None)])
write("device", [(dev, None)])
write("fifo", [(entry("zfifo", tarfile.FIFOTYPE), None)])
write("duplicate", [(entry("README.md"), b"a second README.md\n")])
write("case", [(entry("readme.md"), b"folds onto README.md\n")])
write("big", [(entry("zbig"), bytes(3 * 1024 * 1024))])
write("many", [(entry("zmany/f%02d" % i), b"x") for i in range(50)])
# Past the 64 MiB ratio floor at about 1000:1.
write("bomb", [(entry("zeros", size=Zeros.left), Zeros())], "w:gz")
with zipfile.ZipFile("h-zip.zip", "w") as z:
    for m, data in members:
        if data is not None:
            z.writestr(m.name, data)
    z.writestr("../../../../escape", b"pwned")
# 7 GiB declared, 4 KiB present: by hand, as tarfile would pad it.
with open("h-lying.tar", "wb") as f:
    for m, data in members:
        f.write(m.tobuf(tarfile.PAX_FORMAT))
        if data:
            f.write(data + bytes(-len(data) % 512))
    f.write(entry("zhuge", size=7 * 1024 ** 3).tobuf(tarfile.PAX_FORMAT))
    f.write(b"A" * 4096)
PY
}

setup_file() {
	"$PACKSIGN" install --help >/dev/null 2>&1 || return 0
	cd "$BATS_FILE_TMPDIR"
	ESCAPE="$BATS_FILE_TMPDIR/escape"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	cp -R "$EXAMPLES/$AGENTPACK" pack && chmod -R u+w pack
	"$PACKSIGN" pack pack -o good.tar >/dev/null
	sed -i 's/^version: .*/version: 0.0.9/' pack/manifest.yml
	"$PACKSIGN" pack pack -o old.tar >/dev/null
	make_hostile
}

setup() {
	"$PACKSIGN" install --help >/dev/null 2>&1 ||
	    skip "packsign install is not built yet (the install CLI lands separately)"
	[ -x "$SIGNER" ] || skip "build/tests/ps-testsign missing (make tools)"
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	export PACKSIGN_DATA_DIR="$BATS_TEST_TMPDIR/unused-default"
	cp "$BATS_FILE_TMPDIR"/alice.* "$BATS_FILE_TMPDIR"/good.tar \
	    "$BATS_FILE_TMPDIR"/old.tar .
	D="$BATS_TEST_TMPDIR/data"
	ESCAPE="$BATS_FILE_TMPDIR/escape"
}

# snapshot DIR: type, mode, size, mtime (ns) and path of everything in DIR
# but .lock and .tmp (private work files the next run cleans).
snapshot() {
	(cd "$1" && find . -path ./.lock -prune -o -path ./.tmp -prune -o \
	    -printf '%y %m %s %T@ %p\n' | LC_ALL=C sort -k5)
}

# A data directory that already holds the pack at 0.0.9, below the hostile
# archives' 0.1.0 (so neither the rollback nor the same-version rule
# stops them before their entries are read).
install_good() {
	"$SIGNER" -s alice.key old.tar
	run "$PACKSIGN" install old.tar -p alice.pub --data-dir "$D" --yes
	echo "$output"
	[ "$status" -eq 0 ]
}

# refused KIND CODE [FLAGS...]: installing the hostile KIND archive exits 1
# with CODE, writes nothing outside, leaves the data directory as it was.
refused() {
	local kind=$1 code=$2 name=h-$1.tar before after
	shift 2
	case $kind in bomb) name=h-bomb.tar.gz ;; zip) name=h-zip.zip ;; esac
	cp "$BATS_FILE_TMPDIR/$name" .
	"$SIGNER" -s alice.key --raw-from good.tar "$name"
	before=FRESH
	[ ! -d "$D" ] || before=$(snapshot "$D")
	run "$PACKSIGN" install "$name" -p alice.pub --data-dir "$D" --yes "$@"
	echo "$kind: status $status: $output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[$code]"* ]]
	[ ! -e "$ESCAPE" ] && [ ! -L "$ESCAPE" ]
	[ -z "$(find "$BATS_TEST_TMPDIR" "$BATS_FILE_TMPDIR" -maxdepth 1 \
	    -name 'escape*')" ]
	[ -z "$(find "$D" -name 'evil' -o -name 'zlink' -o -name 'znull' \
	    -o -name 'zhard' -o -name 'zfifo' -o -type l 2>/dev/null)" ]
	# The refused run removed its own work files.
	[ -z "$(ls -A "$D/.tmp" 2>/dev/null)" ]
	if [ "$before" = FRESH ]; then
		# Only the lock and the (emptied) work area may have appeared.
		[ ! -d "$D" ] || [ -z "$(cd "$D" && find . -mindepth 1 \
		    ! -path ./.lock ! -path ./.tmp ! -path './.tmp/*')" ]
		return 0
	fi
	after=$(snapshot "$D")
	[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); false; }
}

@test "install: the unmodified archive installs (baseline for the hostile ones)" {
	install_good
	run "$PACKSIGN" verify --installed "$D/agentpacks/$ID/0.0.9"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "install refuses ../ and absolute paths, nothing written outside" {
	install_good
	refused dotdot name_dot_component
	refused absolute name_absolute
	refused zip name_dot_component
}

@test "install refuses symlink, hardlink, device and FIFO entries" {
	install_good
	refused symlink symlink_refused
	refused hardlink hardlink_refused
	refused device special_file_refused
	refused fifo special_file_refused
}

@test "install refuses duplicate entries and case collisions" {
	install_good
	refused duplicate duplicate_entry
	refused case case_collision
}

@test "install refuses a size over --max-size, a lying 7 GiB header, too many entries" {
	install_good
	refused big extract_too_large --max-size 1048576
	refused many extract_too_many_entries --max-entries 40
	refused lying archive_corrupt
}

@test "install refuses a gzip bomb at the default 200:1 ratio" {
	install_good
	refused bomb extract_ratio_exceeded
}

# Issue 17: a 256 KiB archive once made verify, sign and digest inflate
# gigabytes that install refused.  Every reader holds install's limits,
# with the same options.
@test "verify, digest and sign ARCHIVE hold install's limits and options" {
	local kind code name flags
	while read -r kind code flags; do
		name=h-$kind.tar
		[ "$kind" != bomb ] || name=h-bomb.tar.gz
		cp "$BATS_FILE_TMPDIR/$name" .
		"$SIGNER" -s alice.key --raw-from good.tar "$name"
		for cmd in "verify $name -p alice.pub" "digest $name" \
		    "sign $name -s alice.key --force"; do
			# shellcheck disable=SC2086
			run "$PACKSIGN" $cmd $flags
			echo "$cmd $flags: status $status: $output"
			[ "$status" -eq 1 ]
			[[ "$output" == *"[$code]"* ]]
		done
	done <<-EOF
	bomb extract_ratio_exceeded
	big extract_too_large --max-size 1048576
	many extract_too_many_entries --max-entries 40
	EOF
	# The same archives within raised limits: read to the end.
	run "$PACKSIGN" digest h-many.tar --max-entries 0
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify h-big.tar -p alice.pub --max-size 0
	[ "$status" -eq 0 ]
	run "$PACKSIGN" digest h-many.tar --max-entries -1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--max-entries must be a whole number"*"[usage]"* ]]
}

@test "hostile archives into a fresh data directory leave no pack behind" {
	refused symlink symlink_refused
	refused big extract_too_large --max-size 1048576
	run "$PACKSIGN" list --data-dir "$D"
	[ "$status" -eq 0 ]
	[[ "$output" != *"$ID"* ]]
	[ ! -e "$D/agentpacks" ] || [ -z "$(ls -A "$D/agentpacks")" ]
}

# Not an archive's doing, but the same promise: a data directory whose
# own entries were replaced by symbolic links is not written through.
@test "install writes nothing through symbolic links planted in the data directory" {
	local sub victim
	"$SIGNER" -s alice.key good.tar
	for sub in .tmp agentpacks receipts; do
		rm -rf "$D"
		victim="$BATS_TEST_TMPDIR/victim$sub"
		mkdir -p "$D" "$victim"
		echo precious >"$victim/keep"
		ln -s "$victim" "$D/$sub"
		run "$PACKSIGN" install good.tar -p alice.pub --data-dir "$D" --yes
		echo "$sub: $status: $output"
		[ "$status" -ne 0 ]
		[ "$(ls -A "$victim")" = keep ] && [ "$(cat "$victim/keep")" = precious ]
		[ -L "$D/$sub" ]
		[ -z "$(find "$D" -name '*.json' -o -name '*.sig')" ]
		run "$PACKSIGN" list --data-dir "$D"
		if listed 0.1.0; then false; fi
	done
}

@test "install names the error of a receipts directory it cannot scan (not an empty code)" {
	local receipt="$D/receipts/agentpacks/$ID/0.1.0.json"
	"$SIGNER" -s alice.key good.tar
	"$PACKSIGN" install good.tar -p alice.pub --data-dir "$D" --yes >/dev/null
	echo garbage >"$receipt"
	run "$PACKSIGN" install good.tar -p alice.pub --data-dir "$D" --yes
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == "packsign: $receipt: not a JSON object"*"[receipt_invalid]" ]]
	run --separate-stderr "$PACKSIGN" install good.tar -p alice.pub --data-dir "$D" --yes --json
	[ "$status" -eq 1 ]
	[ "$(jq -r .code <<<"$output")" = receipt_invalid ]
}

# bulk_pack DIR VERSION FILES: the agentpack with FILES extra files.
bulk_pack() {
	cp -R "$EXAMPLES/$AGENTPACK" "$1"
	chmod -R u+w "$1"
	sed -i "s/^version: .*/version: $2/" "$1/manifest.yml"
	mkdir "$1/knowledge/bulk"
	for i in $(seq 1 "$3"); do
		echo "note $i of $1" >"$1/knowledge/bulk/n$i.md"
	done
	"$PACKSIGN" pack "$1" -o "$1.tar.gz" >/dev/null
	"$SIGNER" -s alice.key "$1.tar.gz"
}

# listed VERSION: `list`'s output (in $output) has a line naming the pack
# at VERSION.
listed() {
	grep -F "$ID" <<<"$output" | grep -qF "$1"
}

# listed_consistently VERSION: `list` shows VERSION exactly when its tree
# is in place, and then `verify --installed` passes.
listed_consistently() {
	local tree="$D/agentpacks/$ID/$1"
	run "$PACKSIGN" list --data-dir "$D"
	echo "list: $status: $output"
	[ "$status" -eq 0 ]
	if listed "$1"; then
		[ -d "$tree" ]
		run "$PACKSIGN" verify --installed "$tree"
		echo "verify --installed: $status: $output"
		[ "$status" -eq 0 ]
		return 0
	fi
	[ ! -e "$tree" ]
}

# uninstall_if_present VERSION
uninstall_if_present() {
	[ -d "$D/agentpacks/$ID/$1" ] || return 0
	run "$PACKSIGN" uninstall "$ID@$1" --data-dir "$D"
	echo "uninstall: $status: $output"
	[ "$status" -eq 0 ]
}

# fastest_of_three CMD...: ms, the fastest of three runs of CMD (an install
# of 0.1.0, uninstalled after each), in milliseconds.
fastest_of_three() {
	local k t
	ms=
	for k in 1 2 3; do
		t=$(date +%s%N)
		"$@"
		t=$((($(date +%s%N) - t) / 1000000 + 1))
		[ -n "$ms" ] && [ "$ms" -le "$t" ] || ms=$t
		uninstall_if_present 0.1.0
	done
}

install_from_pipe() {
	"$PACKSIGN" install - --sig bulk.tar.gz.sig -p alice.pub --data-dir "$D" \
	    --yes < <(cat bulk.tar.gz)
}

@test "install killed with SIGKILL at random points: all or nothing, leftovers cleaned" {
	local i pid ms delay killed=0 runs=0 rc
	bulk_pack bulk 0.1.0 300
	# Kill points spread over 1.5 times the fastest of three installs on
	# this machine (one timing, taken while the machine was busy, once put
	# every kill after the end); 20 runs, more (up to 40) until a kill has
	# landed before one ended.
	fastest_of_three "$PACKSIGN" install bulk.tar.gz -p alice.pub \
	    --data-dir "$D" --yes
	for i in $(seq 1 40); do
		[ "$i" -le 20 ] || [ "$killed" -eq 0 ] || break
		runs=$i
		delay=$((RANDOM % (ms * 3 / 2 + 1)))
		"$PACKSIGN" install bulk.tar.gz -p alice.pub --data-dir "$D" \
		    --yes >/dev/null 2>&1 &
		pid=$!
		sleep "$((delay / 1000)).$(printf %03d $((delay % 1000)))"
		kill -9 "$pid" 2>/dev/null || true
		rc=0
		wait "$pid" || rc=$?
		[ "$rc" -ne 137 ] || killed=$((killed + 1))
		listed_consistently 0.1.0
		uninstall_if_present 0.1.0
	done
	echo "# $killed of $runs runs killed before they ended (install: $ms ms)" >&3
	[ "$killed" -gt 0 ]
	run "$PACKSIGN" install bulk.tar.gz -p alice.pub --data-dir "$D" --yes
	echo "$output"
	[ "$status" -eq 0 ]
	listed_consistently 0.1.0
	[ -d "$D/agentpacks/$ID/0.1.0" ]
	[ -z "$(ls -A "$D/.tmp" 2>/dev/null)" ]
	[ "$(find "$D/agentpacks/$ID/0.1.0/knowledge/bulk" -type f | wc -l)" -eq 300 ]
}

# The same from standard input (issue 30): a v2 tar streamed through a
# pipe, each chunk authenticated as it is extracted, killed anywhere.
@test "install - from a pipe killed with SIGKILL at random points: all or nothing" {
	local i pid ms delay killed=0 runs=0 rc
	bulk_pack bulk 0.1.0 300
	"$PACKSIGN" sign bulk.tar.gz -s alice.key --force -q     # v2
	# As above: the fastest of three installs, 12 runs or more (up to 30)
	# until a kill has landed before one ended.
	fastest_of_three install_from_pipe
	for i in $(seq 1 30); do
		[ "$i" -le 12 ] || [ "$killed" -eq 0 ] || break
		runs=$i
		delay=$((RANDOM % (ms * 3 / 2 + 1)))
		"$PACKSIGN" install - --sig bulk.tar.gz.sig -p alice.pub \
		    --data-dir "$D" --yes < <(cat bulk.tar.gz) >/dev/null 2>&1 &
		pid=$!
		sleep "$((delay / 1000)).$(printf %03d $((delay % 1000)))"
		kill -9 "$pid" 2>/dev/null || true
		rc=0
		wait "$pid" || rc=$?
		[ "$rc" -ne 137 ] || killed=$((killed + 1))
		listed_consistently 0.1.0
		uninstall_if_present 0.1.0
	done
	echo "# $killed of $runs runs killed before they ended (install -: $ms ms)" >&3
	[ "$killed" -gt 0 ]
	run "$PACKSIGN" install - --sig bulk.tar.gz.sig -p alice.pub \
	    --data-dir "$D" --yes --json < <(cat bulk.tar.gz)
	[ "$status" -eq 0 ]
	[ "$(jq -r .verify.read.how <<<"$output")" = chunks ]
	listed_consistently 0.1.0
	[ -z "$(ls -A "$D/.tmp" 2>/dev/null)" ]
	[ "$(find "$D/agentpacks/$ID/0.1.0/knowledge/bulk" -type f | wc -l)" -eq 300 ]
}

# Different versions (either may finish second: --allow-downgrade keeps the
# rollback rule out of it), then one archive twice (one run is a no-op).
@test "two installs at once into one data directory both succeed" {
	local round p1 p2 s1 s2 second
	bulk_pack v1 0.1.0 100
	bulk_pack v2 0.2.0 100
	for round in 1 2 3; do
		rm -rf "$D"
		second=v2.tar.gz
		[ "$round" -ne 3 ] || second=v1.tar.gz
		"$PACKSIGN" install v1.tar.gz -p alice.pub --data-dir "$D" --yes \
		    --allow-downgrade >one.out 2>&1 & p1=$!
		"$PACKSIGN" install "$second" -p alice.pub --data-dir "$D" --yes \
		    --allow-downgrade >two.out 2>&1 & p2=$!
		s1=0 s2=0
		wait "$p1" || s1=$?
		wait "$p2" || s2=$?
		cat one.out two.out
		[ "$s1" -eq 0 ] && [ "$s2" -eq 0 ]
		run "$PACKSIGN" list --data-dir "$D"
		echo "$output"
		listed 0.1.0
		[ "$round" -eq 3 ] || listed 0.2.0
		for v in 0.1.0 $([ "$round" -eq 3 ] || echo 0.2.0); do
			run "$PACKSIGN" verify --installed "$D/agentpacks/$ID/$v"
			echo "$output"
			[ "$status" -eq 0 ]
		done
		[ -z "$(ls -A "$D/.tmp" 2>/dev/null)" ]
	done
}
