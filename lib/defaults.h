/*
 * defaults.h - every default and limit of bootbench in one place.
 *
 * The appliance and the host tool share these; change a value here, never at
 * the point of use, so a reader can see in one file what the tool assumes.
 */
#ifndef BB_DEFAULTS_H
#define BB_DEFAULTS_H

/* Exit codes, written down once (skalibs convention). */
#define EXIT_BADINPUT 100	/* the user gave us something we cannot use */
#define EXIT_SYSFAIL 111	/* the system refused: I/O error, no memory */
#define EXIT_LOST 2		/* collect: read, but some records were lost (each reported) */

/* Results partition (docs/results-format.md). */
#define RESULTS_PART_NAME "bootbench-results"
/* Type GUID of our partitions, in its canonical text form. */
#define RESULTS_TYPE_GUID "6b6f6f62-6562-636e-6872-657375746c73"
#define RESULTS_HDR_AREA (64 * 1024)	/* header block + stored plan */
#define RESULTS_PLAN_MAX (RESULTS_HDR_AREA - 4096)
#define RESULTS_MIN_BLOCK 512
#define RESULTS_MAX_BLOCK 4096
#define RECORD_PAYLOAD_MAX (4 * 1024 * 1024)
/* The longest line a reader of JSON lines takes: one record plus its
 * envelope and a console's prefix. */
#define RECORD_LINE_MAX (RECORD_PAYLOAD_MAX + 4096)
/* The boot server's words for its quotas, which the appliance reads to
 * tell a refusal that retrying cannot mend from one it can: a 413 whose
 * body starts with UPLOAD_QUOTA_REFUSAL (the byte quota), and a 200 saying
 * ", N" UPLOAD_NOT_STORED (records over the per-boot quota). */
#define UPLOAD_QUOTA_REFUSAL "quota exceeded:"
#define UPLOAD_NOT_STORED " over the quota (not stored)"
/* The start of the boot server's 403 to an upload whose signature is not
 * the target's key's: the appliance then names the likely cause. */
#define UPLOAD_BAD_SIGNATURE "bad signature:"
#define RESULTS_DEFAULT_SIZE (64ULL * 1024 * 1024)
#define RESULTS_MAX_IMAGE (16ULL << 40)	/* mkresults IMAGE --size: 16T (ext4's file limit) */

/* Where the appliance finds things inside the userland. */
#define USERLAND_ID_FILE "/etc/bootbench/userland-id"
#define USERLAND_TOOLS_FILE "/etc/bootbench/tools"	/* "PACKAGE VERSION" lines */
#define LAYERS_DIR "/etc/bootbench/layers"	/* NAME: "PACKAGE VERSION BUILDKEY" of each layer booted */
#define PLAN_DIR "/etc/bootbench/plans"
#define MODULES_DIR "/lib/modules"
#define BUSYBOX "/bin/busybox"
/* The field's own tools (rootfs/recipes): fio and perf are static; rt-tests
 * is a glibc layer run through its own loader, never the kernel's PT_INTERP. */
#define FIO_BIN "/usr/bin/fio"
#define PERF_BIN "/usr/bin/perf"
/* perf record's frequency around a profiled run (cpu-clock, Hz): docs/why.md
 * measures what it costs and how many samples it gives a run */
#define PERF_HZ 6000
/* its buffer, pages a CPU (perf record -m): 4 MiB, so it wakes less often */
#define PERF_MMAP_PAGES "1024"
#define RT_TESTS_DIR "/opt/rt-tests"
#define RT_TESTS_LOADER "lib/ld-linux-x86-64.so.2"	/* under the layer's directory */

/* Modules the appliance needs for its layouts, built in or loadable. */
#define NEEDED_MODULES "md_mod raid0 raid1 raid456 ext4 xfs brd"

/* mkfs options pinned here, not left to tool defaults (e2fsprogs and xfsprogs
 * change defaults between versions, and new features break older kernels).
 * A plan's mkfs="..." is appended after these, so it can edit them. Lazy
 * initialisation is off: a background thread zeroing inode tables during a
 * run would skew every figure. */
#define MKFS_EXT2 "-t ext2 -b 4096 -I 256 -m 0 -O none,dir_index,filetype,sparse_super,large_file,resize_inode,ext_attr -E lazy_itable_init=0"
#define MKFS_EXT3 "-t ext3 -b 4096 -I 256 -m 0 -O none,has_journal,dir_index,filetype,sparse_super,large_file,resize_inode,ext_attr -E lazy_itable_init=0,lazy_journal_init=0"
#define MKFS_EXT4 "-t ext4 -b 4096 -I 256 -m 0 -O none,has_journal,extent,huge_file,flex_bg,metadata_csum,64bit,dir_nlink,extra_isize,dir_index,filetype,sparse_super,large_file,resize_inode,ext_attr -E lazy_itable_init=0,lazy_journal_init=0"
#define MKFS_XFS "-f -b size=4096 -m crc=1,finobt=1,reflink=0"
/* mkfs.xfs refuses filesystems under 300 MB unless --unsupported. */
#define XFS_MIN_BYTES (300ULL * 1000 * 1000)

#define LAYOUT_MNT "/mnt/bb"

/* On every kernel command line we write (boot-qemu, pxe-root, pxe-serve,
 * the boot server, lava-job): a kernel with md built in would otherwise
 * assemble, and may resync, 0.90 RAID members on type-0xfd partitions of
 * any disk before PID 1 runs. The boot record says whether it held. */
#define KERNEL_SAFE_ARGS "raid=noautodetect"

/* Limits that protect against garbage input. */
#define CMDLINE_MAX 4096
#define CMDLINE_MAX_ARGS 256
#define MAX_BLOCKDEVS 64
#define MAX_MODULES 4096

#endif
