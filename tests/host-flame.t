#!/usr/bin/env bash
# compare's why from perf's call chains (docs/why.md), on made-up records of
# 3 + 3 boots, 2 runs each, of two kernels whose fork/exec got worse: kernel
# B's fork path grew a frame A never has (rt_spin_lock). The functions'
# self and inclusive shares are tested across boots, the call path that
# moved most is named, the call tree is printed, an A/A pair of one profile
# has nothing called moved (binomial noise, and a function that wanders
# between boots by more than the rest), and the report draws a
# differential flame graph that Chromium renders (a frame's name is
# escaped). Then the folded stacks as hostile input: a stack past the
# length and depth limits, control bytes, empty frames, recursion (a frame
# counted once in its inclusive share), counts that are not counts, more
# samples than the run had, and 4,000 distinct stacks of 80,000 paths, past
# the bound of one experiment: each counted and said, nothing read wrong,
# compare still ends.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
plan 34
export PYTHONPATH=$TOP/tests	# recgen.rec: one record a line on stdout
cat > "$T/gen.py" <<'PY'
import random
from recgen import rec
random.seed(7)
# kernel call chains only (perf --kernel-callchains): a kernel sample's
# stack is the process, then kernel frames; a user-mode sample "comm;[user]"
ENTRY = "forkexec;entry_SYSCALL_64_after_hwframe;do_syscall_64;"
FORK = ENTRY + "__do_sys_fork;kernel_clone;copy_process;dup_mmap;copy_page_range"
EXEC = ENTRY + "__x64_sys_execve;do_execveat_common;bprm_execve;load_elf_binary;begin_new_exec;__mmput;exit_mmap;unmap_vmas;unmap_page_range"
for i in range(6):
    rt = i % 2 == 1
    rel = "6.1.0-57-rt-amd64" if rt else "6.1.0-57-amd64"
    ver = "#1 SMP PREEMPT_RT Debian 6.1.192-3" if rt else "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3"
    rec(i + 1, "boot", {"kernel": {"release": rel, "version": ver}, "mode": "deterministic", "userland": "u" * 64})
    for r in range(2):
        j = lambda n: n + random.randint(-8, 8)
        st = [(FORK, j(400)), (EXEC, j(500)), ("forkexec;asm_exc_page_fault;exc_page_fault;handle_mm_fault;clear_page_erms", j(300)),
              ("true;[user]", j(200)), ("true;<img src=x onerror=alert(1)>", j(20))]
        if rt:
            st.append((FORK + ";rt_spin_lock", j(250)))
        st.append(("swapper;secondary_startup_64;cpu_startup_entry;do_idle;default_idle", 2200 - sum(s for _, s in st)))
        total = sum(s for _, s in st)
        perf = {"asked": True, "frequency": 10000, "unit": "samples", "samples": total, "kernel_samples": total - 200,
                "stacks": [{"stack": a, "samples": b} for a, b in sorted(st, key=lambda x: -x[1])], "other_samples": 0}
        rec(i + 1, "run", {"plan": "t", "workload": "forkexec", "params": {"count": "300"}, "layout": {"name": "tmpfs"},
                           "status": "ok", "metrics": [{"name": "forkexec_us", "value": (900 if rt else 800) + random.random(),
                                                        "unit": "us", "better": "lower"}],
                           "profile": {"samples": 100, "functions": [{"name": "tick_only", "samples": 100, "share": 1.0}]},
                           "perf": perf})
    # touch: better on rt, its fsync path cheaper there
    r2 = random.Random(100 + i)	# its own draws: forkexec's stay as they were
    k = lambda n: n + r2.randint(-8, 8)
    st = [("touch;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_fsync;ext4_sync_file", k(300 if rt else 600)),
          ("touch;[user]", k(300)), ("swapper;secondary_startup_64;cpu_startup_entry;do_idle;default_idle", k(900)),
          ("touch;" + "\u65e5" * 40, k(150))]	# a frame of 120 bytes of UTF-8, its label cut to fit
    total = sum(s for _, s in st)
    rec(i + 1, "run", {"plan": "t", "workload": "touch", "params": {"count": "100"}, "layout": {"name": "tmpfs"},
                       "status": "ok", "metrics": [{"name": "write_fsync", "value": (0.03 if rt else 0.04) + r2.random() / 1e4,
                                                    "unit": "ms", "better": "lower"}],
                       "perf": {"asked": True, "samples": total, "stacks": [{"stack": a, "samples": b} for a, b in st],
                                "other_samples": 0}})
    rec(i + 1, "end", {"status": "ok"})
