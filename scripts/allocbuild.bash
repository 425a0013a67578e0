# bash completion for allocbuild: commands, each command's options, the
# labels of an OUTDIR, and files. Installed by `make install` as
# share/bash-completion/completions/allocbuild. It reads the commands and
# options from allocbuild itself (`allocbuild help`, `allocbuild help CMD`),
# so it never drifts from the binary it completes.

# the commands, from `allocbuild help`
_allocbuild_commands() {
	"${1:-allocbuild}" help 2>/dev/null | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}

# a command's options, from its usage, and those every command takes
_allocbuild_options() {
	{ "$1" help "$2" 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*\|\(^\|[[ ]\)-[a-zA-Z]\b' | tr -d '[ '
	  printf '%s\n' -q --quiet -v --verbose -h --help; } | sort -u
}

# what the option $3 of command $2 takes, as its usage names it ("LABEL",
# "table|csv|json|md", "PATH"), or nothing when it takes no value
_allocbuild_optarg() {
	"$1" help "$2" 2>/dev/null | grep -o -- "$3[ =][A-Za-z0-9|._-]*" | head -n 1 | sed 's/^[^ =]*[ =]//'
}

# the labels of the OUTDIR named earlier on the line: only what a recipe
# may call a label (letters, digits, '.', '_', '-'), whatever a received
# OUTDIR's file holds, so that nothing read there is ever expanded
_allocbuild_labels() {
	local w
	for w in "${COMP_WORDS[@]:2:COMP_CWORD-2}"; do
		if [ -f "$w/provenance/build-commands.json" ]; then
			grep -o '"label":[[:space:]]*"[^"]*"' "$w/provenance/build-commands.json" |
				sed 's/.*"\([^"]*\)"$/\1/' | LC_ALL=C grep -x '[A-Za-z0-9._-]*[A-Za-z0-9_-][A-Za-z0-9._-]*' | sort -u
			return
		fi
	done
}

# the words of the list (one per line) that start with $1, into COMPREPLY:
# no expansion of either (compgen -W would expand $(...) in a word)
_allocbuild_match() {
	local w
	COMPREPLY=()
	while IFS= read -r w; do
		[[ -n $w && $w == "$1"* ]] && COMPREPLY+=("$w")
	done
}

_allocbuild() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} ab=${COMP_WORDS[0]} cmd
	COMPREPLY=()
	if [ "$COMP_CWORD" -eq 1 ]; then
		_allocbuild_match "$cur" < <(_allocbuild_commands "$ab"; printf '%s\n' help --version)
		return
	fi
	cmd=${COMP_WORDS[1]}
	if [ "$cmd" = help ]; then
		_allocbuild_match "$cur" < <(_allocbuild_commands "$ab")
		return
	fi
	if [[ $cur == -* ]]; then
		_allocbuild_match "$cur" < <(_allocbuild_options "$ab" "$cmd")
		return
	fi
	# the value of an option: labels for a LABEL, the choices of a|b|c, files for a path, else nothing
	if [[ $prev == -* ]]; then
		local arg
		arg=$(_allocbuild_optarg "$ab" "$cmd" "$prev")
		case $arg in
		'') ;;
		LABEL)
			_allocbuild_match "$cur" < <(_allocbuild_labels)
			return ;;
		*'|'*)
			_allocbuild_match "$cur" < <(tr '|' '\n' <<<"$arg")
			return ;;
		*PATH*|*FILE*|*DIR*|*OUTDIR*|*.pem|*.json|RECORD|RECIPE|KEY*|PUB*)
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			compopt -o filenames 2>/dev/null
			return ;;
		*)
			return ;;
		esac
	fi
	case $cmd in
	env|run|probe|relink|compare)
		_allocbuild_match "$cur" < <(_allocbuild_labels)
		[ ${#COMPREPLY[@]} -gt 0 ] && return
		;;
	esac
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	compopt -o filenames 2>/dev/null
}
complete -F _allocbuild allocbuild
