/*
 * uploadauth.h - how an upload proves it comes from its target. Each target
 * has a 32-byte key, shared out of band: on its own results disk (bootbench
 * mkresults --key) and with the boot server (ROOT/targets/MAC/key). The
 * boot server hands each boot an id, public (it travels in the boot's
 * command line); the appliance signs each POST's head:
 *
 *   DIGEST = SHA-256(body)
 *   HMAC   = HMAC-SHA-256(key, "bootbench-upload-2\n" MAC "\n" BOOT "\n" LEN "\n" DIGEST)
 *
 * (MAC as aa-bb-cc-dd-ee-ff, BOOT the id's 32 hex digits, LEN the body's
 * length in decimal, its Content-Length; DIGEST and HMAC in lowercase hex)
 * and sends the body to /results/MAC/BOOT/DIGEST/HMAC. The server checks
 * the HMAC as soon as the request's header is in, before it keeps a byte
 * of the body, and the body against DIGEST once it has arrived: a stranger
 * who reads the boot id can neither store anything nor make the server
 * hold a body for it. One who captures an upload can send the same body
 * for the same boot again, which the server stores once (or dribble it,
 * holding one slot of its address as the target itself could). The key
 * never leaves the disk and the server's target directory: not the command
 * line, records, console or logs.
 */
#ifndef BB_UPLOADAUTH_H
#define BB_UPLOADAUTH_H

#include <stddef.h>

#include "cmdline.h"

#define UPLOAD_KEY_LEN 32
#define UPLOAD_KEY_HEX 64	/* a key file: this many hex digits */
#define UPLOAD_SIG_HEX 64	/* a signature, in the URL: this many lowercase hex digits */

/* One upload's DIGEST and HMAC (64 lowercase hex digits and a NUL each). */
void upload_sign(const unsigned char key[UPLOAD_KEY_LEN], const char *mac, const char *boot, const char *body,
		 size_t len, char digest[UPLOAD_SIG_HEX + 1], char hmac[UPLOAD_SIG_HEX + 1]);
/* The head of an upload is the target's: hmac is the signature of (mac,
 * boot, len, digest), compared in constant time. Needs no body. */
int upload_head_ok(const unsigned char key[UPLOAD_KEY_LEN], const char *mac, const char *boot,
		   unsigned long long len, const char *digest, const char *hmac);
/* The body that arrived is the one the head was signed for. */
int upload_body_ok(const char *body, size_t len, const char *digest);
/* A key file's text: 64 hex digits (any case), then optional white space.
 * 0, or -1 (anything else, or all zeros: the file is not a key). */
int upload_key_parse(const char *text, size_t len, unsigned char key[UPLOAD_KEY_LEN]);
/* Read a key file (its first 4 KiB at most): 1 read, 0 it does not exist,
 * -1 unreadable or not a key (err says which). */
int upload_key_load(const char *path, unsigned char key[UPLOAD_KEY_LEN], char *err, size_t errlen);
/* The text of a key file: 64 lowercase hex digits and a newline. */
void upload_key_text(const unsigned char key[UPLOAD_KEY_LEN], char text[UPLOAD_KEY_HEX + 2]);

/* An upload's path on the boot server, "/results/MAC/BOOT/DIGEST/HMAC"
 * (the request target): the MAC in any spelling mac_normal takes,
 * normalised into mac; the boot id, UPLOAD_TOKEN_LEN characters (which
 * boot ids are real is the server's to say); the digest and the signature,
 * UPLOAD_SIG_HEX lowercase hex digits each (digest and sig are both given
 * or both NULL). With sig NULL the path ends at BOOT: the URL the appliance is
 * given, before it signs (path then may be a whole URL: its last two
 * segments are read as MAC and BOOT, whatever comes before them). mac is
 * filled whenever the MAC is good, so a caller can refuse an unsigned
 * upload by its target. */
enum upload_path {
	UPLOAD_PATH_OK = 0,
	UPLOAD_PATH_BAD_MAC = -1,	/* not /results/MAC[/...] (sig NULL: not .../MAC/BOOT), or not a MAC */
	UPLOAD_PATH_UNSIGNED = -2,	/* a good MAC, but no BOOT/DIGEST/HMAC of their sizes after it */
};
int upload_path_parse(const char *path, char mac[18], char boot[UPLOAD_TOKEN_LEN + 1],
		      char digest[UPLOAD_SIG_HEX + 1], char sig[UPLOAD_SIG_HEX + 1]);

#endif
