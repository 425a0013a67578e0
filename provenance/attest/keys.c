#include "keys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>

#include "../../lib/hash.h"
#include "../../lib/util.h"

struct ab_key {
	EVP_PKEY *pkey;
	const char *algorithm; /* AB_KEY_* */
	char id[AB_HEX_LEN + 1];
	char *path;
};

/* what the passphrase callback saw, for the message when the key is not read */
struct passphrase {
	const char *path;
	int asked;    /* the key is encrypted */
	int no_tty;   /* ... and neither the variable nor a terminal gave a passphrase */
	int too_long;
};

static int
passphrase_cb(char *buf, int size, int rwflag, void *arg)
{
	struct passphrase *p = arg;
	const char *env = getenv(AB_KEY_PASSPHRASE_ENV);
	char *prompt;
	int fd, rc;

	(void)rwflag;
	p->asked = 1;
	if (env) {
		size_t n = strlen(env);

		if (n >= (size_t)size) {
			p->too_long = 1;
			return -1;
		}
		memcpy(buf, env, n);
		return (int)n;
	}
	/* only a terminal: OpenSSL's prompt would fall back to stdin without one */
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		p->no_tty = 1;
		return -1;
	}
	close(fd);
	prompt = ab_sprintf("passphrase of '%s': ", p->path);
	rc = EVP_read_pw_string(buf, size, prompt, 0);
	free(prompt);
	if (rc != 0) {
		p->no_tty = 1;
		return -1;
	}
	return (int)strlen(buf);
}

/* the label of the file's first PEM block ("PUBLIC KEY", "ENCRYPTED PRIVATE KEY", ...) or NULL */
static char *
pem_label(const char *text)
{
	const char *s = strstr(text, "-----BEGIN "), *e;

	if (!s)
		return NULL;
	s += strlen("-----BEGIN ");
	e = strstr(s, "-----");
	if (!e || memchr(s, '\n', (size_t)(e - s)))
		return NULL;
	return ab_strndup(s, (size_t)(e - s));
}

static int
label_is_private(const char *label)
{
	size_t n = strlen(label);

	return n >= 11 && !strcmp(label + n - 11, "PRIVATE KEY");
}

/* the algorithm of a supported key, or NULL after reporting why it is not supported */
static const char *
key_algorithm(EVP_PKEY *pkey, const char *path)
{
	int id = EVP_PKEY_get_base_id(pkey);

	if (id == EVP_PKEY_ED25519)
		return AB_KEY_ED25519;
	if (id == EVP_PKEY_EC) {
		char group[80];
		size_t len = 0;
		int nid = NID_undef;

		if (EVP_PKEY_get_group_name(pkey, group, sizeof(group), &len) == 1) {
			nid = OBJ_sn2nid(group);
			if (nid == NID_undef)
				nid = EC_curve_nist2nid(group);
		} else {
			snprintf(group, sizeof(group), "(unknown)");
		}
		if (nid == NID_X9_62_prime256v1)
			return AB_KEY_ECDSA_P256;
		ab_error("'%s' is an EC key on curve %s: allocbuild signs with Ed25519 or ECDSA P-256 keys only",
		    path, group);
		return NULL;
	}
	if (id == EVP_PKEY_RSA || id == EVP_PKEY_RSA_PSS) {
		ab_error("'%s' is an RSA key: allocbuild signs with Ed25519 or ECDSA P-256 keys only", path);
		return NULL;
	}
	ab_error("'%s' is a key of type %s: allocbuild signs with Ed25519 or ECDSA P-256 keys only", path,
	    EVP_PKEY_get0_type_name(pkey) ? EVP_PKEY_get0_type_name(pkey) : "unknown");
	return NULL;
}

/* the id: hex SHA-256 of the DER SubjectPublicKeyInfo */
static int
key_id(char id[AB_HEX_LEN + 1], EVP_PKEY *pkey, const char *path)
{
	unsigned char *der = NULL;
	int n = i2d_PUBKEY(pkey, &der);

	if (n <= 0) {
		ab_error("'%s': cannot encode its public key", path);
		return AB_EFAIL;
	}
	ab_hash_buf(id, der, (size_t)n);
	OPENSSL_free(der);
	return 0;
}

