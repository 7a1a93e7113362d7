/* trust.c - whether a plugin or config file may be used: the rule sudo and
 * OpenSSH apply. The file and every folder on its resolved path must belong
 * to root or to the effective user and must not be writable by group or
 * others; a sticky folder (/tmp) is not safe either, since its other users
 * may still create names in it. The file is checked as opened (fstat on
 * the descriptor, its path read back from /proc), so the caller can use
 * that same descriptor and nothing can be swapped in between. */
#include "registry.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ak_trust_unsafe_env(void)
{
    const char *v = getenv("ANIMKIT_UNSAFE_PLUGINS");
    return v && strcmp(v, "1") == 0;
}

static int owner_ok(uid_t uid) { return uid == 0 || uid == geteuid(); }

/* Why `st` (of `what` named `path`) is not safe, or 0 when it is. */
static int unsafe_entry(const struct stat *st, const char *what, const char *path, char *why, size_t n)
{
    if (!owner_ok(st->st_uid)) {
        snprintf(why, n, "%s %s belongs to uid %u, not to root or to you (uid %u); fix with chown, or "
                 "move it", what, path, (unsigned)st->st_uid, (unsigned)geteuid());
        return 1;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, n, "%s %s is writable by %s (mode %04o)%s; fix with chmod go-w %s, or move it", what, path,
                 (st->st_mode & S_IWOTH) ? "others" : "its group", (unsigned)(st->st_mode & 07777),
                 (st->st_mode & S_ISVTX) ? ", and a sticky folder is not safe either" : "", path);
        return 1;
    }
    return 0;
}

/* The path the open file `fd` has now, with every symbolic link resolved. */
static int resolved_path(int fd, const char *path, char *out, size_t n)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(link, out, n - 1);
    if (len > 0 && (size_t)len < n - 1 && out[0] == '/') {
        out[len] = '\0';
        return 1;
    }
    /* No /proc: resolve by name and make sure it is still the same file. */
    char real[PATH_MAX];
    struct stat a, b;
    if (!realpath(path, real) || strlen(real) >= n || stat(real, &a) != 0 || fstat(fd, &b) != 0 ||
        a.st_dev != b.st_dev || a.st_ino != b.st_ino)
        return 0;
    snprintf(out, n, "%s", real);
    return 1;
}

static int unsafe_folders(const char *real, char *why, size_t n)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", real);
    for (;;) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            return 0;
        if (slash == dir)
            slash[1] = '\0'; /* the root folder itself */
        else
            *slash = '\0';
        struct stat st;
        if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(why, n, "folder %s cannot be checked", dir);
            return 1;
        }
        if (unsafe_entry(&st, "folder", dir, why, n))
            return 1;
        if (slash == dir)
            return 0;
    }
}

int ak_trust_open(const char *path, const char *what, int unsafe, char *why, size_t n)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(why, n, "%s", errno == ENOENT ? "file not found" : strerror(errno));
        return -1;
    }
    struct stat st;
    char real[PATH_MAX];
    int bad = 1;
    if (fstat(fd, &st) != 0)
        snprintf(why, n, "cannot be checked: %s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(why, n, "not a regular file");
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        snprintf(why, n, "writable by other users (mode %03o); fix with chmod go-w %s",
                 (unsigned)(st.st_mode & 0777), path);
    else if (unsafe)
        bad = 0;
    else if (!resolved_path(fd, path, real, sizeof real))
        snprintf(why, n, "its real path cannot be found, so its folders cannot be checked");
    else if (!unsafe_entry(&st, what, real, why, n) && !unsafe_folders(real, why, n))
        bad = 0;
    if (bad) {
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}
