# libinih (INI parser) for xfsprogs' mkfs.xfs config files. Debian's libinih
# *source* package is not served by the archive, so this takes the static
# archive from the pinned libinih-dev binary package (README.md explains why
# that is acceptable). Nothing of it is shipped except what mkfs.xfs links in.
DEPS=""

recipe_build() {
	dpkg-deb -x "$DEB" deb
	install -D -m 0644 deb/usr/lib/x86_64-linux-gnu/libinih.a "$OUT/lib/libinih.a"
	install -D -m 0644 deb/usr/include/ini.h "$OUT/include/ini.h"
	# Built by Debian against glibc: prove it links with musl before anyone
	# relies on it, so a bump that breaks this fails here, not in xfsprogs.
	cat > inihtest.c <<'C'
#include <ini.h>
static int h(void *u, const char *s, const char *n, const char *v)
{ (void)u; (void)s; (void)n; (void)v; return 1; }
int main(void) { return ini_parse("/nonexistent", h, 0) == -1 ? 0 : 1; }
C
	$CC -static -I"$OUT/include" inihtest.c "$OUT/lib/libinih.a" -o inihtest
	./inihtest
}
