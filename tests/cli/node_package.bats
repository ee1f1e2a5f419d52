#!/usr/bin/env bats
# What a user of the Node.js binding gets: `npm pack` of bindings/node,
# installed offline into a fresh directory against an installed
# libpacksign (make install into a temporary prefix, found through its
# packsign.pc), built by the package's own install script against the
# running Node's headers, and used from there without LD_LIBRARY_PATH.

load helpers
bats_require_minimum_version 1.5.0

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

setup_file() {
	if readelf -d "$PACKSIGN" | grep -q 'libasan'; then
		export SKIP_REASON="the plain build is packaged, not build/asan"
	elif ! command -v npm >/dev/null; then
		export SKIP_REASON="no npm (scripts/install-deps installs it)"
	fi
	BUILD_REL=$(realpath --relative-to="$ROOT" "$(dirname "$PACKSIGN")")
	export BUILD_REL
}

setup() {
	if [ -n "${SKIP_REASON:-}" ]; then
		if [ "${CI:-}" = true ] && [ "${SKIP_REASON#no npm}" != "$SKIP_REASON" ]; then
			echo "CI=true: $SKIP_REASON" >&2
			return 1
		fi
		skip "$SKIP_REASON"
	fi
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	unset PACKSIGN_DATA_DIR PACKSIGN_INCLUDEDIR PACKSIGN_LIBDIR
}

@test "npm pack of bindings/node installs offline into a fresh directory and works there" {
	local prefix=$BATS_TEST_TMPDIR/prefix tgz
	make -C "$ROOT" --no-print-directory BUILD="$BUILD_REL" install \
	    PREFIX="$prefix" >/dev/null
	run npm pack "$ROOT/bindings/node" --pack-destination "$BATS_TEST_TMPDIR" \
	    --silent
	[ "$status" -eq 0 ]
	tgz=$BATS_TEST_TMPDIR/${lines[-1]}
	[ -f "$tgz" ]
	# The package holds its sources and nothing built or fetched.
	run tar -tzf "$tgz"
	[ "$status" -eq 0 ]
	[[ "$output" == *package/src/call.c* ]]
	[[ "$output" == *package/index.d.ts* ]]
	[[ "$output" == *package/scripts/build.js* ]]
	[[ "$output" != *package/build/* ]]
	[[ "$output" != *node_modules* ]]
	[[ "$output" != *package/test/* ]]
	mkdir app && cd app
	printf '{"name":"app","version":"1.0.0","private":true}\n' >package.json
	# Offline, through a proxy that answers nothing: any download fails.
	HOME=$BATS_TEST_TMPDIR/home npm_config_cache=$BATS_TEST_TMPDIR/cache \
	    npm_config_proxy=http://127.0.0.1:9 \
	    npm_config_https_proxy=http://127.0.0.1:9 \
	    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" \
	    npm install --offline --no-audit --no-fund "$tgz" >npm.log 2>&1 ||
	    { cat npm.log; false; }
	run readelf -d node_modules/packsign/build/Release/packsign.node
	[[ "$output" == *"RUNPATH"*"[$prefix/lib]"* ]]
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	cp -R "$ROOT/examples/packs/research.top-journal-reviewer" pack
	chmod -R u+w pack
	"$PACKSIGN" sign pack -s alice.key -o p.tar.gz >/dev/null
	run node -e '
	    const p = require("packsign");
	    p.verify("p.tar.gz", { publicKey: "alice.pub" }).then((r) => {
	      console.log(r.ok, r.id, p.libraryVersion().library);
	    });'
	[ "$status" -eq 0 ]
	[ "$output" = "true research.top-journal-reviewer 0.1.0" ]
}
