#!/usr/bin/env bats
# The benchmark's programs (bench/): the batch dataset generator and the
# timing harness, both built by `make tools`.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	GENPACKS=$(dirname "$PACKSIGN")/bench/genpacks
	RUNMANY=$(dirname "$PACKSIGN")/bench/runmany
}

@test "genpacks: distinct packs that packsign verify and the real minisign -V accept" {
	command -v minisign >/dev/null || skip "minisign is not installed"
	"$GENPACKS" g 3
	[ "$(wc -l <g/list)" -eq 3 ]
	while read -r f; do
		minisign -V -q -p g/m.pub -m "$f"
		"$PACKSIGN" verify "$f" -p g/k.pub -q
	done <g/list
	[ "$(sha256sum g/packs/*.tar | cut -d' ' -f1 | sort -u | wc -l)" -eq 3 ]
	# Another key's signature is refused by both.
	"$PACKSIGN" keygen --no-passphrase --identity other -o other >/dev/null
	run minisign -V -q -p other.pub -m g/packs/p00000.tar
	[ "$status" -ne 0 ]
	run "$PACKSIGN" verify g/packs/p00000.tar -p other.pub -q
	[ "$status" -eq 1 ]
}

@test "genpacks: the same bytes on every run and in any directory" {
	"$GENPACKS" a 4
	"$GENPACKS" "$BATS_TEST_TMPDIR/b" 4
	diff -r -x list a b
	sed "s|/a/|/b/|" a/list | diff - b/list
}

@test "runmany: one line per command, and a failing command stops it loudly" {
	run "$RUNMANY" -n 3 -w 0 -- true --- sh -c 'exit 0'
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == "cmd=0 runs=3 median_s="* ]]
	[[ ${lines[1]} == "cmd=1 runs=3 median_s="*" max_rss_kib="* ]]
	run "$RUNMANY" -n 3 -- true --- sh -c 'echo broken >&2; exit 3'
	[ "$status" -eq 1 ]
	[[ $output == *"exit status 3"* ]]
	[[ $output == *broken* ]]
}

@test "runmany: a command's tmpfs and memfd memory (Shmem) counts in its peak" {
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] ||
	    skip "/dev/shm is not tmpfs here"
	run "$RUNMANY" -n 1 -w 0 --no-sync -- sh -c \
	    "head -c 33554432 /dev/zero >/dev/shm/ps-bench-$$; sleep 0.2; rm /dev/shm/ps-bench-$$"
	echo "$output"
	[ "$status" -eq 0 ]
	shmem=$(sed -n 's/.* shmem_kib=\([0-9]*\).*/\1/p' <<<"$output")
	rss=$(sed -n 's/.* max_rss_kib=\([0-9]*\).*/\1/p' <<<"$output")
	# 32 MiB written to tmpfs: no RSS of the shell's, all Shmem.
	[ "$shmem" -ge 30000 ]
	[ "$rss" -ge "$shmem" ]
	[ ! -e "/dev/shm/ps-bench-$$" ]
}

@test "net_server.py /stream/: the install URL rows' server sends a file whole, with its length, and 404 otherwise" {
	command -v curl >/dev/null || skip "curl is not installed"
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -days 1 \
	    -keyout srv.key -out srv.pem 2>/dev/null
	mkdir www
	head -c 3145829 /dev/urandom >www/a.tar     # 3 MiB and a bit
	python3 "$BATS_TEST_DIRNAME/net_server.py" www srv.pem \
	    srv.key port 3>&- &
	pid=$!
	for i in $(seq 100); do [ -s port ] && break; sleep 0.1; done
	port=$(cat port)
	run curl -sS -D headers --cacert srv.pem -o got "https://127.0.0.1:$port/stream/a.tar"
	code=$(curl -s -o /dev/null -w '%{http_code}' --cacert srv.pem \
	    "https://127.0.0.1:$port/stream/missing.tar")
	kill "$pid"
	[ "$status" -eq 0 ]
	cmp got www/a.tar
	grep -qi '^content-length: 3145829' headers
	[ "$code" = 404 ]
}
