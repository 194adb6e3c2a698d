#!/usr/bin/env bash
# The userland: every shipped tool runs and makes filesystems the other tools
# accept (rootfs/check-userland), and a clean rebuild gives the same bytes.
. "$(dirname "$0")/lib.sh"
[ -f "$B/userland.cpio.gz" ] && [ -x "$B/bootbench.static" ] || skip_all "userland not built (run make)"
plan 5
out=$(rootfs/check-userland "$B" 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
is "$rc" 0 "rootfs/check-userland: $(echo "$out" | tail -1)"
mkdir -p "$T/out"
ov=; [ -d rootfs/overlay ] && ov=rootfs/overlay
rootfs/build-userland "$T/out" "$B/bootbench.static" $ov >/dev/null 2>"$T/err"; rc=$?
is "$rc" 0 "a clean rebuild into an empty directory succeeds"
is "$(sha256sum < "$T/out/userland.cpio.gz")" "$(sha256sum < "$B/userland.cpio.gz")" \
	"the clean rebuild is byte-identical (reproducible)"
if [ -f "$B/postgresql.cpio.gz" ]; then
	rootfs/build-userland --layer postgresql "$T/out" >/dev/null 2>"$T/lerr"
	is "$(sha256sum < "$T/out/postgresql.cpio.gz" 2>/dev/null)" "$(sha256sum < "$B/postgresql.cpio.gz")" \
		"... and so is the PostgreSQL layer, built on request (--layer) against it"
else
	skip "the postgresql layer is not built (make layers; make check builds it)"
fi
size=$(stat -c %s "$B/userland.cpio.gz")
ok "compressed userland $size bytes is within the 8 MiB target" test "$size" -le 8388608
done_testing
