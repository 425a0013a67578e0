#include "proctree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* a process of /proc's last listing */
struct proc {
	pid_t pid, ppid, pgrp;
	int member;        /* 1 in the tree, 0 not, -1 not decided yet */
	int gone;          /* a member become a zombie: counted with the gone ones, not read again */
	int fresh;         /* read by this reading already */
	int stat_fd, smaps_fd;
	int threads;
	uint64_t rss_pages, cpu_ticks, minflt, majflt, pss_kb, anon_kb;
	char comm[16];
};

struct ab_proctree {
	pid_t parent, root;
	pid_t parent_pgrp;  /* the parent's own group: its other children there are its helpers (lib/guard.h) */
	char comm[16];
	int has_comm, pss, root_seen;
	DIR *proc;
	int loadavg_fd;         /* /proc/loadavg: its last field is the pid created last */
	long last_pid;          /* as it was at the last listing; -1 none yet */
	struct proc *v;         /* sorted by pid */
	size_t n, cap;
	pid_t *list;            /* this reading's listing */
	size_t nlist, caplist;
	uint64_t gone_ticks, gone_minflt, gone_majflt;
	long page_kb, hz;
};

int
ab_proctree_open(struct ab_proctree **out, pid_t parent, const char *comm, int pss)
{
	struct ab_proctree *t = ab_calloc(1, sizeof(*t));

	*out = NULL;
	t->parent = parent;
	t->parent_pgrp = getpgid(parent);
	t->pss = pss;
	if (comm) {
		t->has_comm = 1;
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	}
	t->page_kb = sysconf(_SC_PAGESIZE) / 1024;
	t->hz = sysconf(_SC_CLK_TCK);
	if (t->hz <= 0)
		t->hz = 100;
	t->last_pid = -1;
	t->loadavg_fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	if (!(t->proc = opendir("/proc"))) {
		ab_error_errno("cannot list '/proc'");
		if (t->loadavg_fd >= 0)
			close(t->loadavg_fd);
		free(t);
		return AB_EFAIL;
	}
	*out = t;
	return 0;
}

static void
close_files(struct proc *p)
{
	if (p->stat_fd >= 0)
		close(p->stat_fd);
	if (p->smaps_fd >= 0)
		close(p->smaps_fd);
	p->stat_fd = p->smaps_fd = -1;
}