/* the key in a PEM file's bytes, as kind asks; NULL after reporting */
static EVP_PKEY *
read_pem(const struct ab_buf *b, const char *path, enum ab_key_kind kind, unsigned mode)
{
	struct passphrase pp = {.path = path};
	char *label = pem_label(b->s);
	EVP_PKEY *pkey = NULL;
	BIO *bio = NULL;

	if (!label) {
		ab_error("'%s' is not a PEM key file", path);
		goto done;
	}
	if (kind == AB_KEY_PRIVATE && !label_is_private(label)) {
		ab_error("'%s' holds a %s, not a private key: signing needs the private key", path, label);
		goto done;
	}
	/* refused before a passphrase is asked for: as ssh refuses one */
	if (kind == AB_KEY_PRIVATE && (mode & 077)) {
		ab_error("'%s': a private key that group or others may access (mode %04o): anyone who can read it can "
		    "sign as you; chmod 600 it", path, mode & 07777);
		goto done;
	}
	if (kind == AB_KEY_PUBLIC && label_is_private(label)) {
		ab_error("'%s' is a private key: give its public key (openssl pkey -in '%s' -pubout)", path, path);
		goto done;
	}
	if (!strcmp(label, "RSA PUBLIC KEY")) {
		ab_error("'%s' is an RSA key: allocbuild signs with Ed25519 or ECDSA P-256 keys only", path);
		goto done;
	}
	bio = BIO_new_mem_buf(b->s, (int)b->len);
	if (!bio) {
		ab_error("'%s': out of memory", path);
		goto done;
	}
	ERR_clear_error();
	pkey = kind == AB_KEY_PRIVATE ? PEM_read_bio_PrivateKey(bio, NULL, passphrase_cb, &pp)
	    : PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	if (pkey)
		goto done;
	if (pp.too_long)
		ab_error("'%s' is encrypted and %s is too long", path, AB_KEY_PASSPHRASE_ENV);
	else if (pp.no_tty)
		ab_error("'%s' is encrypted: set %s or run on a terminal to give its passphrase", path,
		    AB_KEY_PASSPHRASE_ENV);
	else if (pp.asked)
		ab_error("'%s': cannot decrypt the private key: wrong passphrase", path);
	else
		ab_error("'%s': cannot read the %s: %s", path, label,
		    ERR_peek_last_error() ? ERR_reason_error_string(ERR_peek_last_error()) : "malformed");
done:
	ERR_clear_error();
	BIO_free(bio);
	free(label);
	return pkey;
}

/*
 * A key file's bytes and *mode, through the one bounded reader (a regular
 * file only, opened without blocking: a fifo named as the key cannot hang
 * sign or verify), read straight into one buffer of its size,
 * NUL-terminated. Reports errors.
 */
static int
read_key_file(struct ab_buf *b, unsigned *mode, const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	int error = AB_EFAIL;

	if (fd < 0) {
		ab_error_errno("cannot open '%s'", path);
		return AB_EFAIL;
	}
	if (fstat(fd, &st) < 0) {
		ab_error_errno("cannot stat '%s'", path);
		goto done;
	}
	*mode = (unsigned)st.st_mode;
	error = ab_read_fd_max(b, fd, path, AB_KEY_FILE_MAX) < 0 ? AB_EFAIL : 0;
done:
	close(fd);
	return error;
}

