#!/usr/bin/env bash
# The harness itself: scripts/tap-summary (CI's "N passed, N failed, N
# skipped" line) counts a skip as a skip and a "not ok ... # TODO" as a
# failure; tests/timeout-run gives each test file a deadline, fails it with a
# "not ok" line when it is passed, and otherwise passes its status through.
. "$(dirname "$0")/lib.sh"
plan 9
cat > "$T/log" <<'TAP'
tests/a.t ..
1..5
ok 1 - passes
not ok 2 - fails
not ok 3 - not done yet # TODO later
ok 4 # SKIP no kernel
ok 5 - passes too
ok
tests/b.t .. 1..0 # SKIP not built
1..0 # SKIP not built
not ok - tests/c.t timed out after 5 s (tests/timeout-run)
TAP
is "$(scripts/tap-summary "$T/log")" "2 passed, 3 failed, 2 skipped" \
	"tap-summary: TODO and timed-out lines are failures, skips are not passes"
is "$(printf 'ok 1\n' | scripts/tap-summary)" "1 passed, 0 failed, 0 skipped" "tap-summary reads standard input"

printf '#!/bin/sh\necho 1..1\nsleep 30\necho ok 1\n' > "$T/slow.t"
printf '#!/bin/sh\n# timeout: 1\necho 1..1\nsleep 30\necho ok 1\n' > "$T/slowhdr.t"
printf '#!/bin/sh\necho 1..1\necho "ok 1 - $1"\nexit 3\n' > "$T/quick.t"
chmod +x "$T"/*.t
t0=$(date +%s)
out=$(TEST_TIMEOUT=1 tests/timeout-run "$T/slow.t"); rc=$?
is "$rc" 124 "timeout-run: a test past TEST_TIMEOUT fails with status 124"
ok "... within its deadline ($(( $(date +%s) - t0 )) s)" test $(( $(date +%s) - t0 )) -lt 15
is "$(echo "$out" | tail -n 1)" "not ok - $T/slow.t timed out after 1 s (tests/timeout-run)" "... and says so in TAP"
out=$(tests/timeout-run "$T/slowhdr.t"); rc=$?
is "$rc" 124 "timeout-run: a '# timeout: N' line in the test sets its deadline"
out=$(tests/timeout-run "$T/quick.t" arg); rc=$?
is "$rc" 3 "timeout-run: a test's own exit status passes through"
is "$out" "$(printf '1..1\nok 1 - arg')" "... and its output and arguments"
grep -q 'prove --exec $(CURDIR)/tests/timeout-run' Makefile
ok "the Makefile runs every test file through timeout-run" test $? = 0
done_testing