PY
/usr/bin/python3 "$T/gen.py" > "$T/perf.jsonl"
"$BB" compare "$T/perf.jsonl" --why forkexec@tmpfs > "$T/why" 2> "$T/err"; rc=$?
sed 's/^/# /' "$T/why"
is "$rc" 0 "compare --why forkexec@tmpfs on perf's stacks: exit 0"
ok "the why rests on perf's samples: 6 vs 6 runs of 2200 samples" \
	grep -q 'perf samples with call chains (6 vs 6 runs; 2200 vs 2200 samples a run' "$T/why"
ok "... not on the tick profile the same runs carry" sh -c "! grep -q tick_only '$T/why'"
sect() { sed -n "/$1/,/^   [a-z]/p" "$T/why"; }
self=$(sect 'functions, own samples')
line=$(echo "$self" | grep ' rt_spin_lock')
ok "self: rt_spin_lock 0.0% on the baseline, 11.4% on rt ($line)" \
	sh -c "echo '$line' | grep -Eq '^ +0\.0% +11\.4% +\+11\.4pp [0-9.e-]+ +rt_spin_lock  \(never sampled on the baseline\)'"
ok "... with q < 0.05 across the boots" awk -v q="$(echo "$line" | awk '{print $4}')" 'BEGIN { exit !(q + 0 < 0.05) }'
ok "self: copy_page_range's own share did not move (18.1% and 18.2%, q > 0.05)" \
	sh -c "echo '$self' | awk '\$NF == \"copy_page_range\" && \$1 == \"18.1%\" && \$2 == \"18.2%\" && \$4 > 0.05 { f = 1 } END { exit !f }'"
incl=$(sect 'functions, inclusive')
ok "inclusive: copy_page_range grew with what it called, 18.1% to 29.6%, q < 0.05" \
	sh -c "echo '$incl' | awk '\$NF == \"copy_page_range\" && \$1 == \"18.1%\" && \$2 == \"29.6%\" && \$4 < 0.05 { f = 1 } END { exit !f }'"
ok "inclusive: the entry path holds every system call's samples (40.8% to 52.4%)" \
	sh -c "echo '$incl' | grep -Eq '^ +40\.8% +52\.4% .* entry_SYSCALL_64_after_hwframe$'"
paths=$(sect 'call paths whose share moved most')
first=$(echo "$paths" | sed -n 3p)
ok "the path that moved most is fork's, to rt_spin_lock, named by its last frames ($first)" \
	sh -c "echo '$first' | grep -Eq '^ +0\.0% +11\.4% +\+11\.4pp [0-9.e-]+ +forkexec;\.\.\.;copy_process;dup_mmap;copy_page_range;rt_spin_lock$'"
ok "... and not its parent frames, which only carry the same move" \
	sh -c "! echo '$paths' | grep -Eq 'dup_mmap;copy_page_range$'"
tree=$(sed -n '/call tree/,/where the processes waited/p' "$T/why")
ok "the call tree: fork's chain of frames on one line, rt_spin_lock indented below it" \
	sh -c "echo '$tree' | grep -Eq '^ +18\.1% +29\.6% .* __do_sys_fork;kernel_clone;copy_process;dup_mmap;copy_page_range$' &&
	       echo '$tree' | awk '/__do_sys_fork;/ { i = index(\$0, \"__do\") } /rt_spin_lock\$/ { j = index(\$0, \"rt_spin\") } END { exit !(i && j == i + 2) }'"
