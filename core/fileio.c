/* fileio.c - reading inputs into memory and replacing outputs atomically. */
#define _GNU_SOURCE /* renameat2(), RENAME_NOREPLACE */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static ak_status input_error(ak_report *report, ak_status st, const char *path, const char *what, int fd)
{
    ak_report_emit(report, AK_ERROR, st, path, NULL, -1, "%s", what);
    if (fd >= 0)
        close(fd);
    return st;
}

/* A large buffer's pages are made present in one call before read()
 * fills them: otherwise the copy faults them in one page at a time, which
 * in a virtual machine costs more than the copy (`animkit info
 * ped_cretaceous.ifp`, 1.3 MB: 484 page faults a process, 172 with this;
 * whole-process medians 16.7-21.2 ms against 18.6-21.5 without, in
 * alternating runs). Only a hint: kernels before 5.14 refuse it, and the
 * faults happen as before. */
static void populate(unsigned char *p, size_t size)
{
#ifdef MADV_POPULATE_WRITE
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || size < 16 * (size_t)page)
        return;
    uintptr_t start = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t end = ((uintptr_t)p + size) & ~((uintptr_t)page - 1);
    if (end > start)
        (void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)size;
#endif
}

/* An input of half a huge page or more gets whole huge pages of its own:
 * in a virtual machine the first touch of every 4 KiB page costs more
 * than its copy, once when read() fills it and again when the plugin first
 * reads it (ped_cretaceous.ifp, 1.3 MB, fresh process: 2.8 ms to load it
 * and walk it once in 4 KiB pages, 0.4 ms in one 2 MiB page). At most
 * 2 MiB of padding, never touched where huge pages are not available. */
#define HUGE_PAGE ((size_t)2 << 20)

static unsigned char *input_buffer(size_t size)
{
#ifdef MADV_HUGEPAGE
    if (size >= HUGE_PAGE / 2 && size <= SIZE_MAX - HUGE_PAGE) {
        size_t padded = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *p = NULL;
        if (posix_memalign(&p, HUGE_PAGE, padded) != 0)
            return NULL;
        (void)madvise(p, padded, MADV_HUGEPAGE);
        return p;
    }
#endif
    return malloc(size);
}

size_t ak_read_full(int fd, void *buf, size_t n)
{
    unsigned char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got;
}

/* The input is read, not mapped: a mapped file that another process
 * truncates kills the reader with SIGBUS, and a host must never die of
 * its input. */
ak_status ak_file_map(const char *path, ak_mapped_file *file, ak_report *report)
{
    memset(file, 0, sizeof *file);
    /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        ak_report_emit(report, AK_ERROR, AK_E_NOINPUT, path, NULL, -1, "cannot open: %s", strerror(errno));
        return AK_E_NOINPUT;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return input_error(report, AK_E_NOINPUT, path, "not a regular file", fd);
    if (st.st_size == 0) {
        file->data = (const unsigned char *)"";
        close(fd);
        return AK_OK;
    }
    if ((uintmax_t)st.st_size > SIZE_MAX / 2)
        return input_error(report, AK_E_NOINPUT, path, "file too large to read", fd);
    size_t size = (size_t)st.st_size;
    unsigned char *data = input_buffer(size);
    if (!data)
        return input_error(report, AK_E_NOMEM, path, "not enough memory to read the file", fd);
    populate(data, size);
    size_t got = ak_read_full(fd, data, size);
    struct stat after;
    const char *changed = got < size ? "the file shrank while being read"
                          : fstat(fd, &after) != 0 || after.st_size != st.st_size ||
                                after.st_mtim.tv_sec != st.st_mtim.tv_sec ||
                                after.st_mtim.tv_nsec != st.st_mtim.tv_nsec
                              ? "the file changed while being read"
                              : NULL;
    if (changed) {
        free(data);
        return input_error(report, AK_E_IO, path, changed, fd);
    }
    close(fd);
    file->data = data;
    file->size = size;
    file->mapped_ = 1;
    return AK_OK;
}

void ak_file_unmap(ak_mapped_file *file)
{
    if (file->mapped_)
        free((void *)file->data);
    memset(file, 0, sizeof *file);
}

static long posix_write(int fd, const void *buf, size_t n) { return (long)write(fd, buf, n); }

