#!/usr/bin/env bash
# compare's off-CPU view (docs/why.md, "Where it blocked"), on made-up
# records of 3 + 3 boots, 2 runs each: a reader on a ramdisk blocks for its
# reads on both kernels, and on rt it also blocks on a sleeping spinlock
# (rt_spin_lock -> rt_mutex_slowlock): the time blocked there is new. The
# paths' shares of the time blocked are tested across boots with the
# blocks as the count; the path that moved is named, the call tree is
# printed beside the waits' totals, and the report draws the off-CPU flame
# graph, which Chromium renders. An A/A pair has nothing called moved; a
# baseline whose records predate the view says so; the test counts blocks,
# not microseconds (one move of shares is significant from 50,000 blocks,
# not from 5); hostile off-CPU members (stacks that are not the total,
# negative counts, time without blocks, another unit, not an object,
# stacks that are not folded lines) are counted and said, never read wrong.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
plan 18
export PYTHONPATH=$TOP/tests	# recgen.rec: one record a line on stdout
cat > "$T/gen.py" <<'PY'
import random, sys
from recgen import rec
random.seed(int(sys.argv[1]))
aa = sys.argv[2] == "aa"	# both sides one profile
old_base = sys.argv[2] == "old"	# the baseline's records have no offcpu member
READ = "reader;entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_read;blkdev_read_iter;filemap_read;folio_wait_bit;io_schedule;schedule"
SLEEP = "reader;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_nanosleep;do_nanosleep;schedule"
LOCK = "reader;entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_read;blkdev_read_iter;rt_spin_lock;rt_mutex_slowlock;schedule"
KWORK = "kworker/0:1;ret_from_fork;kthread;worker_thread;schedule"
for i in range(6):
    rt = i % 2 == 1 and not aa
    tag = "AB"[i % 2]
    rel = "6.1.0-57-rt-amd64" if rt else "6.1.0-57-amd64"
    rec(i + 1, "boot", {"kernel": {"release": rel, "version": "#1"}, "tag": tag, "mode": "deterministic", "userland": "u" * 64})
    for r in range(2):
        j = lambda us, n: (int(us * random.uniform(0.9, 1.1)), n)
        st = [(READ, j(40000, 400)), (SLEEP, j(10000, 10)), (KWORK, j(5000, 50))]
        if rt:
            st.append((LOCK, j(15000, 300)))
        perf = {"asked": True, "frequency": 6000, "unit": "samples", "samples": 1000, "kernel_samples": 900,
                "stacks": [{"stack": "reader;entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_read;copy_to_user", "samples": 1000}],
                "other_samples": 0}
        if not (old_base and not i % 2):
            perf["offcpu"] = {"unit": "us", "us": sum(s[0] for _, s in st), "blocks": sum(s[1] for _, s in st),
                              "stacks": [{"stack": a, "us": s[0], "blocks": s[1]} for a, s in st],
                              "other_us": 0, "other_blocks": 0, "preempted": 3, "unfinished": 1, "unfinished_us": 100, "unpaired": 0}
        rec(i + 1, "run", {"plan": "t", "workload": "reader", "params": {}, "layout": {"name": "ramdisk"}, "status": "ok",
                           "metrics": [{"name": "read_mb_s", "value": (800 if rt else 1000) + random.random(),
                                        "unit": "MB/s", "better": "higher"}],
                           "pressure": {"io_some_us": 1000}, "perf": perf})
    rec(i + 1, "end", {"status": "ok"})
PY
/usr/bin/python3 "$T/gen.py" 3 ab > "$T/ab.jsonl"
"$BB" compare "$T/ab.jsonl" --why reader@ramdisk > "$T/why" 2> "$T/err"; rc=$?
sed 's/^/# /' "$T/why"
is "$rc" 0 "compare --why reader@ramdisk: exit 0"
off=$(sed -n '/where the tasks blocked, off-CPU/,$p' "$T/why")
ok "the off-CPU view: 6 vs 6 runs, the ms blocked and the blocks a run" \
	grep -Eq 'where the tasks blocked, off-CPU .*6 vs 6 runs; 5[0-9]\.[0-9] vs 7[0-9]\.[0-9] ms blocked and 460 vs 760 blocks a run' "$T/why"
ok "... after the waits' totals (beside them, not instead)" \
	awk '/where the processes waited/ { w = NR } /where the tasks blocked, off-CPU/ { o = NR } END { exit !(w && o && w < o) }' "$T/why"