ok "... and the idle CPU's share that shrank as fork's grew" \
	grep -Eq '^ +35\.5% +24\.2% +-11\.4pp .* swapper;secondary_startup_64;cpu_startup_entry;do_idle;default_idle$' "$T/why"

"$BB" compare "$T/perf.jsonl" --html "$T/r.html" > /dev/null 2>&1
sed -n '/<svg class="chart flame"/,/<\/svg>/p' "$T/r.html" > "$T/flame"
ok "the report draws a differential flame graph under the regression" \
	sh -c "grep -q 'Differential flame graph of perf.s call paths: 6.1.192 rt against 6.1.192 generic' '$T/r.html' && [ -s '$T/flame' ]"
ok "rt_spin_lock's frame is red (grew, significant), as wide as its share: 11.4% of 1000 px" \
	sh -c "grep -A1 '<title>rt_spin_lock' '$T/flame' | grep -Eq 'width=\"11[34]\.[0-9]\" height=\"16\" fill=\"rgb\(255,'"
ok "default_idle's is blue (shrank), unmap_page_range's grey (no significant move)" \
	sh -c "grep -A1 '<title>default_idle' '$T/flame' | grep -q 'fill=\"rgb([0-9]*,[0-9]*,255)\"' &&
	       grep -A1 '<title>unmap_page_range' '$T/flame' | grep -q 'fill=\"#dcd8cf\"'"
ok "each frame's hover text holds both shares and q" \
	sh -c "grep -A1 '<title>rt_spin_lock' '$T/flame' | grep -Eq '6\.1\.192 generic: 0\.00%, 6\.1\.192 rt: 11\.[0-9]+%, change \+11\.[0-9]+pp, q=[0-9.e-]+</title>'"
ok "a frame named like markup is escaped" sh -c "grep -q '&lt;img src=x' '$T/flame' && ! grep -q '<img' '$T/r.html'"
ok "an improvement gets its why and flame graph too, after the regressions: touch's fsync path, blue" \
	sh -c "awk '/Why \\(forkexec on tmpfs\\)/ { f = NR } /And why the improvements:/ { a = NR } /Why \\(touch on tmpfs\\)/ { t = NR } END { exit !(f && a && t && f < a && a < t) }' '$T/r.html' &&
	       sed -n '/Why (touch on tmpfs)/,\$p' '$T/r.html' | grep -A1 '<title>ext4_sync_file' | grep -q 'fill=\"rgb([0-9]*,[0-9]*,255)\"'"
ok "the report is valid UTF-8: a long multibyte frame's label is cut between characters" \
	/usr/bin/python3 -c "import re, sys; s = open(sys.argv[1], encoding='utf-8').read()
sys.exit(0 if '<title>' + '\\u65e5' * 40 in s and re.search('>(\\u65e5)+[.][.]</text>', s) else 1)" "$T/r.html"
if ! dump_dom "$T/r.html" "$T/dom.html"; then
	skip "chromium not installed (scripts/install-deps installs it)"
else
	ok "Chromium renders the flame graph: its frames' names as text, no element from a frame's name" \
		sh -c "grep -q 'class=\"chart flame\"' '$T/dom.html' && grep -q '>rt_spin_lock</text>' '$T/dom.html' &&
		       grep -q '>copy_page_range</text>' '$T/dom.html' && ! grep -qi '<img' '$T/dom.html'"
fi

