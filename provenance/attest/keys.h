/*
 * keys: the signing keys of DSSE envelopes (docs/manifests.md, "Signed
 * statements"), through OpenSSL libcrypto EVP.
 *
 * Two algorithms, named as securesystemslib names its schemes:
 *   "ed25519"              Ed25519, pure (the message itself is signed,
 *                          no pre-hash); 64-byte signatures
 *   "ecdsa-sha2-nistp256"  ECDSA on P-256 over SHA-256 of the message;
 *                          DER signatures (SEQUENCE of r and s), as the
 *                          Go and Python in-toto signers write them
 * Any other key (RSA, another curve) is refused when it is loaded.
 *
 * A key's id is the lowercase hex SHA-256 of its public key's DER
 * SubjectPublicKeyInfo, the bytes of
 *   openssl pkey -pubin -in PUB.pem -outform DER
 * so the same id comes from the private key and from its public key.
 *
 * Keys are PEM files as `openssl genpkey` writes them (PKCS#8, encrypted or
 * not; the traditional "EC PRIVATE KEY" form too) and `openssl pkey -pubout`
 * (SubjectPublicKeyInfo). The passphrase of an encrypted private key comes
 * from ALLOCBUILD_KEY_PASSPHRASE when it is set, else it is asked for on the
 * terminal (/dev/tty, without echo). The file is read, through lib/util's
 * bounded reader (a regular file of at most AB_KEY_FILE_MAX bytes, opened
 * without blocking), into one buffer, wiped once the key is parsed; no
 * message ever quotes the file's bytes or the passphrase. A private key
 * file that group or others can read or write is refused, as ssh refuses
 * one ("chmod 600 it").
 */
#ifndef AB_KEYS_H
#define AB_KEYS_H

#include <stddef.h>

#define AB_KEY_ED25519 "ed25519"
#define AB_KEY_ECDSA_P256 "ecdsa-sha2-nistp256"
/* the most a key file may hold (a PEM key is a few hundred bytes) */
#define AB_KEY_FILE_MAX ((size_t)1 << 20)
/* the environment variable that holds an encrypted private key's passphrase */
#define AB_KEY_PASSPHRASE_ENV "ALLOCBUILD_KEY_PASSPHRASE"

struct ab_buf;
struct ab_key; /* opaque: an EVP_PKEY, its algorithm, id and file name */

enum ab_key_kind {
	AB_KEY_PUBLIC,  /* a PEM public key; a private key is refused */
	AB_KEY_PRIVATE, /* a PEM private key; a public key is refused */
};

/*
 * Load the key in the PEM file path. Refuses, with a message naming the
 * file and what it holds: an unreadable file, a PEM of the other kind, a
 * key of an unsupported type (RSA, a curve other than P-256), a wrong or
 * missing passphrase. Returns 0 or AB_EFAIL (reported); free with
 * ab_key_free.
 */
int ab_key_load(struct ab_key **out, const char *path, enum ab_key_kind kind);
void ab_key_free(struct ab_key *k);

/* the key's id (64 hex digits), algorithm (AB_KEY_*) and file as given; owned by k */
const char *ab_key_id(const struct ab_key *k);
const char *ab_key_algorithm(const struct ab_key *k);
const char *ab_key_path(const struct ab_key *k);

/*
 * The public key as securesystemslib's keyval.public holds it (the form
 * in-toto 1.3.1 reads, provenance/attest/intoto.h): Ed25519, the 32 raw bytes in
 * lowercase hex; ECDSA, the SubjectPublicKeyInfo in PEM. Appended to out;
 * reports errors
 */
int ab_key_public_text(struct ab_buf *out, const struct ab_key *k);
/* sign msg (ECDSA: its SHA-256) with a private key; the signature's bytes into *sig; reports errors */
int ab_key_sign(struct ab_buf *sig, const struct ab_key *k, const void *msg, size_t len);
/* 0 when sig is k's signature of msg, AB_ECHECK when not (not reported) */
int ab_key_verify(const struct ab_key *k, const void *msg, size_t len, const void *sig, size_t siglen);

#endif