int
ab_key_load(struct ab_key **out, const char *path, enum ab_key_kind kind)
{
	struct ab_buf b = {0};
	struct ab_key *k = NULL;
	EVP_PKEY *pkey;
	const char *alg;
	unsigned mode = 0;
	int error = AB_EFAIL;

	*out = NULL;
	if (read_key_file(&b, &mode, path) < 0)
		goto done;
	if (!(pkey = read_pem(&b, path, kind, mode)))
		goto done;
	k = ab_calloc(1, sizeof(*k));
	k->pkey = pkey;
	k->path = ab_strdup(path);
	if (!(alg = key_algorithm(pkey, path)) || key_id(k->id, pkey, path) < 0)
		goto done;
	k->algorithm = alg;
	*out = k;
	k = NULL;
	error = 0;
done:
	/* a private key's bytes do not outlive the load */
	if (b.s)
		OPENSSL_cleanse(b.s, b.cap);
	ab_buf_free(&b);
	ab_key_free(k);
	return error;
}

void
ab_key_free(struct ab_key *k)
{
	if (!k)
		return;
	EVP_PKEY_free(k->pkey);
	free(k->path);
	free(k);
}

const char *
ab_key_id(const struct ab_key *k)
{
	return k->id;
}

const char *
ab_key_algorithm(const struct ab_key *k)
{
	return k->algorithm;
}

const char *
ab_key_path(const struct ab_key *k)
{
	return k->path;
}

/* Ed25519 signs the message itself; ECDSA its SHA-256 */
static const EVP_MD *
key_md(const struct ab_key *k)
{
	return strcmp(k->algorithm, AB_KEY_ED25519) ? EVP_sha256() : NULL;
}

int
ab_key_sign(struct ab_buf *sig, const struct ab_key *k, const void *msg, size_t len)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t n = 0;
	int error = AB_EFAIL;

	ab_buf_clear(sig);
	if (!ctx || EVP_DigestSignInit(ctx, NULL, key_md(k), NULL, k->pkey) != 1 ||
	    EVP_DigestSign(ctx, NULL, &n, msg, len) != 1)
		goto fail;
	ab_buf_grow(sig, n);
	if (EVP_DigestSign(ctx, (unsigned char *)sig->s, &n, msg, len) != 1)
		goto fail;
	sig->len = n;
	sig->s[n] = '\0';
	error = 0;
	goto done;
fail:
	ab_error("'%s': cannot sign: %s", k->path,
	    ERR_peek_last_error() ? ERR_reason_error_string(ERR_peek_last_error()) : "not a private key");
done:
	ERR_clear_error();
	EVP_MD_CTX_free(ctx);
	return error;
}

int
ab_key_verify(const struct ab_key *k, const void *msg, size_t len, const void *sig, size_t siglen)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok;

	ok = ctx && EVP_DigestVerifyInit(ctx, NULL, key_md(k), NULL, k->pkey) == 1 &&
	    EVP_DigestVerify(ctx, sig, siglen, msg, len) == 1;
	ERR_clear_error();
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : AB_ECHECK;
}

/* hex of the raw Ed25519 public key */
static int
raw_public_hex(struct ab_buf *out, const struct ab_key *k)
{
	unsigned char raw[32];
	size_t n = sizeof(raw);

	if (EVP_PKEY_get_raw_public_key(k->pkey, raw, &n) != 1 || n != sizeof(raw)) {
		ab_error("'%s': cannot read its Ed25519 public key", k->path);
		return AB_EFAIL;
	}
	for (size_t i = 0; i < n; i++)
		ab_buf_printf(out, "%02x", raw[i]);
	return 0;
}

/* the SubjectPublicKeyInfo in PEM */
static int
public_pem(struct ab_buf *out, const struct ab_key *k)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *p;
	long n;

	if (!bio || PEM_write_bio_PUBKEY(bio, k->pkey) != 1 || (n = BIO_get_mem_data(bio, &p)) <= 0) {
		BIO_free(bio);
		ab_error("'%s': cannot encode its public key", k->path);
		return AB_EFAIL;
	}
	ab_buf_add(out, p, (size_t)n);
	BIO_free(bio);
	return 0;
}

int
ab_key_public_text(struct ab_buf *out, const struct ab_key *k)
{
	return strcmp(k->algorithm, AB_KEY_ED25519) ? public_pem(out, k) : raw_public_hex(out, k);
}
