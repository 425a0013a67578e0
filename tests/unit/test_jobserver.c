/* the jobserver pipe: tokens taken, given back, refilled after a loss; fds only where kept */
#include <fcntl.h>
#include <sys/ioctl.h>

#include "../../lib/jobserver.h"
#include "../../lib/proc.h"
#include "unit.h"

static int
tokens(int fd)
{
	int n = -1;

	return ioctl(fd, FIONREAD, &n) < 0 ? -1 : n;
}

/* does `sh` see fd open? with keep: the fds given to the child */
static int
child_sees(int fd, const int *keep, size_t nkeep)
{
	char test[64];
	char *argv[] = {"sh", "-c", test, NULL};
	struct ab_proc p = {.argv = argv, .keep_fds = keep, .nkeep_fds = nkeep};
	struct ab_proc_result res;

	snprintf(test, sizeof(test), "test -e /proc/$$/fd/%d", fd);
	if (ab_proc_run(&res, &p) < 0)
		return -1;
	return res.exit_code == 0;
}

int
main(void)
{
	struct ab_jobserver *js;
	int fds[2];
	char c;

	CHECK(ab_jobserver_open(&js, 3) == 0);
	ab_jobserver_fds(js, fds);
	CHECK(fds[0] > 2 && fds[1] > 2);
	CHECK(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
	CHECK(fcntl(fds[1], F_GETFD) & FD_CLOEXEC);
	CHECK(ab_jobserver_size(js) == 3);
	CHECK(tokens(fds[0]) == 3);
	for (int i = 0; i < 3; i++)
		CHECK(ab_jobserver_acquire(js) == 0);
	CHECK(tokens(fds[0]) == 0);
	ab_jobserver_release(js);
	CHECK(tokens(fds[0]) == 1);
	/* a make takes that token and dies with it */
	CHECK(read(fds[0], &c, 1) == 1);
	ab_jobserver_release(js);
	CHECK(tokens(fds[0]) == 1);
	/* the last holder refills: exactly 3 again */
	ab_jobserver_release(js);
	CHECK(tokens(fds[0]) == 3);
	/* and a surplus is taken away */
	CHECK(ab_jobserver_acquire(js) == 0);
	CHECK(write(fds[1], "++", 2) == 2);
	ab_jobserver_release(js);
	CHECK(tokens(fds[0]) == 3);

	/* close-on-exec: only a child that keeps them sees them */
	CHECK(child_sees(fds[0], NULL, 0) == 0);
	CHECK(child_sees(fds[1], fds, 2) == 1);
	CHECK(child_sees(fds[0], fds, 2) == 1);
	ab_jobserver_free(js);
	ab_jobserver_free(NULL);
	return unit_done();
}
