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
# dump_dom HTML OUT: headless Chromium's DOM of a report into OUT; 1 when
# there is no chromium (the caller skips, saying so)
dump_dom() {
	local chrome
	chrome=$(command -v chromium) || return 1
	timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chrome-$$-$RANDOM" --dump-dom "file://$1" > "$2" 2>/dev/null
	return 0
}
# all_true FILE FILTER: FILTER (a jq expression giving a boolean per JSON
# line) was true at least once and never false.
all_true() { jq -s -e "[.[] | $2] | length > 0 and all" "$1" >/dev/null; }
# Synthetic records for confirmation rounds (host-confirm.t, host-pxe.t):
# round R of kernels A and B: one boot each (B A on even rounds), 3 runs of
# workload w on layout l with figures "moved" (B is EFFECT higher) and
# "same" (no change); noise: CoV 1%, seeded by the round
synth_round() { # synth_round FILE R EFFECT
	awk -v r="$2" -v eff="$3" 'function g() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }
	BEGIN { srand(1000 + r); n = split((r % 2) ? "A B" : "B A", ks, " ")
		for (i = 1; i <= n; i++) {
			k = ks[i]; id = sprintf("%s%031d", k == "A" ? "a" : "b", r)
			printf "{\"seq\":1,\"boot_id\":\"%s\",\"type\":\"boot\",\"data\":{\"kernel\":{\"release\":\"6.1.0-%s\",\"version\":\"#1\"},\"tag\":\"%s\",\"mode\":\"deterministic\"}}\n", id, k, k
			for (j = 1; j <= 3; j++) {
				f = (k == "B") ? 1 + eff : 1
				printf "{\"seq\":%d,\"boot_id\":\"%s\",\"type\":\"run\",\"data\":{\"workload\":\"w\",\"layout\":{\"name\":\"l\"},\"status\":\"ok\",\"metrics\":[{\"name\":\"moved\",\"value\":%.4f,\"unit\":\"ms\",\"better\":\"lower\"},{\"name\":\"same\",\"value\":%.4f,\"unit\":\"ms\",\"better\":\"lower\"}]}}\n", j + 1, id, 100 * f * (1 + 0.01 * g()), 50 * (1 + 0.01 * g())
				printf "{\"seq\":%d,\"boot_id\":\"%s\",\"type\":\"run\",\"data\":{\"workload\":\"v\",\"layout\":{\"name\":\"l\"},\"status\":\"ok\",\"metrics\":[{\"name\":\"wild\",\"value\":%.4f,\"unit\":\"ms\",\"better\":\"lower\"}]}}\n", j + 10, id, 10 * (1 + 0.5 * g())
			}
		}
	}' >>"$1"
}
