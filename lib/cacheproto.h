/*
 * cacheproto: what a sandboxed ccache may say to its remote storage, and
 * the credentials the relay adds on its behalf (lib/netfwd.h relays the
 * bytes; docs/build.md, "Sandbox").
 *
 * The credentials of a remote compile cache never enter the build
 * sandbox: ccache inside is handed the loopback address without them, and
 * the relay outside, which holds them, speaks for it. What ccache sends
 * is read as it streams (a cache entry may be megabytes) and passed on
 * only when it is what ccache's storage protocol needs; anything else
 * ends the connection, so that a step cannot use the relay to speak raw
 * Redis or HTTP to the server (read its settings, set keys of its own
 * choosing outside ccache's, or try passwords).
 *
 *   Redis  (ccache 4.x, src/storage/remote/RedisStorage.cpp): arrays of
 *          bulk strings only, the commands GET KEY, EXISTS KEY, DEL KEY,
 *          SET KEY VALUE and SELECT DB, KEY "ccache:" and [0-9a-z], DB
 *          digits. The relay sends "AUTH [USER] PASSWORD" itself, before
 *          the first command, and ends the connection if the server does
 *          not answer +OK.
 *   HTTP   (src/storage/remote/HttpStorage.cpp): HTTP/1.x requests GET,
 *          HEAD, PUT and DELETE of an origin-form path of [A-Za-z0-9/._-]
 *          under the URL's own path (ccache's entries, nothing else there),
 *          with a Content-Length body (no chunked encoding), any number
 *          on one connection. The relay drops the client's Host,
 *          Authorization and Proxy-Authorization headers and adds the
 *          remote's Host and, when it has one, its Authorization (Basic
 *          from the URL's user information, or Bearer from ccache's
 *          bearer-token attribute).
 *
 * Calling protocol (one filter per connection, client to server only;
 * the server's answers pass unchanged):
 *   struct ab_cacheproto *f = ab_cacheproto_new(&remote);
 *   while (read from the client)
 *       if (ab_cacheproto_feed(f, buf, n, &out) < 0) end the connection
 *       else send out to the server (and clear it)
 *   ab_cacheproto_free(f);
 */
#ifndef AB_CACHEPROTO_H
#define AB_CACHEPROTO_H

#include <stddef.h>

struct ab_buf;

enum ab_cacheproto_kind {
	AB_CACHEPROTO_REDIS,
	AB_CACHEPROTO_HTTP,
};

/* one remote storage as the relay reaches it, with what it says on ccache's behalf */
struct ab_cacheproto_remote {
	enum ab_cacheproto_kind kind;
	char *host;      /* the remote's host name or address (no brackets) */
	char *port;      /* its port, as text */
	char *user;      /* Redis AUTH's user, or NULL (the default user) */
	char *password;  /* Redis AUTH's password, or NULL: no AUTH */
	char *http_host; /* HTTP: the Host header's value ("host:port") */
	char *http_auth; /* HTTP: the Authorization header's value, or NULL */
	char *http_prefix; /* HTTP: the URL's path, ending in '/': every request's path starts with it */
};

void ab_cacheproto_remote_release(struct ab_cacheproto_remote *r);

/*
 * The relay's side of a URL of ccache's remote storage (redis://...,
 * http://...; len bytes of it, attributes after '|' included): *r filled
 * (release with ab_cacheproto_remote_release) and onto inside the URL
 * ccache in the sandbox is given, with address ADDR (127.0.0.1:PORT):
 * the URL without its user information, query and fragment, its path
 * and its attributes kept but for those that are secrets (bearer-token,
 * and any whose name says so: lib/redact.h). 0, or -1 for a URL that is
 * neither redis:// nor http:// (nothing filled).
 */
int ab_cacheproto_remote_parse(struct ab_cacheproto_remote *r, struct ab_buf *inside, const char *url, size_t len,
    const char *addr);

/*
 * The "AUTH ..." command (RESP) the relay sends first on a Redis
 * connection, onto out: 1, or 0 when the remote has no password
 */
int ab_cacheproto_redis_auth(struct ab_buf *out, const struct ab_cacheproto_remote *r);

struct ab_cacheproto;

/* the filter of one connection to r (r must outlive it) */
struct ab_cacheproto *ab_cacheproto_new(const struct ab_cacheproto_remote *r);
/*
 * n bytes from ccache: what may go on to the server appended to out; 0,
 * or -1 when the connection must end (why, for the relay's log, in
 * ab_cacheproto_why)
 */
int ab_cacheproto_feed(struct ab_cacheproto *f, const char *in, size_t n, struct ab_buf *out);
/* why the last ab_cacheproto_feed refused ("a Redis command 'CONFIG'") */
const char *ab_cacheproto_why(const struct ab_cacheproto *f);
void ab_cacheproto_free(struct ab_cacheproto *f);

#endif
