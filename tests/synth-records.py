#!/usr/bin/env python3
"""Seeded synthetic bootbench records for the verdict tests (host-verdicts.t).

Two kernels, A (release 6.1.0-A) and B (6.1.0-B), each booted --boots times
(interleaved A B A B ...), each boot running workload w on layout l --runs
times; every run carries --figures figures f0, f1, ... whose value is

    base * (1 + effect, on B only and the first --changed figures) * (1 + boot_cov * z_boot) * (1 + run_cov * z_run)

with z_boot drawn once a boot and figure and z_run once a run and figure,
from the chosen --shape: normal, bimodal (-1 or +1, as the TCG read that is
either fast or slow), t3 (Student t, 3 df, scaled to unit sd), lognormal.
--better sets every figure's direction word ("" for none). --spaced writes
the JSON with spaces after separators, as Python's json.dumps does by
default. The records are what the appliance writes, in its shape, not copies.
"""
import argparse
import json
import math
import random
import sys


def draw(rng, shape):
    if shape == "normal":
        return rng.gauss(0, 1)
    if shape == "bimodal":
        return 1.0 if rng.random() < 0.5 else -1.0
    if shape == "t3":
        # t(3) has variance 3: scaled to unit sd
        z = rng.gauss(0, 1)
        chi2 = sum(rng.gauss(0, 1) ** 2 for _ in range(3))
        return z / math.sqrt(chi2 / 3) / math.sqrt(3)
    if shape == "lognormal":
        s = 0.5
        v = math.exp(rng.gauss(0, s))
        mean, sd = math.exp(s * s / 2), math.sqrt((math.exp(s * s) - 1) * math.exp(s * s))
        return (v - mean) / sd
    raise SystemExit("unknown shape " + shape)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--boots", type=int, default=3, help="boots a kernel")
    p.add_argument("--runs", type=int, default=1, help="runs a boot")
    p.add_argument("--figures", type=int, default=10)
    p.add_argument("--effect", type=float, default=0.0, help="B's relative change, e.g. 0.1")
    p.add_argument("--changed", type=int, default=-1, help="the effect on the first N figures only (default all)")
    p.add_argument("--boot-cov", type=float, default=0.0)
    p.add_argument("--run-cov", type=float, default=0.01)
    p.add_argument("--shape", default="normal", choices=["normal", "bimodal", "t3", "lognormal"])
    p.add_argument("--better", default="lower")
    p.add_argument("--base", type=float, default=100.0)
    p.add_argument("--mode", default="wallclock")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--spaced", action="store_true")
    a = p.parse_args()
    rng = random.Random(a.seed)
    sep = (", ", ": ") if a.spaced else (",", ":")
    out = sys.stdout
    for b in range(a.boots):
        for k in ("A", "B") if b % 2 == 0 else ("B", "A"):
            bid = "%s%031d" % (k.lower(), b + 1)
            out.write(json.dumps({"seq": 1, "boot_id": bid, "type": "boot",
                                  "data": {"kernel": {"release": "6.1.0-" + k, "version": "#1"},
                                           "mode": a.mode}}, separators=sep) + "\n")
            zb = [draw(rng, a.shape) for _ in range(a.figures)]
            for r in range(a.runs):
                metrics = []
                for f in range(a.figures):
                    moved = k == "B" and (a.changed < 0 or f < a.changed)
                    v = a.base * (1 + (a.effect if moved else 0))
                    v *= (1 + a.boot_cov * zb[f]) * (1 + a.run_cov * draw(rng, a.shape))
                    metrics.append({"name": "f%d" % f, "value": round(v, 6), "unit": "ms", "better": a.better})
                out.write(json.dumps({"seq": r + 2, "boot_id": bid, "type": "run",
                                      "data": {"workload": "w", "layout": {"name": "l"}, "status": "ok",
                                               "metrics": metrics}}, separators=sep) + "\n")


if __name__ == "__main__":
    main()
