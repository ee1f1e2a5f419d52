#!/usr/bin/env bats
# scripts/install-deps: --build installs what building and running
# packsign needs (a release job), the default everything make check needs.

load helpers

ROOT="$BATS_TEST_DIRNAME/../.."

setup() {
	command -v dpkg >/dev/null || skip "not a Debian system (no dpkg)"
	cd "$BATS_TEST_TMPDIR"
}

# owner FILE: the Debian package that installed FILE (links resolved).
owner() {
	dpkg -S "$(readlink -f "$1")" 2>/dev/null | sed -n '1s/: .*//p' |
	    sed 's/:.*//'
}

makevar() {
	sed -n "s/^$1 *= *//p" "$ROOT/Makefile" | head -n 1
}

@test "install-deps --build holds the package of every .pc file, header and static archive the build uses" {
	"$ROOT/scripts/install-deps" --build --list >build.list
	linked=$(makevar LINKED_PKGS) loaded=$(makevar LOADED_PKGS)
	[ -n "$linked" ] && [ -n "$loaded" ]
	files=()
	for m in $linked $loaded; do
		files+=("$(pkg-config --path "$m")")
	done
	# build/packsign's static link (Makefile, STATIC_LIBS)
	for l in $(pkg-config --static --libs-only-l $linked) -lunistring; do
		case $l in -lxml2 | -ldl) continue ;; esac
		files+=("$(cc -print-file-name="lib${l#-l}.a")")
	done
	for h in $(makevar DEP_HEADERS); do
		# the file the compiler includes (cc -H: ". PATH" first)
		files+=("$(printf '#include <%s>\n' "$h" | cc -H -E -x c - 2>&1 >/dev/null |
		    sed -n '1s/^\. //p')")
	done
	files+=("$(command -v cc)" "$(command -v pkg-config)" "$(command -v make)")
	for f in "${files[@]}"; do
		[ -e "$f" ] || { echo "missing on this machine: '$f'"; return 1; }
		p=$(owner "$f")
		[ -n "$p" ] || { echo "no package owns $f"; return 1; }
		# cc and make come through build-essential's dependencies
		case $f in */bin/*) p=build-essential ;; esac
		grep -qx "$p" build.list || { echo "$f is $p's, not in --build"; return 1; }
	done
}

@test "install-deps --build leaves out the tests' tools; the default is everything" {
	"$ROOT/scripts/install-deps" --build --list >build.list
	"$ROOT/scripts/install-deps" --list >all.list
	for p in clang valgrind gdb nodejs bats libcmocka-dev cppcheck python3-pytest; do
		! grep -qx "$p" build.list || { echo "--build installs $p"; return 1; }
		grep -qx "$p" all.list
	done
	[ -z "$(comm -23 <(sort build.list) <(sort all.list))" ]
	run "$ROOT/scripts/install-deps" --bogus
	[ "$status" -eq 2 ]
	[[ "$output" == "usage: scripts/install-deps [--build] [--list]" ]]
}
