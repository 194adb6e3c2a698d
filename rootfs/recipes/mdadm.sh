# mdadm for the md RAID layouts. No udev in the appliance: -DNO_LIBUDEV.
DEPS=""

recipe_build() {
	make -j"$JOBS" CC="$CC" CXFLAGS="-O2 -DNO_LIBUDEV" LDFLAGS=-static mdadm
	ship mdadm sbin/mdadm
}