# A/A: 3 + 3 boots of one profile, each run 2000 samples drawn at random
# from the same 8 stacks (binomial noise alone), but for one function whose
# share wanders between boots on both kernels (5% +- 4) and sits 2 points
# higher on B: nothing may be called moved, not the wanderer either (its own
# dispersion is larger than the rest's, and it keeps it).
/usr/bin/python3 - > "$T/aa.jsonl" <<'PY'
import random
from recgen import rec
random.seed(11)
stacks = ["w;[user];sys;fork;copy_page_range", "w;[user];sys;fork;dup_mmap", "w;[user];sys;exec;unmap_page_range",
          "w;[user];sys;exec;clear_page_erms", "w;[user];fault;clear_page_erms", "w;[user]", "true;[user]", "swapper;idle"]
weights = [20, 5, 25, 10, 10, 10, 5, 15]
for b in range(6):
    tag = "AB"[b % 2]
    rec(b + 1, "boot", {"kernel": {"release": "6.1.0-57-amd64", "version": "#1"}, "tag": tag, "mode": "deterministic",
                        "userland": "u" * 64})
    wander = random.uniform(0.01, 0.09) + (0.02 if tag == "B" else 0)
    for r in range(2):
        draw = random.choices(stacks, weights=weights, k=2000)
        counts = {s: draw.count(s) for s in stacks}
        counts["w;[user];sys;wanderer"] = int(2000 * wander)
        rec(b + 1, "run", {"plan": "t", "workload": "forkexec", "params": {}, "layout": {"name": "tmpfs"}, "status": "ok",
                           "metrics": [{"name": "forkexec_us", "value": 800 + random.random(), "unit": "us", "better": "lower"}],
                           "perf": {"samples": sum(counts.values()), "stacks": [{"stack": k, "samples": v} for k, v in counts.items()],
                                    "other_samples": 0}})
    rec(b + 1, "end", {"status": "ok"})
PY
"$BB" compare "$T/aa.jsonl" --why forkexec@tmpfs > "$T/aa" 2>/dev/null
sed -n '/functions, own/,/functions, incl/p' "$T/aa" | sed 's/^/# /'
qs=$(awk '/functions, own|functions, incl|call paths whose|call tree/ { on = 1 } /where the processes/ { on = 0 } on && $4 ~ /^[0-9.e-]+$/ { print $4 }' "$T/aa")
ok "A/A: 3 + 3 boots of one profile: no function, inclusive share or path with q < 0.05 ($(echo "$qs" | wc -l) tested)" \
	sh -c "[ $(echo "$qs" | wc -l) -ge 20 ] && echo '$qs' | awk '\$1 + 0 < 0.05 { bad = 1 } END { exit bad }'"
line=$(grep ' wanderer$' "$T/aa" | head -n 1)
ok "... the wanderer, 2 points higher on B but 5 +- 4 between boots, is not called moved ($line)" \
	sh -c "echo '$line' | awk '{ exit !(\$4 + 0 >= 0.05) }'"

# a report's flame graphs share a budget of frames: seven regressions of
# 1500 stacks each (4500 frames a graph) draw 24000 frames in all, the
# sixth in part, the seventh none, each saying so, instead of tens of MB
# of HTML
/usr/bin/python3 - > "$T/wide.jsonl" <<'PY'
from recgen import rec
for b in range(6):
    rt = b % 2
    rec(b + 1, "boot", {"kernel": {"release": "6.1.0-57" + ("-rt" if rt else "") + "-amd64", "version": "#1"},
                        "mode": "deterministic", "userland": "u" * 64})
    for w in range(7):
        st = [{"stack": "w%d;a%d;b%d;c%d" % (w, s, s, s), "samples": 10} for s in range(1500)]
        rec(b + 1, "run", {"plan": "t", "workload": "w%d" % w, "params": {}, "layout": {"name": "tmpfs"}, "status": "ok",
                           "metrics": [{"name": "x", "value": (110.0 if rt else 100.0) + b / 100, "unit": "us", "better": "lower"}],
                           "perf": {"asked": True, "samples": 15000, "stacks": st, "other_samples": 0}})
    rec(b + 1, "end", {"status": "ok"})
