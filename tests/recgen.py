"""Synthetic bootbench records for the host tests' Python generators:
rec(boot, type, data) writes one record line to stdout, boot ids as 32 hex
digits of the number given, seq counting up across the whole output."""
import json
import sys

_seq = 0


def rec(boot, rtype, data):
    global _seq
    _seq += 1
    sys.stdout.write(json.dumps({"seq": _seq, "boot_id": "%032x" % boot, "type": rtype, "data": data}) + "\n")