/* the whole of a /proc file from offset 0 into buf (NUL-terminated); bytes read, or -1 */
static ssize_t
read_at0(int fd, char *buf, size_t len)
{
	ssize_t n;

	do
		n = pread(fd, buf, len - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* the next space-separated field of *s as a number */
static uint64_t
field(const char **s)
{
	const char *p = *s;
	uint64_t v = 0;
	int neg = 0;

	while (*p == ' ')
		p++;
	if (*p == '-')
		neg = 1, p++;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (uint64_t)(*p++ - '0');
	while (*p && *p != ' ')
		p++;
	*s = p;
	return neg ? 0 : v;
}

/*
 * read p's stat: 1 alive, 0 gone or a zombie (state Z or X). Its name
 * is between the first '(' and the last ')': a name may hold either.
 */
static int
read_stat(struct proc *p)
{
	char buf[1024];
	const char *s, *open, *close_;
	char state;

	if (read_at0(p->stat_fd, buf, sizeof(buf)) <= 0)
		return 0;
	if (!(open = strchr(buf, '(')) || !(close_ = strrchr(buf, ')')) || close_ < open || close_[1] != ' ')
		return 0;
	snprintf(p->comm, sizeof(p->comm), "%.*s", (int)(close_ - open - 1), open + 1);
	state = close_[2];
	if (state == 'Z' || state == 'X' || state == 'x')
		return 0;
	s = close_ + 3;
	/* fields 4 .. 24 of proc(5): ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
	   utime stime cutime cstime priority nice num_threads itrealvalue starttime vsize rss */
	{
		uint64_t f[21];

		for (int i = 0; i < 21; i++)
			f[i] = field(&s);
		p->ppid = (pid_t)f[0];
		p->pgrp = (pid_t)f[1];
		p->minflt = f[6];
		p->majflt = f[8];
		p->cpu_ticks = f[10] + f[11];
		p->threads = (int)f[16];
		p->rss_pages = f[20];
	}
	return 1;
}

/* Pss and Anonymous of smaps_rollup, kB */
static void
read_smaps(struct proc *p)
{
	char buf[4096];
	const char *s;

	p->pss_kb = p->anon_kb = 0;
	if (p->smaps_fd < 0 || read_at0(p->smaps_fd, buf, sizeof(buf)) <= 0)
		return;
	if ((s = strstr(buf, "\nPss:")))
		p->pss_kb = strtoull(s + 5, NULL, 10);
	if ((s = strstr(buf, "\nAnonymous:")))
		p->anon_kb = strtoull(s + 11, NULL, 10);
}

static int
open_proc_file(pid_t pid, const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* a process not seen before: its stat read once, membership not decided */
static void
first_look(struct proc *p, pid_t pid)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->member = -1;
	p->smaps_fd = -1;
	p->fresh = 1;
	p->stat_fd = open_proc_file(pid, "stat");
	if (p->stat_fd < 0 || !read_stat(p)) {
		/* gone already, or a zombie: never ours to count */
		close_files(p);
		p->member = 0;
	}
}

static int
cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The pid the kernel gave last (the fifth field of /proc/loadavg), or -1:
 * while it stays the same no process was created, and /proc's listing,
 * the costliest part of a reading (a cold listing of 200 processes takes
 * about 0.2 ms), need not be read again.
 */
static long
last_pid(struct ab_proctree *t)
{
	char buf[128];
	const char *sp;

	if (t->loadavg_fd < 0 || read_at0(t->loadavg_fd, buf, sizeof(buf)) <= 0 || !(sp = strrchr(buf, ' ')))
		return -1;
	return strtol(sp + 1, NULL, 10);
}

/* /proc's processes now, sorted, into t->list */
static int
list_pids(struct ab_proctree *t)
{
	struct dirent *de;

	t->nlist = 0;
	rewinddir(t->proc);
	errno = 0;
	while ((de = readdir(t->proc))) {
		char *end;
		long pid;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (t->nlist == t->caplist) {
			t->caplist = t->caplist ? 2 * t->caplist : 256;
			t->list = ab_realloc(t->list, t->caplist * sizeof(*t->list));
		}
		t->list[t->nlist++] = (pid_t)pid;
	}
	if (errno) {
		ab_error_errno("cannot list '/proc'");
		return AB_EFAIL;
	}
	qsort(t->list, t->nlist, sizeof(*t->list), cmp_pid);
	return 0;
}

/* a member that ended: its last counters stay in the totals */
static void
depart(struct ab_proctree *t, struct proc *p)
{
	if (p->member == 1 && !p->gone) {
		t->gone_ticks += p->cpu_ticks;
		t->gone_minflt += p->minflt;
		t->gone_majflt += p->majflt;
		p->gone = 1;
	}
	close_files(p);
}

static struct proc *
find(struct proc *v, size_t n, pid_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].pid == pid)
			return &v[mid];
		if (v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* the processes of the listing: those known kept, those gone departed, new ones looked at */
static void
merge(struct ab_proctree *t)
{
	struct proc *nv = ab_calloc(t->nlist ? t->nlist : 1, sizeof(*nv));
	size_t i = 0, j = 0, k = 0;

	while (j < t->nlist) {
		if (i < t->n && t->v[i].pid < t->list[j]) {
			depart(t, &t->v[i++]);
		} else if (i < t->n && t->v[i].pid == t->list[j]) {
			nv[k++] = t->v[i++];
			j++;
		} else {
			first_look(&nv[k++], t->list[j++]);
		}
	}
	while (i < t->n)
		depart(t, &t->v[i++]);
	free(t->v);
	t->v = nv;
	t->n = k;
	t->cap = t->nlist;
}

/* decide the new processes: a child of parent (the first is the root), of a member, or in the root's group */
static void
decide(struct ab_proctree *t)
{
	int changed = 1;

	while (changed) {
		changed = 0;
		for (size_t i = 0; i < t->n; i++) {
			struct proc *p = &t->v[i], *pp;

			if (p->member != -1)
				continue;
			if (p->ppid == t->parent && !t->root_seen) {
				t->root = p->pid;
				t->root_seen = 1;
			}
			/*
			 * a child of parent in parent's own group, the root aside, is not the
			 * command's: parent's helper (run's guard, lib/guard.h); the command
			 * leads a group of its own, and what it leaves to parent (a subreaper)
			 * is in that group or a session of its own
			 */
			if (p->ppid == t->parent && p->pid != t->root && p->pgrp == t->parent_pgrp)
				continue;
			if (p->ppid == t->parent || (t->root_seen && p->pgrp == t->root) ||
			    ((pp = find(t->v, t->n, p->ppid)) && pp->member == 1)) {
				p->member = 1;
				if (t->pss)
					p->smaps_fd = open_proc_file(p->pid, "smaps_rollup");
				changed = 1;
			}
		}
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].member == -1) {
			t->v[i].member = 0;
			close_files(&t->v[i]);
		}
}

int
ab_proctree_read(struct ab_proctree *t, struct ab_proctree_totals *tot)
{
	uint64_t ticks = 0, minflt = 0, majflt = 0;

	memset(tot, 0, sizeof(*tot));
	for (size_t i = 0; i < t->n; i++)
		t->v[i].fresh = 0;
	{
		long last = last_pid(t);

		if (last < 0 || last != t->last_pid) {
			if (list_pids(t) < 0)
				return AB_EFAIL;
			merge(t);
			decide(t);
			t->last_pid = last;
		}
	}
	for (size_t i = 0; i < t->n; i++) {
		struct proc *p = &t->v[i];

		if (p->member != 1 || p->gone)
			continue;
		if (!p->fresh && !read_stat(p)) {
			depart(t, p);
			continue;
		}
		if (t->pss)
			read_smaps(p);
		tot->processes++;
		tot->threads += p->threads;
		tot->rss_kb += p->rss_pages * (uint64_t)t->page_kb;
		tot->pss_kb += p->pss_kb;
		tot->anon_kb += p->anon_kb;
		ticks += p->cpu_ticks;
		minflt += p->minflt;
		majflt += p->majflt;
		if (t->has_comm && !strcmp(p->comm, t->comm)) {
			tot->comm_processes++;
			tot->comm_rss_kb += p->rss_pages * (uint64_t)t->page_kb;
		}
		if (p->pid == t->root)
			tot->root_alive = 1;
	}
	/* the gone ones' last readings, this reading's departures included */
	tot->cpu_ms = (t->gone_ticks + ticks) * 1000 / (uint64_t)t->hz;
	tot->minflt = t->gone_minflt + minflt;
	tot->majflt = t->gone_majflt + majflt;
	tot->root_seen = t->root_seen;
	return 0;
}

int
ab_proctree_end(struct ab_proctree *t, double grace)
{
	struct ab_proctree_totals tot;
	int alive = 0, group = 0;
	double until = ab_now() + grace;

	if (ab_proctree_read(t, &tot) < 0)
		return 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].member == 1 && !t->v[i].gone) {
			alive++;
			group |= t->v[i].pgrp == t->root;
			kill(t->v[i].pid, SIGTERM);
		}
	/* the group too, only while a member of it lives: its number is not ours otherwise */
	if (group)
		kill(-t->root, SIGTERM);
	while (tot.processes && ab_now() < until) {
		struct timespec ts = {0, 20 * 1000 * 1000};

		nanosleep(&ts, NULL);
		if (ab_proctree_read(t, &tot) < 0)
			break;
	}
	if (tot.processes)
		for (size_t i = 0; i < t->n; i++)
			if (t->v[i].member == 1 && !t->v[i].gone)
				kill(t->v[i].pid, SIGKILL);
	return alive;
}

void
ab_proctree_free(struct ab_proctree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		close_files(&t->v[i]);
	if (t->proc)
		closedir(t->proc);
	if (t->loadavg_fd >= 0)
		close(t->loadavg_fd);
	free(t->v);
	free(t->list);
	free(t);
}
