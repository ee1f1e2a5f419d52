# bash completion for packsign(1)
# Installed as share/bash-completion/completions/packsign.  Needs nothing
# but bash; tests/cli/completions.bats checks that every command and option
# `packsign help` and `packsign CMD --help` declare is offered here.

_packsign_commands="pack digest sign keygen key verify verify-blob diff install
    fetch outdated update index list uninstall trust validate describe help"

# _packsign_options CMD [SUB]: the options of a command (of a key
# subcommand); a trailing '=' is never used: values are separate words.
_packsign_options() {
	local checks="--sig --trust -p --signed-by --source-repo --source-commit
	    --require-source --allow-dirty --at"
	local pass="--passphrase-file --passphrase-fd"
	local limits="--max-size --max-entries --max-ratio"
	local download="--ca-file --max-download --timeout"
	case $1 in
	pack) echo "-o --output --compress --mtime --json" ;;
	digest) echo "--json --files --mtime $limits" ;;
	sign) echo "-s --secret-key -o --output --identity --minisig --bundle
	    --tsa-url --ca-file --keyless --identity-token --signing-config
	    --trusted-root --predicate-version --predicate-out --source-repo
	    --source-commit --allow-dirty --append --force
	    --mtime --compress --json $pass $limits" ;;
	keygen) echo "-o --identity --no-passphrase $pass --kdf --force --json" ;;
	key) _packsign_key_options "$2" ;;
	index) _packsign_index_options "$2" ;;
	verify) echo "$checks --rebuild-from --deep --installed --data-dir
	    --format --bundle --trusted-root --files-from --jobs --json
	    $limits" ;;
	verify-blob) echo "--bundle --certificate-identity
	    --certificate-oidc-issuer --key --trusted-root --at --json" ;;
	diff) echo "--trust -p --at --old-sig --new-sig --old-bundle --new-bundle --signed-by
	    --source-repo --source-commit --require-source --allow-dirty
	    --installed --data-dir --format --lang --json --stat --files
	    --lines" ;;
	install) echo "$checks --data-dir --yes --allow-shell
	    --allow-downgrade --dry-run --reinstall --accept --accept-diff
	    --allow-signer-change --allow-source-change $limits $download
	    --lang --json --index --allow-yanked --require-index-state
	    --from-dir --bundle" ;;
	fetch) echo "$checks -o $limits $download" ;;
	outdated) echo "--index --trust -p --data-dir --no-widening-check --at
	    --require-index-state --json $download" ;;
	update) echo "--index --trust -p --data-dir --dry-run --yes --accept
	    --allow-shell --allow-signer-change --allow-source-change
	    --require-index-state --at --lang --signed-by --source-repo
	    --source-commit --require-source --allow-dirty --json --from-dir
	    $limits $download" ;;
	list) echo "--data-dir --verify --json --index --trust -p $download" ;;
	uninstall) echo "--data-dir --format --forget --json" ;;
	trust) echo "--trust -p --sigstore --trusted-root --at --json" ;;
	validate) echo "--format --strict --engine-version --json" ;;
	describe) echo "--lang --json" ;;
	esac
	# Every command: the help, and -q (nothing printed on success).
	echo "-h --help -q --quiet"
}

_packsign_key_options() {
	local pass="--passphrase-file --passphrase-fd"
	case $1 in
	show) echo "--json $pass" ;;
	pubkey) echo "-s -o --identity $pass --force" ;;
	passwd) echo "-s --no-passphrase $pass --new-passphrase-file
	    --new-passphrase-fd --kdf --json" ;;
	export) echo "--pem --pem-pub --ssh-pub -s -p -o --no-passphrase
	    $pass --force" ;;
	import) echo "--pem -o --identity --no-passphrase $pass --kdf
	    --force --json" ;;
	esac
}

_packsign_index_options() {
	local pass="--passphrase-file --passphrase-fd"
	local write="-o -s --secret-key --identity --expires --at $pass"
	case $1 in
	build) echo "$write --previous --base-url --url-prefix --trust -p --bundle" ;;
	yank) echo "$write --reason" ;;
	remove | refresh) echo "$write" ;;
	verify) echo "--trust -p --at --record --require-index-state
	    --data-dir --json --ca-file --max-download --timeout" ;;
	esac
}

# _packsign_value OPTION: completes the value OPTION takes; returns 1 when
# OPTION takes none.
_packsign_value() {
	case $1 in
	--compress) COMPREPLY=($(compgen -W "none gzip zstd" -- "$cur")) ;;
	--kdf) COMPREPLY=($(compgen -W "sensitive interactive" -- "$cur")) ;;
	--lang) COMPREPLY=($(compgen -W "en zh" -- "$cur")) ;;
	--accept) COMPREPLY=($(compgen -W "permissions trust prompts code" \
	    -- "$cur")) ;;
	--format) COMPREPLY=($(compgen -W "soyapack holon autograph agentpack" \
	    -- "$cur")) ;;
	--data-dir | --rebuild-from)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -d -- "$cur")) ;;
	-o | --output | -s | --secret-key | -p | --sig | --trust | \
	--old-sig | --new-sig | --old-bundle | --new-bundle | --accept-diff | --ca-file | \
	--passphrase-file | --new-passphrase-file | --index | --previous | \
	--bundle | --key | --trusted-root | --identity-token | --signing-config)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	--mtime | --identity | --source-repo | --source-commit | \
	--signed-by | --at | --passphrase-fd | --new-passphrase-fd | \
	--max-size | --max-entries | --max-ratio | --engine-version | \
	--installed | --lines | --max-download | --timeout | \
	--base-url | --url-prefix | --expires | --reason | \
	--certificate-identity | --certificate-oidc-issuer | --tsa-url)
		COMPREPLY=() ;;
	*) return 1 ;;
	esac
}

_packsign() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd=${COMP_WORDS[1]:-} sub=${COMP_WORDS[2]:-}

	COMPREPLY=()
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$_packsign_commands --help --version" \
		    -- "$cur"))
		return
	fi
	case $cmd in
	help)
		[ "$COMP_CWORD" -eq 2 ] &&
		    COMPREPLY=($(compgen -W "$_packsign_commands" -- "$cur"))
		return ;;
	key | trust | index)
		if [ "$COMP_CWORD" -eq 2 ]; then
			case $cmd in
			key) sub="show pubkey passwd export import" ;;
			trust) sub=check ;;
			index) sub="build yank remove refresh verify" ;;
			esac
			COMPREPLY=($(compgen -W "$sub --help" -- "$cur"))
			return
		fi ;;
	esac
	_packsign_value "$prev" && return
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_packsign_options "$cmd" "$sub")" \
		    -- "$cur"))
		return
	fi
	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -f -- "$cur"))
}

complete -F _packsign packsign