PY
"$BB" compare "$T/wide.jsonl" --html "$T/wide.html" > /dev/null 2>&1
ok "seven wide flame graphs: 24000 frames drawn in all; one says what it left out, the last why it has none" \
	sh -c "[ \$(grep -c '<g class=\"fr\">' '$T/wide.html') = 24000 ] &&
	       [ \$(grep -c 'more frames are not drawn: past 6000 a graph or 24000 a report' '$T/wide.html') = 1 ] &&
	       [ \$(grep -c 'No flame graph here: the report has drawn its share of frames' '$T/wide.html') = 1 ]"

# hostile stacks
/usr/bin/python3 - > "$T/bad.jsonl" <<'PY'
from recgen import rec
def run(bid, wl, perf, v=1.0):
    rec(bid, "run", {"plan": "t", "workload": wl, "params": {}, "layout": {"name": "tmpfs"}, "status": "ok",
                     "metrics": [{"name": "x", "value": v, "unit": "us", "better": "lower"}], "perf": perf,
                     "profile": {"samples": 10, "functions": [{"name": "tick_fn", "samples": 10, "share": 1.0}]}})
for b in range(4):
    rt = b % 2
    rec(b + 1, "boot", {"kernel": {"release": "6.1.0-57" + ("-rt" if rt else "") + "-amd64", "version": "#1"},
                        "mode": "deterministic", "userland": "u" * 64})
    # one good stack, then the hostile ones: too long, too deep, a control
    # byte, an empty frame, not a string; recursion a;b;a;b
    st = [{"stack": "p;good", "samples": 10},
          {"stack": "p;" + "x" * 5000, "samples": 10},
          {"stack": ";".join(["p"] + ["f%d" % i for i in range(80)]), "samples": 10},
          {"stack": "p;a\u0001b", "samples": 10},
          {"stack": "p;;b", "samples": 10},
          {"stack": 7, "samples": 10},
          {"stack": "p;rec;leaf;rec;leaf;rec", "samples": 40}]
    run(b + 1, "junk", {"samples": 100, "stacks": st, "other_samples": 0})
    # counts that are not counts, and more samples than the run had: unread
    run(b + 1, "nan", {"samples": 100, "stacks": [{"stack": "p;a", "samples": -5}]})
    run(b + 1, "over", {"samples": 100, "stacks": [{"stack": "p;a", "samples": 90}], "other_samples": 20})
    # 4,100 stacks in one run: the 4 past 4096 are not read, and said
    past = [{"stack": "q;f%d" % n, "samples": 1} for n in range(4100)]
    run(b + 1, "past", {"samples": 4100, "stacks": past, "other_samples": 0})
    # a run that asked for perf and got none, with a tick profile: unprofiled
    # (its tick shares never share a cell with perf's); the other runs perf
    if b == 1:
        run(b + 1, "mixed", {"asked": True, "available": False, "reason": "perf would not start"})
    else:
        run(b + 1, "mixed", {"asked": True, "samples": 100, "stacks": [{"stack": "m;perf_fn", "samples": 100}], "other_samples": 0})
    # the deepest stack the appliance writes: the process, [deeper], 64 frames
    run(b + 1, "deeper", {"samples": 10, "stacks": [{"stack": "p;[deeper];" + ";".join("d%d" % i for i in range(64)),
                                                     "samples": 10}], "other_samples": 0})
    # perf on one kernel, the tick on the other: not compared
    if b % 2:
        rec(b + 1, "run", {"plan": "t", "workload": "kinds", "params": {}, "layout": {"name": "tmpfs"}, "status": "ok",
                           "metrics": [{"name": "x", "value": 1.0, "unit": "us", "better": "lower"}],
                           "profile": {"samples": 10, "functions": [{"name": "tick_fn", "samples": 10, "share": 1.0}]}})
    else:
        run(b + 1, "kinds", {"asked": True, "samples": 10, "stacks": [{"stack": "k;perf_fn", "samples": 10}], "other_samples": 0})
    # 4,000 distinct stacks of 20 frames: 80,000 paths, past the bound of one experiment
    many = [{"stack": ";".join(["w", "s%d" % s] + ["d%d" % d for d in range(19)]), "samples": 1} for s in range(4000)]
    run(b + 1, "many", {"samples": 4000, "stacks": many, "other_samples": 0})
    rec(b + 1, "end", {"status": "ok"})
