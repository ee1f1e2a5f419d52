# The local Sigstore (tests/sigstore) as loopback https servers for the
# tests that sign against it.  Nothing leaves 127.0.0.1: callers unset
# every proxy variable (sigstore_env).

# python_sigstore_or_skip: skips without python3-cryptography (fails under CI).
python_sigstore_or_skip() {
	if python3 -c 'import cryptography' >/dev/null 2>&1; then
		return 0
	fi
	if [ "${CI:-}" = true ]; then
		echo "CI=true: no python3 with cryptography (scripts/install-deps)" >&2
		return 1
	fi
	skip "no python3 with cryptography (scripts/install-deps installs it)"
}

# sigstore_serve DIR [ARGS...]: starts tests/sigstore/serve DIR ARGS in the
# background, waits at most 20 s for DIR/ready; sets SIGSTORE_PID and
# SIGSTORE_URL.  Stop it with sigstore_stop.
sigstore_serve() {
	local dir=$1
	shift
	mkdir -p "$dir"
	rm -f "$dir/ready"
	PYTHONDONTWRITEBYTECODE=1 python3 "$BATS_TEST_DIRNAME/../sigstore/serve" \
	    "$dir" "$@" 3>&- &
	SIGSTORE_PID=$!
	for _ in $(seq 200); do
		[ -e "$dir/ready" ] && break
		sleep 0.1
	done
	[ -e "$dir/ready" ]
	# shellcheck disable=SC2034 # read by the callers
	SIGSTORE_URL=$(cat "$dir/url")
}

# sigstore_stop: ends the server sigstore_serve started, by its id.
sigstore_stop() {
	if [ -n "${SIGSTORE_PID:-}" ]; then
		kill "$SIGSTORE_PID" 2>/dev/null || true
		wait "$SIGSTORE_PID" 2>/dev/null || true
		SIGSTORE_PID=
	fi
}

sigstore_env() {
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
	unset no_proxy NO_PROXY
}