first=$(echo "$off" | sed -n '/call paths whose share moved most/,/call tree/p' | sed -n 3p)
ok "the path that moved most: the rt lock's, named by its last frames, q < 0.05, 0 to ~15 ms a run ($first)" \
	sh -c "echo '$first' | grep -Eq '^ +0\.0% +2[0-9]\.[0-9]% +\+2[0-9]\.[0-9]pp [0-9.e-]+ +reader;\.\.\.;blkdev_read_iter;rt_spin_lock;rt_mutex_slowlock;schedule  \(0\.0 -> 1[4-6]\.[0-9] ms a run\)$' &&
	       echo '$first' | awk '{ exit !(\$4 + 0 < 0.05) }'"
tree=$(echo "$off" | sed -n '/call tree/,$p')
ok "the call tree: the read's chain on one line, the lock's and io_schedule's below blkdev_read_iter" \
	sh -c "echo '$tree' | grep -q 'blkdev_read_iter\$' && echo '$tree' | grep -q ' filemap_read;folio_wait_bit;io_schedule;schedule\$' &&
	       echo '$tree' | grep -q ' rt_spin_lock;rt_mutex_slowlock;schedule\$'"
ok "... io_schedule's time a run did not move (~40 ms), though its share shrank as the lock's grew" \
	grep -Eq 'io_schedule;schedule  \((39|40|41)\.[0-9] -> (39|40|41)\.[0-9] ms a run\)$' "$T/why"
ok "... the kworker's share of the time blocked shrank as the lock's grew, its own path" \
	sh -c "echo '$tree' | grep -Eq '^ +[0-9.]+% +[0-9.]+% +-[0-9.]+pp .* kworker/0:1;ret_from_fork;kthread;worker_thread;schedule$'"

"$BB" compare "$T/ab.jsonl" --html "$T/r.html" > /dev/null 2>&1
ok "the report draws the off-CPU flame graph under the regression, rt against generic" \
	grep -q 'Differential flame graph of where the tasks blocked (off-CPU: .*): 6.1.0-57-rt-amd64 \[B\] against 6.1.0-57-amd64 \[A\]' "$T/r.html"
sed -n '/where the tasks blocked (off-CPU/,/<\/svg>/p' "$T/r.html" > "$T/flame"
ok "... rt_mutex_slowlock's frame red (grew, significant), its hover text both shares and q" \
	sh -c "grep -A1 '<title>rt_mutex_slowlock' '$T/flame' | grep -q 'fill=\"rgb(255,' &&
	       grep -A1 '<title>rt_mutex_slowlock' '$T/flame' | grep -Eq ': 0\.00%, .*: 2[0-9]\.[0-9]+%, change \+2[0-9]\.[0-9]+pp, q=[0-9.e-]+</title>'"
if ! dump_dom "$T/r.html" "$T/dom.html"; then
	skip "chromium not installed (scripts/install-deps installs it)"
else
	ok "Chromium renders it: the blocked path's frames as text" \
		sh -c "grep -q 'where the tasks blocked (off-CPU' '$T/dom.html' && grep -q '>rt_mutex_slowlock</text>' '$T/dom.html'"
fi

# A/A: one profile both sides, 10% jitter a stack a run
/usr/bin/python3 "$T/gen.py" 5 aa > "$T/aa.jsonl"
"$BB" compare "$T/aa.jsonl" --why reader@ramdisk > "$T/aa" 2>&1
qs=$(sed -n '/where the tasks blocked, off-CPU/,$p' "$T/aa" | awk '$4 ~ /^[0-9.e-]+$/ { print $4 }')
ok "A/A: no off-CPU path with q < 0.05 ($(echo "$qs" | grep -c .) tested)" \
	sh -c "[ $(echo "$qs" | grep -c .) -ge 5 ] && echo '$qs' | awk '\$1 + 0 < 0.05 { bad = 1 } END { exit bad }'"

# the baseline's records from before the view: said, not guessed
/usr/bin/python3 "$T/gen.py" 3 old > "$T/old.jsonl"
"$BB" compare "$T/old.jsonl" --why reader@ramdisk > "$T/old" 2>&1
ok "a baseline without off-CPU records: the view is on this kernel only, said" \
	grep -q 'where the tasks blocked: recorded on this kernel only' "$T/old"

# the blocks are the count, not the microseconds: one difference in
# shares (X 50% -> 53%, 1% jitter), once from 5 blocks a path a run (a few
# long waits: not significant), once from 50,000 (significant)
cat > "$T/count.py" <<'PY'
import random, sys
from recgen import rec
random.seed(9)
n = int(sys.argv[1])
for i in range(6):
    b = i % 2
    rec(i + 1, "boot", {"kernel": {"release": "6.1.0-57" + ("-rt" if b else "") + "-amd64", "version": "#1"},
                        "mode": "deterministic", "userland": "u" * 64})
    for r in range(2):
        x = int((56500 if b else 50000) * random.uniform(0.99, 1.01))
        y = int(50000 * random.uniform(0.99, 1.01))
        off = {"unit": "us", "us": x + y, "blocks": 2 * n, "other_us": 0, "other_blocks": 0,
               "stacks": [{"stack": "w;sys;X;schedule", "us": x, "blocks": n}, {"stack": "w;sys;Y;schedule", "us": y, "blocks": n}]}
        rec(i + 1, "run", {"plan": "t", "workload": "w", "params": {}, "layout": {"name": "l"}, "status": "ok",
                           "metrics": [{"name": "x", "value": 1.0 + b, "unit": "us", "better": "lower"}],
                           "perf": {"asked": True, "samples": 10, "stacks": [{"stack": "w;f", "samples": 10}], "other_samples": 0,
                                    "offcpu": off}})
    rec(i + 1, "end", {"status": "ok"})
