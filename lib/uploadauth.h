/*
 * uploadauth.h - how an upload proves it comes from its target. Each target
 * has a 32-byte key, shared out of band: on its own results disk (bootbench
 * mkresults --key) and with the boot server (ROOT/targets/MAC/key). The
 * boot server hands each boot an id, public (it travels in the boot's
 * command line); the appliance signs each POST with
 *
 *   HMAC-SHA-256(key, "bootbench-upload-1\n" MAC "\n" BOOT "\n" body)
 *
 * (MAC as aa-bb-cc-dd-ee-ff, BOOT the id's 32 hex digits, body the bytes
 * sent) and appends it, in hex, to the upload URL: /results/MAC/BOOT/HMAC.
 * A stranger who reads the boot id cannot sign; one who captures an upload
 * can only send the same body for the same boot again, which the server
 * stores once. The key never leaves the disk and the server's target
 * directory: not the command line, records, console or logs.
 */
#ifndef BB_UPLOADAUTH_H
#define BB_UPLOADAUTH_H

#include <stddef.h>

#include "cmdline.h"

#define UPLOAD_KEY_LEN 32
#define UPLOAD_KEY_HEX 64	/* a key file: this many hex digits */
#define UPLOAD_SIG_HEX 64	/* a signature, in the URL: this many lowercase hex digits */

/* The signature of one upload, as 64 lowercase hex digits (and a NUL). */
void upload_sign(const unsigned char key[UPLOAD_KEY_LEN], const char *mac, const char *boot, const char *body,
		 size_t len, char hex[UPLOAD_SIG_HEX + 1]);
/* hex (64 hex digits) is that signature: compared in constant time. */
int upload_sig_ok(const unsigned char key[UPLOAD_KEY_LEN], const char *mac, const char *boot, const char *body,
		  size_t len, const char *hex);
/* A key file's text: 64 hex digits (any case), then optional white space.
 * 0, or -1 (anything else, or all zeros: the file is not a key). */
int upload_key_parse(const char *text, size_t len, unsigned char key[UPLOAD_KEY_LEN]);
/* Read a key file (its first 4 KiB at most): 1 read, 0 it does not exist,
 * -1 unreadable or not a key (err says which). */
int upload_key_load(const char *path, unsigned char key[UPLOAD_KEY_LEN], char *err, size_t errlen);
/* The text of a key file: 64 lowercase hex digits and a newline. */
void upload_key_text(const unsigned char key[UPLOAD_KEY_LEN], char text[UPLOAD_KEY_HEX + 2]);

/* An upload's path on the boot server, "/results/MAC/BOOT/HMAC" (the
 * request target): the MAC in any spelling mac_normal takes, normalised
 * into mac; the boot id, UPLOAD_TOKEN_LEN characters (which boot ids are
 * real is the server's to say); the signature, UPLOAD_SIG_HEX lowercase
 * hex digits. With sig NULL the path ends at BOOT: the URL the appliance is
 * given, before it signs (path then may be a whole URL: its last two
 * segments are read as MAC and BOOT, whatever comes before them). mac is
 * filled whenever the MAC is good, so a caller can refuse an unsigned
 * upload by its target. */
enum upload_path {
	UPLOAD_PATH_OK = 0,
	UPLOAD_PATH_BAD_MAC = -1,	/* not /results/MAC[/...] (sig NULL: not .../MAC/BOOT), or not a MAC */
	UPLOAD_PATH_UNSIGNED = -2,	/* a good MAC, but no BOOT/HMAC of their sizes after it */
};
int upload_path_parse(const char *path, char mac[18], char boot[UPLOAD_TOKEN_LEN + 1],
		      char sig[UPLOAD_SIG_HEX + 1]);

#endif
