/* loadfd.c - loading a shared object from an open descriptor through
 * /proc/self/fd/N, so that the file the trust and ABI checks read is the
 * file that runs.
 *
 * The dynamic loader knows objects by name, and remembers every name an
 * object was asked for (an object loaded twice gets the second name as an
 * alias). A name /proc/self/fd/N outlives descriptor N: after N is closed
 * and reused for another file, dlopen() of the same name would hand back
 * the old object. So the loader is first asked, with RTLD_NOLOAD (which
 * loads nothing and runs no code), whether it already has an object for
 * the name or for the file behind it. If not, the name is loaded: that is
 * our descriptor's file. If it has one, the object is checked against the
 * descriptor (device and inode of its mapping in /proc/self/maps): the
 * same file is used as it is; another one (a stale name) makes the
 * descriptor move to another number and the question start again.
 *
 * Each plugin's descriptor is closed once it is loaded, so the next one
 * would get the same number, and its name would be the stale one every
 * time (a short `animkit info` read /proc/self/maps 28 times for 8
 * plugins). So the n-th load of a registry first moves its descriptor to
 * number FRESH_FD + n or above, a name that registry has not used; where
 * that number was taken, the check above still decides. */
#define _GNU_SOURCE /* dlinfo(), RTLD_NOLOAD */
#include "registry.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MAX_TRIES 64
#define FRESH_FD 100

int ak_maps_find(FILE *maps, uintptr_t at, unsigned *maj, unsigned *min, unsigned long *ino)
{
    char line[512];
    int line_start = 1;
    while (fgets(line, sizeof line, maps)) {
        /* The rest of a line longer than the buffer is no line of its own:
         * a path name could otherwise pass for a mapping. */
        int fragment = !line_start;
        line_start = strchr(line, '\n') != NULL;
        if (fragment)
            continue;
        unsigned long start, end;
        if (sscanf(line, "%lx-%lx %*s %*s %x:%x %lu", &start, &end, maj, min, ino) != 5)
            continue;
        if (at >= start && at < end)
            return 1;
    }
    return 0;
}

/* 1 when the object `handle` is mapped from the file open as `fd`. Asked
 * only when the loader already knew the name: rare, so a plain scan. */
static int same_file(void *handle, int fd)
{
    struct link_map *lm = NULL;
    struct stat st;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_ld || fstat(fd, &st) != 0)
        return 0;
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps)
        return 0;
    unsigned maj, min;
    unsigned long ino;
    /* the dynamic section lies in a mapping of the file */
    int same = ak_maps_find(maps, (uintptr_t)lm->l_ld, &maj, &min, &ino) && maj == major(st.st_dev) &&
               min == minor(st.st_dev) && ino == (unsigned long)st.st_ino;
    fclose(maps);
    return same;
}

void *ak_load_fd(int *fd, unsigned serial)
{
    if (serial < 4096 && *fd < FRESH_FD + (int)serial) {
        int fresh = fcntl(*fd, F_DUPFD_CLOEXEC, FRESH_FD + (int)serial);
        if (fresh >= 0) { /* else (over the descriptor limit) the number it has */
            close(*fd);
            *fd = fresh;
        }
    }
    for (int tries = 0; tries < MAX_TRIES; tries++) {
        char name[64];
        snprintf(name, sizeof name, "/proc/self/fd/%d", *fd);
        void *known = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        if (!known)
            return dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (same_file(known, *fd))
            return known; /* already loaded from this file; the reference is ours */
        dlclose(known); /* another object under a stale name */
        int other = fcntl(*fd, F_DUPFD_CLOEXEC, *fd + 1);
        if (other < 0)
            return NULL;
        close(*fd);
        *fd = other;
    }
    return NULL;
}