static int kernel_rename_noreplace(const char *from, const char *to)
{
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

static const ak_noreplace_calls posix_noreplace_calls = { kernel_rename_noreplace, link, rename };

int ak_move_noreplace(const ak_noreplace_calls *calls, const char *from, const char *to)
{
    if (calls->rename_noreplace(from, to) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    /* The file system has no RENAME_NOREPLACE: link() never replaces. */
    if (calls->link(from, to) == 0) {
        unlink(from);
        return 0;
    }
    if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS)
        return -1;
    /* Nor hard links (FAT, shared folders of some virtual machines): look,
     * then rename. A file made at `to` in between would be replaced; such a
     * file system offers nothing atomic, and failing would leave --force,
     * which does not even look. */
    struct stat st;
    if (lstat(to, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    if (errno != ENOENT)
        return -1;
    return calls->rename(from, to);
}

/* Moves `from` to `to` unless `to` exists in any form (a dangling symbolic
 * link included), atomically where the file system allows it. */
static int posix_rename_noreplace(const char *from, const char *to)
{
    return ak_move_noreplace(&posix_noreplace_calls, from, to);
}

const ak_file_ops ak_posix_file_ops = { posix_write, fsync, rename, posix_rename_noreplace };

static ak_status write_all(const ak_file_ops *ops, int fd, const unsigned char *p, size_t n,
                           const char *path, ak_report *report)
{
    while (n > 0) {
        long w = ops->write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            const char *why = w == 0 ? "the device accepted no more bytes" : strerror(errno);
            ak_report_emit(report, AK_ERROR, AK_E_IO, path, NULL, -1, "write failed: %s", why);
            return AK_E_IO;
        }
        p += w;
        n -= (size_t)w;
    }
    return AK_OK;
}

/* Creates a fresh temporary file beside `path` with mode 0666 less the
 * process umask, applied by the kernel: reading the umask would mean
 * changing it, which other threads of the host would see. The name does
 * not contain the target's, so any name that fits fits here too. */
static int create_temp(const char *path, char *tmp, size_t n)
{
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    for (int tries = 0; tries < 100; tries++) {
        uint64_t r = 0;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
            r = ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)tmp ^ (uint64_t)tries * 0x9e3779b97f4a7c15u;
        int len = snprintf(tmp, n, "%.*s.ak-%016llx.tmp", dir_len, path, (unsigned long long)r);
        if (len < 0 || (size_t)len >= n) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

static ak_status move_into_place(const ak_file_ops *ops, const char *tmp, const char *path, unsigned flags,
                                 ak_report *report)
{
    int (*no_replace)(const char *, const char *) = ops->rename_noreplace ? ops->rename_noreplace
                                                                          : posix_rename_noreplace;
    int rc = (flags & AK_WRITE_OVERWRITE) ? ops->rename(tmp, path) : no_replace(tmp, path);
    if (rc == 0)
        return AK_OK;
    if (errno == EEXIST)
        ak_report_emit(report, AK_ERROR, AK_E_CANTCREATE, path, NULL, -1,
                       "already exists; pass --force to replace it");
    else
        ak_report_emit(report, AK_ERROR, AK_E_CANTCREATE, path, NULL, -1,
                       "cannot move the new file into place: %s", strerror(errno));
    return AK_E_CANTCREATE;
}

ak_status ak_file_replace_with(const ak_file_ops *ops, const char *path, const void *bytes, size_t size,
                               unsigned flags, ak_report *report)
{
    /* lstat: a symbolic link at the path, even a dangling one, exists. The
     * check only fails early; the no-replace move is what guarantees it. */
    struct stat st;
    int exists = lstat(path, &st) == 0;
    if (exists && !(flags & AK_WRITE_OVERWRITE)) {
        ak_report_emit(report, AK_ERROR, AK_E_CANTCREATE, path, NULL, -1,
                       "already exists; pass --force to replace it");
        return AK_E_CANTCREATE;
    }
    if (exists && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
        ak_report_emit(report, AK_ERROR, AK_E_CANTCREATE, path, NULL, -1, "exists and is not a regular file");
        return AK_E_CANTCREATE;
    }
    char tmp[PATH_MAX];
    int fd = create_temp(path, tmp, sizeof tmp);
    if (fd < 0) {
        ak_report_emit(report, AK_ERROR, AK_E_CANTCREATE, path, NULL, -1,
                       "cannot create a temporary file beside it: %s", strerror(errno));
        return AK_E_CANTCREATE;
    }
    ak_status result = write_all(ops, fd, bytes, size, path, report);
    if (result == AK_OK && ops->fsync(fd) != 0) {
        ak_report_emit(report, AK_ERROR, AK_E_IO, path, NULL, -1, "flushing to disk failed: %s", strerror(errno));
        result = AK_E_IO;
    }
    /* A replaced regular file keeps its mode (a replaced link does not
     * lend its target's). */
    if (result == AK_OK && exists && S_ISREG(st.st_mode) && fchmod(fd, st.st_mode & 07777) != 0) {
        ak_report_emit(report, AK_ERROR, AK_E_IO, path, NULL, -1, "cannot set permissions: %s", strerror(errno));
        result = AK_E_IO;
    }
    if (close(fd) != 0 && result == AK_OK) {
        ak_report_emit(report, AK_ERROR, AK_E_IO, path, NULL, -1, "closing failed: %s", strerror(errno));
        result = AK_E_IO;
    }
    if (result == AK_OK)
        result = move_into_place(ops, tmp, path, flags, report);
    if (result != AK_OK)
        unlink(tmp);
    return result;
}

ak_status ak_file_replace(const char *path, const void *bytes, size_t size, unsigned flags, ak_report *report)
{
    return ak_file_replace_with(&ak_posix_file_ops, path, bytes, size, flags, report);
}
