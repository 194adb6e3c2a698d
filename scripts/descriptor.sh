# descriptor.sh - sourced by scripts/fetch-kernel and scripts/build-kernel:
# reads a kernel descriptor (kernels/NAME.kernel) without executing it.
# KEY=value lines, optional double or single quotes around the value, '#'
# comments; sets D_<KEY> for every known key (empty when absent). The caller
# defines die_input and warn, and validates what its kind needs.
parse_descriptor() {
	local file=$1 line key val n=0
	[ -r "$file" ] || die_input "unable to read descriptor $file (see scripts/fetch-kernel --list)"
	D_NAME= D_KIND= D_PACKAGE= D_VERSION= D_SHA256= D_FLAVOUR= D_DESCRIPTION= D_DIR=
	D_CONFIG_BASE= D_CONFIG_FRAGMENT= D_TREE=
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case $line in '' | '#'*) continue ;; esac
		[[ $line =~ ^([A-Z][A-Z0-9_]*)=(.*)$ ]] || die_input "$file:$n: not a KEY=value line: $line"
		key=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		if [[ $val =~ ^\"(.*)\"$ || $val =~ ^\'(.*)\'$ ]]; then val=${BASH_REMATCH[1]}; fi
		case $key in
		NAME | KIND | PACKAGE | VERSION | SHA256 | FLAVOUR | DESCRIPTION | DIR | \
			CONFIG_BASE | CONFIG_FRAGMENT | TREE)
			printf -v "D_$key" '%s' "$val" ;;
		*) warn "$file:$n: unknown key $key ignored" ;;
		esac
	done <"$file"
}
