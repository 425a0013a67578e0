/*
 * netfwd: the one network address a sandboxed build may reach. A build in
 * the sandbox (lib/sandbox.h) has no network but its own loopback; with a
 * remote compile cache, ccache in it must still reach that cache, and
 * nothing else. So:
 *
 *   outside  allocbuild listens on a unix socket per remote address, in a
 *            private directory that the sandbox shows; each connection made
 *            to one is joined to a new TCP connection to that address
 *            (ab_netfwd_start, a thread per connection);
 *   inside   the sandbox's first process is allocbuild again, started as
 *            AB_NETFWD_INIT: it listens on 127.0.0.1:PORT for each
 *            PORT=SOCKET it is given, joins each connection to a new one to
 *            SOCKET (a process per connection), then execs the step's
 *            command (ab_netfwd_init_main).
 *
 * ccache is told the loopback addresses instead of the remote's, without
 * the remote's credentials: the relay outside adds them, and passes on
 * only what ccache's storage protocol needs (lib/cacheproto.h); the
 * server's answers pass unchanged.
 */
#ifndef AB_NETFWD_H
#define AB_NETFWD_H

#include <stddef.h>

#include "cacheproto.h"

/* the name allocbuild is started under as the sandbox's first process */
#define AB_NETFWD_INIT "allocbuild-sandbox-init"
/* the first loopback port inside; target i listens on AB_NETFWD_PORT + i */
#define AB_NETFWD_PORT 40000

struct ab_netfwd;

/*
 * Listen on DIR/<i>.sock for each target i (DIR is made, mode 0700; it
 * must not exist). 0, or AB_EFAIL (reported). *out is freed by
 * ab_netfwd_stop, which stops listening and removes DIR.
 */
int ab_netfwd_start(struct ab_netfwd **out, const char *dir, const struct ab_cacheproto_remote *t, size_t n);
void ab_netfwd_stop(struct ab_netfwd *f);

/*
 * main() of AB_NETFWD_INIT: arguments PORT=SOCKET... -- COMMAND [ARG...].
 * Returns only when it fails (126 or 127, after a message on stderr).
 */
int ab_netfwd_init_main(int argc, char **argv);

#endif
