# A throwaway CA, certificates and the loopback HTTPS server
# (tests/cli/net_server.py) for the tests that download.  Nothing leaves
# 127.0.0.1: callers unset every proxy variable.  $F is the directory the
# certificates, the server's port file and its docroot www/ live in.

# ca NAME: a self-signed CA NAME.pem / NAME.key.
ca() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -subj "/CN=$1" -days 2 -keyout "$1.key" -out "$1.pem" 2>/dev/null
}

# cert NAME SAN CA: a key and a certificate for SAN signed by CA.
cert() {
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -subj "/CN=$1" -keyout "$1.key" -out "$1.csr" 2>/dev/null
	printf 'subjectAltName=%s\n' "$2" >"$1.ext"
	openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" \
	    -CAcreateserial -days 2 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
}

# serve CERT PORTVAR: starts a server of $F/www with CERT; sets PORTVAR
# and PORTVAR_PID.  Readiness: the port file, polled for at most 10 s.
serve() {
	local cert=$1 var=$2 i
	rm -f "$F/$var.port"
	python3 "$BATS_TEST_DIRNAME/net_server.py" "$F/www" "$F/$cert.pem" \
	    "$F/$cert.key" "$F/$var.port" 3>&- &
	eval "${var}_PID=$!"
	for i in $(seq 100); do
		[ -s "$F/$var.port" ] && break
		sleep 0.1
	done
	[ -s "$F/$var.port" ]
	eval "$var=$(cat "$F/$var.port")"
}

# net_stop: teardown_file of a file whose setup_file served and wrote
# $BATS_FILE_TMPDIR/server.env (PORT, PORT_PID).
net_stop() {
	# shellcheck disable=SC1091
	. "$BATS_FILE_TMPDIR/server.env"
	kill "$PORT_PID" 2>/dev/null || true
}

# net_env: no proxy variable reaches packsign; PORT from server.env.
net_env() {
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
	unset no_proxy NO_PROXY
	# shellcheck disable=SC1091
	. "$BATS_FILE_TMPDIR/server.env"
}
