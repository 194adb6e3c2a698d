# Shared build environment for every recipe in this directory. It is sourced
# (after build-userland has set SRC, OUT, TOOLS and JOBS) in a subshell, in the
# unpacked source tree, just before the recipe's recipe_build function runs.
# Its text is part of every recipe's hash, so a change here rebuilds everything.

# Debian's own convention: the last changelog entry dates the build. Busybox
# puts the config timestamp in its banner; others stamp archives or man pages.
if [ -f debian/changelog ]; then
	SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -S Timestamp)
	export SOURCE_DATE_EPOCH
fi

# $TOOLS/cc is musl-gcc plus the kernel headers musl lacks (see build-userland).
export CC="$TOOLS/cc"
export AR=ar RANLIB=ranlib STRIP=strip
export CFLAGS="-O2"
export CPPFLAGS=
export LDFLAGS="-static"
# Autotools packages must not try to regenerate configure or Makefile.in when
# a Debian patch made a .am or .ac file look newer than its outputs.
export ACLOCAL=true AUTOMAKE=true AUTOCONF=true AUTOHEADER=true MAKEINFO=true

# ship FILE DEST: installs a stripped executable under the package's root tree
# ($OUT/rootfs, copied as-is into the initramfs), DEST relative to /.
ship() {
	install -D -m 0755 "$1" "$OUT/rootfs/$2"
	case $(head -c 4 "$OUT/rootfs/$2" | od -An -c | tr -d ' ') in
	177ELF) strip --strip-all "$OUT/rootfs/$2" ;;
	esac
}

# link NAME TARGET: a relative symlink inside the package's root tree.
link() {
	mkdir -p "$OUT/rootfs/$(dirname "$1")"
	ln -s "$2" "$OUT/rootfs/$1"
}
