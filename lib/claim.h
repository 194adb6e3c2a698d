/*
 * claim.h - which disks the appliance may write: the safety rule.
 *
 * A disk is claimed when a bootbench.disks= token equals its serial, WWN or
 * by-path id, or when its first sector carries the scratch label written by
 * `bootbench mkscratch`. Nothing else is ever opened for writing. The disk
 * holding the results partition is never a layout member, claimed or not,
 * and a disk named in bootbench.readonly= is never claimed (nor written:
 * not even a results partition on it).
 */
#ifndef BB_CLAIM_H
#define BB_CLAIM_H

#include <stddef.h>

#include "blkdev.h"
#include "sbuf.h"

#define SCRATCH_MAGIC "BBSCRATCH1"
/* The name of every md array the appliance creates (mdadm --name, as
 * libblkid's LABEL of each member): an md member of any other name on a
 * scratch-labelled disk is somebody's array (lib/probe.c probe_foreign). */
#define MD_NAME "bootbench:scratch"

/* Pure: devs[n] as discovered, tokens the comma list (or NULL), labelled[i]
 * nonzero when devs[i] carries the scratch label, results the name of the
 * results disk ("" none), readonly the bootbench.readonly= list (or NULL).
 * Writes indexes of claimed disks to out (token order first, then labelled
 * disks in discovery order) and returns how many. Problems (a token
 * matching nothing, a token naming the results disk, a disk also named
 * read-only) are appended to notes, one line each. */
size_t claim_disks(const struct blkdev *devs, size_t n, const char *tokens, const int *labelled,
		   const char *results, const char *readonly, size_t *out, struct sbuf *notes);
/* Tokens of a comma list that match no disk, each noted; returns how many. */
size_t claim_unmatched(const struct blkdev *devs, size_t n, const char *tokens, struct sbuf *notes);

/* Does the disk have this serial, WWN or by-path id? */
int claim_matches(const struct blkdev *d, const char *token);
/* Is the disk named (by serial, WWN or by-path id) in the comma list? */
int claim_listed(const struct blkdev *d, const char *tokens);
/* The disk a read-only layout names (token): it must match exactly one
 * disk, that disk must be named in the comma list allowed
 * (bootbench.readonly=, by any of its ids) and not be the results disk.
 * Returns its index into devs, or -1 with the reason in why. */
int readonly_disk(const struct blkdev *devs, size_t n, const char *allowed, const char *token, const char *results,
		  char *why, size_t len);

/* Does a first sector (512 bytes) carry the scratch label? */
int scratch_label_ok(const unsigned char *sector, size_t len);
/* Fill a 512-byte label sector. */
void scratch_label_make(unsigned char sector[512]);

#endif