PY
timeout 300 "$BB" compare "$T/bad.jsonl" --why junk > "$T/junk" 2> "$T/junk.err"; rc=$?
sed 's/^/# /' "$T/junk.err"
is "$rc" 0 "compare reads hostile stacks and ends (exit 0)"
ok "the stacks that were not folded lines are counted and said: 5 a run, 20 in all" \
	grep -q 'warning: 20 perf stacks were not folded lines' "$T/junk.err"
ok "... their samples are in no function: good's own share is 10% of the run's 100 samples" \
	grep -Eq '^ +10\.0% +10\.0% .* good$' "$T/junk"
ok "recursion: rec is counted once in its inclusive share (40%, not 120%), leaf's too (40%)" \
	sh -c "sed -n '/inclusive/,/call paths/p' '$T/junk' | grep -Eq '^ +40\.0% +40\.0% .* rec$' &&
	       sed -n '/inclusive/,/call paths/p' '$T/junk' | grep -Eq '^ +40\.0% +40\.0% .* leaf$' &&
	       ! grep -Eq '1[0-9]{2}\.[0-9]%' '$T/junk'"
ok "counts that are not counts, and stacks of more samples than the run: those runs unread, and said" \
	grep -q 'warning: 8 profiles whose shares (or perf stacks) add up to more than all their samples, or whose counts were not counts, were not read' "$T/junk.err"
ok "80,000 paths in one experiment: those past the bound are cut, and said" \
	grep -Eq 'warning: [0-9]+ perf samples. and 0 us of off-CPU time.s call paths were cut short: past 65536 paths in one experiment' "$T/junk.err"
ok "the stacks past 4096 in a run are counted and said: 4 a run, 16 in all" \
	grep -q 'warning: 16 perf stacks were past the first 4096 of their run' "$T/junk.err"
"$BB" compare "$T/bad.jsonl" --why mixed > "$T/mixed" 2>/dev/null
ok "a run that asked for perf and got none is unprofiled: rt's why rests on its one perf run, no tick share" \
	sh -c "grep -q 'perf samples with call chains (2 vs 1 runs' '$T/mixed' && grep -q perf_fn '$T/mixed' && ! grep -q tick_fn '$T/mixed'"
"$BB" compare "$T/bad.jsonl" --why deeper > "$T/deeper" 2>/dev/null
ok "the appliance's deepest stack (the process, [deeper], 64 frames) is read: d63 is its leaf" \
	grep -Eq '^ +100\.0% +100\.0% .* d63$' "$T/deeper"
"$BB" compare "$T/bad.jsonl" --why kinds > "$T/kinds" 2>/dev/null
ok "perf's shares on one kernel and the tick's on the other are not compared, and that is said" \
	sh -c "grep -q 'one kernel.s runs were sampled by perf (shares of all samples, every CPU), the other.s by the tick' '$T/kinds' &&
	       ! grep -q 'never sampled' '$T/kinds'"
"$BB" compare "$T/bad.jsonl" --why many > "$T/many" 2>/dev/null
ok "... while every run and function of them is still counted: d18 is every stack's leaf (100% self)" \
	sh -c "grep -q 'perf samples with call chains (2 vs 2 runs; 4000 vs 4000 samples a run' '$T/many' &&
	       grep -Eq '^ +100\.0% +100\.0% .* d18$' '$T/many'"
done_testing
