#!/usr/bin/env bats
# The shell completions against the help the binary prints: every command
# of `packsign help` and every option of `packsign CMD --help` is offered
# by completions/packsign.bash (run in bash) and completions/_packsign
# (read per _packsign_CMD function), and nothing else is (-h/--help aside).

load helpers

COMPLETIONS="$BATS_TEST_DIRNAME/../../completions"

# The help texts are read once: $BATS_FILE_TMPDIR/help/CMD.
setup_file() {
	local cmd
	mkdir "$BATS_FILE_TMPDIR/help"
	"$PACKSIGN" help >"$BATS_FILE_TMPDIR/help/overview"
	for cmd in $(commands); do
		"$PACKSIGN" "$cmd" --help >"$BATS_FILE_TMPDIR/help/$cmd"
		help_options <"$BATS_FILE_TMPDIR/help/$cmd" \
		    >"$BATS_FILE_TMPDIR/help/$cmd.options"
		awk 'NR == 1, /^$/' "$BATS_FILE_TMPDIR/help/$cmd" |
		    sed -nE "s/^(usage:)? *packsign $cmd ([a-z]+).*/\\2/p" |
		    LC_ALL=C sort -u >"$BATS_FILE_TMPDIR/help/$cmd.subs"
	done
}

# commands: the command names `packsign help` lists.
commands() {
	awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }
	    on && /^$/ { exit }' "$BATS_FILE_TMPDIR/help/overview"
}

# help CMD: the text of `packsign CMD --help`.
help() {
	cat "$BATS_FILE_TMPDIR/help/$1"
}

# options CMD: help_options of that text.
options() {
	cat "$BATS_FILE_TMPDIR/help/$1.options"
}

# help_options: the options a help text declares, sorted: every option in
# the synopsis (up to the first blank line) and the leading option names
# of each option line ("  -o, --output OUT   what it does").
help_options() {
	awk 'NR == 1, /^$/ { print; next }
	     /^ +-/ { sub(/^ +/, ""); sub(/  .*/, ""); print }' |
	    grep -oE '(^|[^A-Za-z0-9-])--?[A-Za-z][a-z0-9-]*' |
	    sed -E 's/^[^-]+//' |
	    grep -E '^(--[a-z][a-z0-9-]*[a-z0-9]|-[A-Za-z])$' | LC_ALL=C sort -u
}

# subcommands CMD: the words after "packsign CMD" in its usage lines.
subcommands() {
	cat "$BATS_FILE_TMPDIR/help/$1.subs"
}

# bash_complete WORD...: what the bash completion (sourced into this test
# shell) offers for the last WORD.
bash_complete() {
	# shellcheck source=../../completions/packsign.bash
	source "$COMPLETIONS/packsign.bash"
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_packsign 2>/dev/null
	[ "${#COMPREPLY[@]}" -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" |
	    LC_ALL=C sort -u
}

# bash_options CMD: the options bash offers after CMD (and any of its
# subcommands).
bash_options() {
	local subs sub
	subs=$(subcommands "$1")
	if [ -z "$subs" ]; then
		bash_complete packsign "$1" -
		return
	fi
	for sub in $subs; do
		bash_complete packsign "$1" "$sub" -
	done | LC_ALL=C sort -u
}

# zsh_options CMD: the option specs of _packsign_CMD and of the shared
# arrays ($_packsign_NAME) it expands.
zsh_options() {
	awk -v fn="_packsign_$1() {" '
	    /^_packsign_[a-z]+=\($/ { arr = substr($0, 1, length($0) - 2) }
	    arr != "" { body[arr] = body[arr] "\n" $0 }
	    /^\)$/ { arr = "" }
	    $0 == fn { on = 1 }
	    on { text = text "\n" $0 }
	    on && /^}/ { on = 0 }
	    END {
		for (a in body)
			if (index(text, "$" a) > 0)
				text = text body[a]
		print text
	    }' "$COMPLETIONS/_packsign" |
	    grep -oE "'--?[A-Za-z][a-z0-9-]*\\[" | tr -d "'[" | LC_ALL=C sort -u
}

