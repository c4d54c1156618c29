/*
 * A wall clock that can jump, for one redis-server: preloaded
 * (LD_PRELOAD) into the process, it answers gettimeofday(), time() and
 * clock_gettime(CLOCK_REALTIME...) with the machine's wall clock plus an
 * offset in milliseconds, read on every call from the first 8 bytes of
 * the file named by DISTLOCK_WALL_CLOCK_FILE (a little-endian int64). The
 * harness writes a new offset there while the server runs: a step of the
 * wall clock, as an NTP step or an operator's `date -s` makes, and Redis's
 * key expiry, which reads that clock, follows it. The monotonic clocks are
 * left alone, as such a step leaves them.
 *
 * Why not libfaketime: Debian's redis-server is linked with jemalloc,
 * which reads the clock while it initializes, before libfaketime can look
 * up the real functions (libfaketime issue 130): the server never starts.
 * This file calls no allocator and looks nothing up: it reads the clocks
 * with the clock_gettime system call itself.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile const int64_t *offset_ms;

__attribute__((constructor)) static void map_offset(void) {
    const char *path = getenv("DISTLOCK_WALL_CLOCK_FILE");
    if (path == NULL) {
        return;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return;
    }
    void *p = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (p != MAP_FAILED) {
        offset_ms = p;
    }
}

static int is_wall_clock(clockid_t id) {
    return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_TAI;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    long done = syscall(SYS_clock_gettime, id, ts);
    if (done != 0 || offset_ms == NULL || !is_wall_clock(id)) {
        return (int)done;
    }
    int64_t ns = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec + *offset_ms * 1000000;
    ts->tv_sec = ns / 1000000000;
    ts->tv_nsec = ns % 1000000000;
    if (ts->tv_nsec < 0) {
        ts->tv_sec -= 1;
        ts->tv_nsec += 1000000000;
    }
    return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    (void)tz;
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) {
        return -1;
    }
    /* glibc declares tv non-null. */
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *t) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) {
        return (time_t)-1;
    }
    if (t != NULL) {
        *t = ts.tv_sec;
    }
    return ts.tv_sec;
}
