/* sibling.c - reading a file that lies beside a read's input (ABI 1.2),
 * for formats that keep data in companion files (.gltf + .bin). Only plain
 * relative names inside the input's folder are allowed; the bytes come
 * from the job's scratch memory, so they count against the read's cap. */
#define _GNU_SOURCE /* realpath */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why `name` is not a plain relative name, or NULL when it is. */
static const char *name_problem(const char *name)
{
    if (!*name)
        return "it is empty";
    if (name[0] == '/')
        return "it is an absolute path";
    if (strchr(name, '\\'))
        return "it contains a backslash";
    if (strchr(name, ':'))
        return "it has a URL scheme or drive (':')";
    for (const char *p = name; *p;) {
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 0)
            return "it has an empty path component";
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return "it leaves the input's folder ('..')";
        p += n + (end ? 1 : 0);
    }
    return NULL;
}

/* The input's folder with a trailing '/', into buf ("" for the current). */
static int input_folder(const char *input, char *buf, size_t size)
{
    const char *slash = strrchr(input, '/');
    size_t n = slash ? (size_t)(slash - input) + 1 : 0;
    if (n >= size)
        return 0;
    memcpy(buf, input, n);
    buf[n] = '\0';
    return 1;
}

/* 1 when the real path of `path` lies inside the real path of `folder`
 * (symbolic links cannot lead out). */
static int stays_inside(const char *folder, const char *path)
{
    char real_folder[PATH_MAX], real_path[PATH_MAX];
    if (!realpath(*folder ? folder : ".", real_folder) || !realpath(path, real_path))
        return 0;
    size_t n = strlen(real_folder);
    if (n == 1) /* the root folder */
        return 1;
    return strncmp(real_path, real_folder, n) == 0 && real_path[n] == '/';
}

ak_status ak_job_read_sibling(ak_job *job, const char *name, const unsigned char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    const char *input = ak_job_filename(job);
    const char *problem = name_problem(name);
    if (problem)
        return ak_fail(job, AK_E_DATA, -1, "companion file '%s' refused: %s", name, problem);
    if (!input)
        return ak_fail(job, AK_E_NOINPUT, -1, "companion file '%s': the input has no file name to look beside", name);
    char path[PATH_MAX];
    if (!input_folder(input, path, sizeof path) || strlen(path) + strlen(name) >= sizeof path)
        return ak_fail(job, AK_E_NOINPUT, -1, "companion file '%s': path too long", name);
    size_t folder_len = strlen(path);
    memcpy(path + folder_len, name, strlen(name) + 1);
    /* O_NONBLOCK: a FIFO named by a file (a mod archive can hold one) must
     * be refused, not waited on for a writer that never comes. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return ak_fail(job, AK_E_NOINPUT, -1, "companion file '%s': %s", path, strerror(errno));
    char folder[PATH_MAX];
    memcpy(folder, path, folder_len);
    folder[folder_len] = '\0';
    struct stat st;
    ak_status status = AK_OK;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        status = ak_fail(job, AK_E_NOINPUT, -1, "companion file '%s': not a regular file", path);
    else if (!stays_inside(folder, path))
        status = ak_fail(job, AK_E_DATA, -1, "companion file '%s' refused: it leads out of the input's folder", name);
    unsigned char *buf = NULL;
    size_t n = status == AK_OK ? (size_t)st.st_size : 0;
    if (status == AK_OK && !(buf = ak_job_alloc(job, n ? n : 1, 1)))
        status = job->status; /* over the read's cap, or out of memory */
    if (status == AK_OK && ak_read_full(fd, buf, n) != n) {
        ak_job_free(job, buf);
        status = ak_fail(job, AK_E_IO, -1, "companion file '%s': short read", path);
    }
    close(fd);
    if (status != AK_OK)
        return status;
    *data = buf;
    *size = n;
    return AK_OK;
}
