/* fetch_sink.c - the sink thread of one fetch call: writes full
 * buffers to their files and runs them through SHA-256 beside the loop
 * that receives (fetch_private.h). Never opens a connection, never
 * decides what a body means.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/fetch_private.h"

static int write_out(xfer *x, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(x->fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			__atomic_store_n(&x->write_errno, errno, __ATOMIC_RELEASE);
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Writes n body bytes to the file and the hash (unless writing has
 * failed already). */
static void consume(xfer *x, const char *p, size_t n)
{
	if (__atomic_load_n(&x->write_errno, __ATOMIC_ACQUIRE) || x->fd < 0)
		return;
	if (write_out(x, p, n) < 0)
		return;
	if (x->hash)
		ab_sha256_update(x->hash, p, n);
}

static void *sink_main(void *arg)
{
	sink_thread *t = arg;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		struct sink_job j;

		while (!t->count && !t->stop)
			pthread_cond_wait(&t->wake, &t->lock);
		if (!t->count)
			break;
		j = t->queue[t->head];
		t->head = (t->head + 1) % MAX_QUEUED;
		t->count--;
		t->busy = 1;
		pthread_mutex_unlock(&t->lock);
		consume(j.x, j.buf, j.len);
		pthread_mutex_lock(&t->lock);
		t->busy = 0;
		if (t->nspare < MAX_QUEUED + 1)
			t->spare[t->nspare++] = j.buf;
		else
			free(j.buf);
		pthread_cond_broadcast(&t->done);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

void ab_sink_init(sink_thread *t)
{
	memset(t, 0, sizeof *t);
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	pthread_cond_init(&t->done, NULL);
}

/* Waits until every buffer handed over has been written and hashed:
 * before anything looks at a file, its hash or its write error. */
void ab_sink_wait(sink_thread *t)
{
	if (!t || !t->started)
		return;
	pthread_mutex_lock(&t->lock);
	while (t->count || t->busy)
		pthread_cond_wait(&t->done, &t->lock);
	pthread_mutex_unlock(&t->lock);
}

void ab_sink_end(sink_thread *t)
{
	if (t->started) {
		pthread_mutex_lock(&t->lock);
		t->stop = 1;
		pthread_cond_signal(&t->wake);
		pthread_mutex_unlock(&t->lock);
		pthread_join(t->thread, NULL);
	}
	while (t->nspare)
		free(t->spare[--t->nspare]);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->wake);
	pthread_cond_destroy(&t->done);
}

/* Hands x's full buffer to the sink thread and gives x an empty one. */
void ab_sink_hand_over(xfer *x)
{
	sink_thread *t = x->sink;

	pthread_mutex_lock(&t->lock);
	if (!t->started) {
		if (pthread_create(&t->thread, NULL, sink_main, t) != 0) {
			pthread_mutex_unlock(&t->lock);
			consume(x, x->wbuf, x->wlen);	/* no thread: do it here */
			x->wlen = 0;
			return;
		}
		t->started = 1;
	}
	while (t->count == MAX_QUEUED)
		pthread_cond_wait(&t->done, &t->lock);
	t->queue[(t->head + t->count) % MAX_QUEUED] = (struct sink_job){ x, x->wbuf, x->wlen };
	t->count++;
	pthread_cond_signal(&t->wake);
	x->wbuf = t->nspare ? t->spare[--t->nspare] : NULL;
	pthread_mutex_unlock(&t->lock);
	if (!x->wbuf)
		x->wbuf = ab_xmalloc(WBUF_SIZE);
	x->wlen = 0;
}

/* Writes and hashes what the buffer holds, after everything handed over
 * before it; -1 with x->write_errno. */
int ab_sink_flush(xfer *x)
{
	ab_sink_wait(x->sink);
	if (x->wlen)
		consume(x, x->wbuf, x->wlen);
	x->wlen = 0;
	return x->write_errno ? -1 : 0;
}
