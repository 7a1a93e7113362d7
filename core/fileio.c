/* fileio.c - mapping inputs and replacing outputs atomically. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

ak_status ak_file_map(const char *path, ak_mapped_file *file, ak_report *report)
{
    memset(file, 0, sizeof *file);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        ak_report_emit(report, AK_ERROR, AK_E_NOINPUT, path, NULL, -1, "cannot open: %s", strerror(errno));
        return AK_E_NOINPUT;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ak_report_emit(report, AK_ERROR, AK_E_NOINPUT, path, NULL, -1, "not a regular file");
        close(fd);
        return AK_E_NOINPUT;
    }
    if (st.st_size == 0) {
        file->data = (const unsigned char *)"";
        close(fd);
        return AK_OK;
    }
    if ((uintmax_t)st.st_size > SIZE_MAX) {
        ak_report_emit(report, AK_ERROR, AK_E_NOINPUT, path, NULL, -1, "file too large to map");
        close(fd);
        return AK_E_NOINPUT;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        ak_report_emit(report, AK_ERROR, AK_E_IO, path, NULL, -1, "cannot map: %s", strerror(errno));
        return AK_E_IO;
    }
    file->data = p;
    file->size = (size_t)st.st_size;
    file->mapped_ = 1;
    return AK_OK;
}

void ak_file_unmap(ak_mapped_file *file)
{
    if (file->mapped_)
        munmap((void *)file->data, file->size);
    memset(file, 0, sizeof *file);
}

static long posix_write(int fd, const void *buf, size_t n) { return (long)write(fd, buf, n); }

const ak_file_ops ak_posix_file_ops = { posix_write, fsync, rename };

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

ak_status ak_file_replace_with(const ak_file_ops *ops, const char *path, const void *bytes, size_t size,
                               unsigned flags, ak_report *report)
{
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && !(flags & AK_WRITE_OVERWRITE)) {
        ak_report_emit(report, AK_ERROR, AK_E_CANTCREATE, path, NULL, -1,
                       "already exists; pass --force to replace it");
        return AK_E_CANTCREATE;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        ak_report_emit(report, AK_ERROR, AK_E_CANTCREATE, path, NULL, -1, "exists and is not a regular file");
        return AK_E_CANTCREATE;
    }
    /* The temporary file sits beside the target so the rename stays on one
     * file system and is atomic. */
    char tmp[PATH_MAX];
    const char *slash = strrchr(path, '/');
    int n = slash ? snprintf(tmp, sizeof tmp, "%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1)
                  : snprintf(tmp, sizeof tmp, ".%s.XXXXXX", path);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        ak_report_emit(report, AK_ERROR, AK_E_CANTCREATE, path, NULL, -1, "path too long");
        return AK_E_CANTCREATE;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        ak_report_emit(report, AK_ERROR, AK_E_CANTCREATE, path, NULL, -1,
                       "cannot create a temporary file beside it: %s", strerror(errno));
        return AK_E_CANTCREATE;
    }
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    ak_status result = write_all(ops, fd, bytes, size, path, report);
    if (result == AK_OK && ops->fsync(fd) != 0) {
        ak_report_emit(report, AK_ERROR, AK_E_IO, path, NULL, -1, "flushing to disk failed: %s", strerror(errno));
        result = AK_E_IO;
    }
    if (result == AK_OK && fchmod(fd, mode) != 0) {
        ak_report_emit(report, AK_ERROR, AK_E_IO, path, NULL, -1, "cannot set permissions: %s", strerror(errno));
        result = AK_E_IO;
    }
    if (close(fd) != 0 && result == AK_OK) {
        ak_report_emit(report, AK_ERROR, AK_E_IO, path, NULL, -1, "closing failed: %s", strerror(errno));
        result = AK_E_IO;
    }
    if (result == AK_OK && ops->rename(tmp, path) != 0) {
        ak_report_emit(report, AK_ERROR, AK_E_CANTCREATE, path, NULL, -1, "cannot move the new file into place: %s",
                       strerror(errno));
        result = AK_E_CANTCREATE;
    }
    if (result != AK_OK)
        unlink(tmp);
    return result;
}

ak_status ak_file_replace(const char *path, const void *bytes, size_t size, unsigned flags, ak_report *report)
{
    return ak_file_replace_with(&ak_posix_file_ops, path, bytes, size, flags, report);
}