PY
for n in 5 50000; do
	/usr/bin/python3 "$T/count.py" $n > "$T/count$n.jsonl"
	"$BB" compare "$T/count$n.jsonl" --why w@l 2>/dev/null | sed -n '/where the tasks blocked, off-CPU/,$p' |
		awk '$5 == "w;sys;X;schedule" { print $4; exit }' > "$T/q$n"
done
ok "50% -> 53% of the time blocked from 5 blocks a path a run: not significant (q=$(cat "$T/q5"))" \
	awk -v q="$(cat "$T/q5")" 'BEGIN { exit !(q != "" && q + 0 >= 0.05) }'
ok "... the same shares from 50,000 blocks: significant (q=$(cat "$T/q50000"))" \
	awk -v q="$(cat "$T/q50000")" 'BEGIN { exit !(q != "" && q + 0 < 0.05) }'

# hostile off-CPU members
/usr/bin/python3 - > "$T/bad.jsonl" <<'PY'
from recgen import rec
def run(bid, wl, off):
    rec(bid, "run", {"plan": "t", "workload": wl, "params": {}, "layout": {"name": "tmpfs"}, "status": "ok",
                     "metrics": [{"name": "x", "value": 1.0 + bid / 100, "unit": "us", "better": "lower"}],
                     "perf": {"asked": True, "samples": 10, "stacks": [{"stack": "p;f", "samples": 10}], "other_samples": 0,
                              "offcpu": off}})
for b in range(4):
    rec(b + 1, "boot", {"kernel": {"release": "6.1.0-57" + ("-rt" if b % 2 else "") + "-amd64", "version": "#1"},
                        "mode": "deterministic", "userland": "u" * 64})
    run(b + 1, "over", {"us": 100, "blocks": 2, "stacks": [{"stack": "p;schedule", "us": 90, "blocks": 1}], "other_us": 20})
    run(b + 1, "neg", {"us": 100, "blocks": 2, "stacks": [{"stack": "p;schedule", "us": -5, "blocks": 1}]})
    run(b + 1, "notobj", "all of it")
    run(b + 1, "nototal", {"stacks": [{"stack": "p;schedule", "us": 5, "blocks": 1}]})
    # time without blocks, stacks far short of the total, another unit
    run(b + 1, "noblocks", {"us": 100, "blocks": 0, "stacks": [{"stack": "p;schedule", "us": 100, "blocks": 0}], "other_us": 0})
    run(b + 1, "short", {"us": 10**12, "blocks": 2, "stacks": [{"stack": "p;schedule", "us": 10, "blocks": 1}], "other_us": 0})
    run(b + 1, "ns", {"unit": "ns", "us": 100, "blocks": 1, "stacks": [{"stack": "p;schedule", "us": 100, "blocks": 1}], "other_us": 0})
    run(b + 1, "junk", {"us": 100, "blocks": 3, "stacks": [{"stack": "p;good;schedule", "us": 50, "blocks": 1},
                                                           {"stack": "p;;x", "us": 25, "blocks": 1},
                                                           {"stack": "p;a\u0001b", "us": 25, "blocks": 1}]})
    rec(b + 1, "end", {"status": "ok"})
PY
timeout 120 "$BB" compare "$T/bad.jsonl" --why junk > "$T/junk" 2> "$T/junk.err"; rc=$?
sed 's/^/# /' "$T/junk.err"
is "$rc" 0 "compare reads hostile off-CPU members and ends (exit 0)"
ok "members that are not objects, whose stacks are not their total, with a negative time, no total, time but no blocks, or another unit are unread and counted (28)" \
	grep -Eq 'warning: 28 profiles? .*not read' "$T/junk.err"
ok "stacks that are not folded lines are counted (8, with the 0 of perf's own)" \
	grep -q 'warning: 8 perf stacks were not folded lines' "$T/junk.err"
ok "... their time is in no path: good's share is 50% of the time blocked" \
	sh -c "sed -n '/where the tasks blocked, off-CPU/,\$p' '$T/junk' | grep -Eq '^ +50\.0% +50\.0% .* p;good;schedule$'"
done_testing
