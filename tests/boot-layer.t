#!/usr/bin/env bash
# Layers: an archive of its own (the PostgreSQL layer) that a boot carries
# only when asked (scripts/boot-qemu --layer): the boot record names the
# layer and the build that made it; a boot without it names none; a
# network boot (iPXE over TFTP, scripts/pxe-root --layer) carries it too; a
# layer that was not built is refused before QEMU starts.
. "$(dirname "$0")/lib.sh"
k=debian-6.1-generic
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
[ -f "$B/postgresql.cpio.gz" ] || skip_all "the postgresql layer is not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
plan 5
img=$T/results.img
"$BB" mkresults "$img" --size 16M 2>/dev/null
boot "$k" "$T/with.log" --results "$img" --layer postgresql; a=$?
boot "$k" "$T/without.log" --results "$img"; b=$?
boot "$k" "$T/pxe.log" --results "$img" --pxe --layer postgresql; c=$?
is "$a$b$c" 000 "three boots of $k: with the postgresql layer, without, and with it over PXE; all power off"
"$BB" collect "$img" 2>/dev/null | jq -c 'select(.type == "boot") | .data.layers' > "$T/layers"
sed 's/^/# layers: /' "$T/layers"
read -r _ ver key < "$B/postgresql-stage/etc/bootbench/layers/postgresql"
is "$(sed -n 1p "$T/layers")" "{\"postgresql\":{\"package\":\"postgresql-15\",\"version\":\"$ver\",\"build\":\"$key\"}}" \
	"the boot with it: its record names the layer, its version and build key"
is "$(sed -n 2p "$T/layers")" "{}" "the boot without it: no layer"
is "$(sed -n 3p "$T/layers")" "$(sed -n 1p "$T/layers")" "the network boot: iPXE loaded the layer after the userland, the record names the same build"
"$TOP/scripts/boot-qemu" "$k" --layer nosuch --workdir "$T/w" > /dev/null 2> "$T/err"; rc=$?
is "$rc:$(cat "$T/err")" "100:boot-qemu: --layer nosuch: no $B/nosuch.cpio.gz (make layer NAME=nosuch builds it)" \
	"a layer that was not built: refused, QEMU never started"
done_testing
