# tests/lib.sh - shell TAP helpers for the host and boot tests.
# Source it from a test; it cd's to the repository top.
# SKIP is reported as such (never a pass): prove counts it separately.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
B=$TOP/build
BB=$B/bootbench
_n=0 _failed=0
plan() { echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
pass() { _n=$((_n + 1)); echo "ok $_n - $*"; }
fail() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $*"; }
ok() { # ok DESCRIPTION COMMAND...
	local d=$1; shift
	if "$@"; then pass "$d"; else fail "$d"; fi
}
is() { # is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then pass "$3"; else fail "$3"; echo "#   got:  '$1'"; echo "#   want: '$2'"; fi
}
skip() { _n=$((_n + 1)); echo "ok $_n # SKIP $*"; }
diag() { printf '# %s\n' "$@"; }
done_testing() { [ "$_failed" = 0 ]; exit $?; }
# A scratch directory removed at exit.
T=$(mktemp -d "${TMPDIR:-/tmp}/bootbench-test.XXXXXX")
[ -n "${KEEP:-}" ] && echo "# keeping $T" || trap 'rm -rf "$T"' EXIT
need_kernel() { [ -f "$B/kernels/$1/vmlinuz" ]; }
# boot NAME LOG [boot-qemu options...]: boot, return boot-qemu's status
# A failed boot leaves its evidence in the TAP output (the test's directory
# is gone afterwards): boot-qemu's verdict and the console's last lines.
boot() {
	local k=$1 log=$2 rc; shift 2
	"$TOP/scripts/boot-qemu" "$k" --accel "${BOOTBENCH_ACCEL:-tcg}" --timeout "${BOOT_TIMEOUT:-240}" \
		--workdir "$T/work-$k-$$-$RANDOM" --log "$log" "$@" >/dev/null 2>"$log.err"
	rc=$?
	if [ "$rc" != 0 ]; then
		echo "# boot of $k exited $rc: $(tail -n 1 "$log.err" 2>/dev/null)"
		tail -n 25 "$log" 2>/dev/null | tr -d '\r' | cut -c1-200 | sed 's/^/#   | /'
	fi
	return "$rc"
}
# all_true FILE FILTER: FILTER (a jq expression giving a boolean per JSON
# line) was true at least once and never false.
all_true() { jq -s -e "[.[] | $2] | length > 0 and all" "$1" >/dev/null; }
