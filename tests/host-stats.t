#!/usr/bin/env bash
# analysis/stats against scipy on a few hundred seeded random cases: Welch's test
# and CI on sample pairs of 2 to 30 runs, the t CDF and two-sided tail over
# df 0.5 to 1e6, critical values for alpha down to 1e-12, normal quantiles
# down to 1e-300. The cases go through build/tests/stats.t --driver; each
# group must agree to 1e-6 relative (a CI bound: relative to the interval's
# reach |diff| + half-width), and its largest error is printed.
# Needs scipy in /usr/bin/python3 (python3-scipy), the table tests in
# tests/unit/stats.c do not.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
DRV=$B/tests/stats.t
[ -x "$DRV" ] || skip_all "not built (run make build/tests/stats.t)"
"$PY" -c 'import scipy.stats' 2>/dev/null || skip_all "no scipy in $PY (apt-get install python3-scipy)"
plan 5

"$PY" - "$DRV" <<'PY'
import math, subprocess, sys
import numpy as np
from scipy import stats as s

rng = np.random.default_rng(20240611)
reqs, refs, groups = [], [], []

# ref: the values, or (values, scales) where an error is relative to the
# scale: a CI bound near 0 is only as precise as the interval is wide.
def add(group, req, ref):
    groups.append(group); reqs.append(req); refs.append(ref if isinstance(ref, tuple) else (ref, ref))

for _ in range(200):
    na, nb = (int(v) for v in rng.choice([2, 3, 3, 4, 5, 8, 10, 20, 30], 2))
    mean = 10 ** rng.uniform(0, 2)
    a = np.array([float('%.6g' % v) for v in rng.normal(mean, mean * 10 ** rng.uniform(-3, -0.7), na)])
    shift = mean * rng.choice([0, 0.001, 0.01, 0.05, 0.3])
    b = np.array([float('%.6g' % v) for v in rng.normal(mean + shift, mean * 10 ** rng.uniform(-3, -0.7), nb)])
    r = s.ttest_ind(b, a, equal_var=False)
    va, vb = a.var(ddof=1) / na, b.var(ddof=1) / nb
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    q = s.t.isf(0.025, df) * (va + vb) ** 0.5
    d = b.mean() - a.mean()
    add('welch', 'welch %d %d %s %s' % (na, nb, ' '.join(map(repr, a)), ' '.join(map(repr, b))),
        ([r.statistic, df, r.pvalue, d - q, d + q], [r.statistic, df, r.pvalue, abs(d) + q, abs(d) + q]))
for _ in range(200):
    df = 10 ** rng.uniform(-0.3, 6)
    t = rng.choice([-1, 1]) * 10 ** rng.uniform(-3, 1.5)
    add('cdf', 'cdf %r %r' % (t, df), [s.t.cdf(t, df)])
for _ in range(100):
    df = 10 ** rng.uniform(-0.3, 6)
    t = 10 ** rng.uniform(-3, 3)
    add('p2', 'p2 %r %r' % (t, df), [2 * s.t.sf(t, df)])
for _ in range(100):
    alpha, df = 10 ** rng.uniform(-12, math.log10(0.5)), 10 ** rng.uniform(0, 5)
    add('crit', 'crit %r %r' % (alpha, df), [s.t.isf(alpha / 2, df)])
for _ in range(100):
    p = 10 ** rng.uniform(-300, math.log10(0.5))
    p = p if rng.uniform() < 0.5 else 1 - p
    add('z', 'z %r' % p, [s.norm.ppf(p)])

out = subprocess.run([sys.argv[1], '--driver'], input='\n'.join(reqs) + '\n',
                     capture_output=True, text=True)
lines = out.stdout.splitlines()
if out.returncode != 0 or len(lines) != len(reqs):
    print('# driver failed: exit %d, %d of %d lines' % (out.returncode, len(lines), len(reqs)))
    lines += ['nan nan nan nan nan'] * (len(reqs) - len(lines))

worst, bad = {}, {}
for g, req, ref, line in zip(groups, reqs, refs, lines):
    got = [float(v) for v in line.split()]
    for x, w, scale in zip(got, *ref):
        if x == w:
            err = 0.0
        elif math.isinf(w) or math.isnan(w) or math.isinf(x) or math.isnan(x):
            err = math.inf
        elif w == 0 or abs(w) < 1e-290:	# underflow in scipy or us
            err = 0.0 if abs(x - w) <= 1e-12 else math.inf
        else:
            err = abs(x - w) / abs(scale)
        if err > worst.get(g, (-1,))[0]:
            worst[g] = (err, req, x, w)
        if not err <= 1e-6:
            bad.setdefault(g, []).append((req, x, w))
n = 0
for g in ('welch', 'cdf', 'p2', 'crit', 'z'):
    n += 1
    count = groups.count(g)
    print('%sok %d - %s: %d seeded cases agree with scipy to 1e-6' % ('not ' if g in bad else '', n, g, count))
    err, req, x, w = worst[g]
    print('#   largest relative error %.3g (%s: got %.17g, scipy %.17g)' % (err, req[:60], x, w))
    for req, x, w in bad.get(g, [])[:5]:
        print('#   %s: got %.17g, scipy %.17g' % (req[:80], x, w))
sys.exit(1 if bad else 0)
PY