# same_options WHAT CMD HELP-SET OFFERED-SET: the two sets are equal up to
# -h and --help; prints the difference otherwise.
same_options() {
	local -A want=() got=()
	local w missing="" extra=""
	for w in $3; do want[$w]=1; done
	for w in $4; do got[$w]=1; done
	for w in "${!want[@]}"; do
		[ -n "${got[$w]:-}" ] || missing+=" $w"
	done
	for w in "${!got[@]}"; do
		[ -n "${want[$w]:-}" ] || [ "$w" = -h ] || [ "$w" = --help ] ||
		    extra+=" $w"
	done
	if [ -n "$missing$extra" ]; then
		echo "$1 completion for '$2': missing [$missing ] not in help" \
		    "[$extra ]"
		return 1
	fi
}

@test "bash offers every command and --help, --version first" {
	local want got
	want=$(printf '%s\n' $(commands) --help --version | LC_ALL=C sort -u)
	got=$(bash_complete packsign '')
	[ "$want" = "$got" ]
	[ "$(commands | wc -l)" -ge 12 ]
	run bash_complete packsign ve
	[ "$output" = "$(printf 'verify\nverify-blob')" ]
	run bash_complete packsign verify-
	[ "$output" = verify-blob ]
	[ "$(bash_complete packsign help '')" = "$(commands | LC_ALL=C sort)" ]
}

@test "bash offers exactly the options of every command's --help" {
	local cmd fails=0
	for cmd in $(commands); do
		[ "$cmd" = help ] && continue
		same_options bash "$cmd" "$(options "$cmd")" "$(bash_options "$cmd")" || fails=1
	done
	[ "$fails" -eq 0 ]
}

@test "bash completes key and trust subcommands and their own options" {
	[ "$(bash_complete packsign key '' | grep -v -- --help)" = \
	    "$(subcommands key | LC_ALL=C sort)" ]
	[ "$(bash_complete packsign trust '' | grep -v -- --help)" = check ]
	# Per subcommand: key show takes --json, key pubkey does not.
	bash_complete packsign key show - | grep -qx -- --json
	! bash_complete packsign key pubkey - | grep -qx -- --json
}

@test "bash completes the values of every choice option in a synopsis" {
	local cmd pair opt values n=0
	for cmd in $(commands); do
		[ "$cmd" = help ] && continue
		for pair in $(help "$cmd" | awk 'NR == 1, /^$/' |
		    grep -oE -- '--[a-z-]+ [a-z]+(\|[a-z]+)+'| tr ' ' '='); do
			opt=${pair%%=*} values=${pair#*=}
			[ "$(bash_complete packsign "$cmd" "$opt" '')" = \
			    "$(tr '|' '\n' <<<"$values" | LC_ALL=C sort)" ] ||
			    { echo "$cmd $opt: want $values"; return 1; }
			n=$((n + 1))
		done
	done
	[ "$n" -ge 5 ]   # --compress (2), --kdf, --lang (2)
}

@test "zsh has a function with exactly the options of every command" {
	local cmd fails=0
	for cmd in $(commands); do
		[ "$cmd" = help ] && continue
		grep -qx "_packsign_$cmd() {" "$COMPLETIONS/_packsign" ||
		    { echo "zsh: no _packsign_$cmd"; fails=1; continue; }
		same_options zsh "$cmd" "$(options "$cmd")" "$(zsh_options "$cmd")" || fails=1
	done
	[ "$fails" -eq 0 ]
}

@test "zsh lists every command with a description" {
	local cmd
	for cmd in $(commands); do
		grep -qE "^		'$cmd:[a-z]" "$COMPLETIONS/_packsign" ||
		    { echo "zsh: '$cmd' missing from _packsign_commands"; return 1; }
	done
}

@test "completion files parse in their shells" {
	bash -n "$COMPLETIONS/packsign.bash"
	command -v zsh >/dev/null || skip "zsh is not installed"
	zsh -n "$COMPLETIONS/_packsign"
}
