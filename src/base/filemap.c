/* filemap.c - see filemap.h. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include "base/filemap.h"
#include "base/util.h"

struct ab_filemap {
	char *data;
	size_t len, maplen;
	int fd;
	struct stat st;			/* when it was opened */
	volatile sig_atomic_t cut;	/* a SIGBUS on it was served with zeros */
};

/* The maps the SIGBUS handler knows; a handful at most are ever open. */
#define MAX_MAPS 8
static ab_filemap *live[MAX_MAPS];
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t page_mask;

/* A SIGBUS in a live map is the file cut short under it: the pages from
 * the one touched to the end become zeros (a JSON reader stops at the
 * first), the map remembers, and the faulting read goes on. Any other
 * SIGBUS is a real fault: the default action, as without a handler. */
static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	uintptr_t at = (uintptr_t)si->si_addr;
	int i, e = errno;

	(void)uctx;
	for (i = 0; i < MAX_MAPS; i++) {
		ab_filemap *m = __atomic_load_n(&live[i], __ATOMIC_ACQUIRE);
		uintptr_t start, end, from;

		if (!m)
			continue;
		start = (uintptr_t)m->data;
		end = start + m->maplen;
		if (at < start || at >= end)
			continue;
		from = at & page_mask;
		if (mmap((void *)from, end - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) == MAP_FAILED)
			break;
		m->cut = 1;
		errno = e;
		return;
	}
	signal(sig, SIG_DFL);
	errno = e;
}

static void install_handler(void)
{
	struct sigaction sa;

	page_mask = ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

/* File systems whose files change only through this kernel, so that
 * their time stamps tell every change: a network file system's need
 * not. */
static int local_fs(long type)
{
	switch ((unsigned long)type) {
	case 0xEF53:		/* ext2, ext3, ext4 */
	case 0x58465342:	/* xfs */
	case 0x9123683E:	/* btrfs */
	case 0x01021994:	/* tmpfs */
	case 0xF2F52010:	/* f2fs */
	case 0x794C7630:	/* overlayfs (containers) */
		return 1;
	}
	return 0;
}

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* A file written in the last 100 ms: a change made now could get the
 * same coarse time stamp and go unseen. */
static int recently_written(const struct stat *st)
{
	struct timespec now;
	int64_t last = ns_of(&st->st_mtim) > ns_of(&st->st_ctim) ? ns_of(&st->st_mtim) : ns_of(&st->st_ctim);

	if (clock_gettime(CLOCK_REALTIME, &now) < 0)
		return 1;
	return ns_of(&now) - last < 100000000;
}

ab_filemap *ab_filemap_open(const char *path, size_t min, size_t max)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	ab_filemap *m;
	struct statfs sf;
	struct stat st;
	void *p;
	int fd, i, e;

	/* O_NONBLOCK: a FIFO must not hang here; it is read the other way. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || fstatfs(fd, &sf) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode) || st.st_size < 0 || (uint64_t)st.st_size < min ||
	    (uint64_t)st.st_size > max || st.st_size == 0 || !local_fs((long)sf.f_type) ||
	    recently_written(&st)) {
		errno = EINVAL;
		goto fail;
	}
	pthread_once(&once, install_handler);
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	/* Read ahead now: the parser's threads each start in the middle. */
	madvise(p, (size_t)st.st_size, MADV_WILLNEED);
	m = ab_xcalloc(1, sizeof *m);
	m->data = p;
	m->len = (size_t)st.st_size;
	m->maplen = (m->len + ~page_mask) & page_mask;
	m->fd = fd;
	m->st = st;
	pthread_mutex_lock(&live_lock);
	for (i = 0; i < MAX_MAPS; i++) {
		if (!live[i]) {
			__atomic_store_n(&live[i], m, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&live_lock);
	if (i < MAX_MAPS)
		return m;
	/* No room in the handler's list: unsafe to read in place. */
	munmap(p, m->maplen);
	free(m);
	errno = EMFILE;
fail:
	e = errno;
	close(fd);
	errno = e;
	return NULL;
}

const char *ab_filemap_data(const ab_filemap *m)
{
	return m->data;
}

size_t ab_filemap_len(const ab_filemap *m)
{
	return m->len;
}

int ab_filemap_changed(const ab_filemap *m)
{
	struct stat st;

	if (m->cut)
		return 1;
	if (fstat(m->fd, &st) < 0)
		return 1;
	/* The change time also moves when the file loses its last name (it
	 * was replaced, and nobody can open it to write any more); otherwise
	 * it catches a modification time set back after a write. */
	return st.st_size != m->st.st_size || ns_of(&st.st_mtim) != ns_of(&m->st.st_mtim) ||
	       (st.st_nlink > 0 && ns_of(&st.st_ctim) != ns_of(&m->st.st_ctim));
}

void ab_filemap_close(ab_filemap *m)
{
	int i;

	if (!m)
		return;
	pthread_mutex_lock(&live_lock);
	for (i = 0; i < MAX_MAPS; i++)
		if (live[i] == m)
			__atomic_store_n(&live[i], NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&live_lock);
	munmap(m->data, m->maplen);
	close(m->fd);
	free(m);
}
