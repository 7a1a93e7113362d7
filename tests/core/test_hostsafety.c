/* test_hostsafety.c - what a host process must be able to rely on while
 * animkit reads and writes files: no process-wide state changes (umask),
 * no signal from a file truncated under a read, no hang on a FIFO, and an
 * output path that is never replaced without AK_WRITE_OVERWRITE, not even
 * when it is a dangling symbolic link or appears during the write. */
#include "testutil.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char dir[PATH_MAX];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/ak-host-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Every umask() call the library makes lands here (this definition takes
 * precedence over the C library's for the shared libanimkit). */
static atomic_int umask_calls, counting;
mode_t umask(mode_t mask);
mode_t umask(mode_t mask)
{
    if (atomic_load(&counting))
        atomic_fetch_add(&umask_calls, 1);
    return (mode_t)syscall(SYS_umask, mask);
}

START_TEST(writing_never_touches_the_umask)
{
    setup();
    umask(027);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/out.bin", dir);
    atomic_store(&counting, 1);
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_file_replace(path, "data", 4, 0, &rep), AK_OK);
    atomic_store(&counting, 0);
    int calls = atomic_load(&umask_calls);
    ck_assert_msg(calls == 0, "the library called umask() %d times", calls);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0666 & ~027); /* the umask still applies */
}
END_TEST

typedef struct creator {
    const char *dir;
    atomic_int stop;
    long files, wrong;
} creator;

static void *create_files(void *arg)
{
    creator *c = arg;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/host-file", c->dir);
    while (!atomic_load(&c->stop)) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0)
            continue;
        struct stat st;
        if (fstat(fd, &st) == 0 && (st.st_mode & 0777) != 0600)
            c->wrong++;
        c->files++;
        close(fd);
        unlink(path);
    }
    return NULL;
}

/* A host thread creates files under umask 077 while another converts:
 * every one of its files must be 0600. */
START_TEST(host_thread_keeps_its_umask_while_writing)
{
    setup();
    umask(077);
    creator c = { dir, 0, 0, 0 };
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, create_files, &c), 0);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/out.bin", dir);
    for (int i = 0; i < 300; i++) {
        ak_report rep = { 0 };
        ck_assert_int_eq(ak_file_replace(path, "data", 4, AK_WRITE_OVERWRITE, &rep), AK_OK);
    }
    atomic_store(&c.stop, 1);
    pthread_join(t, NULL);
    ck_assert_int_gt(c.files, 0);
    ck_assert_msg(c.wrong == 0, "%ld of %ld host files got a wrong mode", c.wrong, c.files);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);
}
END_TEST

START_TEST(truncated_input_gives_no_signal)
{
    setup();
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/big.bin", dir);
    size_t n = 1 << 20;
    unsigned char *bytes = malloc(n);
    for (size_t i = 0; i < n; i++)
        bytes[i] = (unsigned char)(i * 7);
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_file_replace(path, bytes, n, 0, &rep), AK_OK);
    ak_mapped_file f;
    ck_assert_int_eq(ak_file_map(path, &f, &rep), AK_OK);
    /* Another process truncates the file while the host still uses it:
     * with a mapping, touching the pages would raise SIGBUS. */
    ck_assert_int_eq(truncate(path, 0), 0);
    unsigned long sum = 0, expect = 0;
    for (size_t i = 0; i < n; i++) {
        sum += f.data[i];
        expect += bytes[i];
    }
    ck_assert_uint_eq(sum, expect);
    ak_file_unmap(&f);
    free(bytes);
}
END_TEST

START_TEST(fifo_input_is_refused_at_once)
{
    setup();
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/pipe.ifp", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    /* Without a writer, a blocking open() would wait forever (the test's
     * timeout then fails it). */
    ak_mapped_file f;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_file_map(path, &f, &rep), AK_E_NOINPUT);
    ck_assert_ptr_nonnull(strstr(rep.message, "not a regular file"));
    const ak_codec *none[] = { NULL };
    ak_registry *reg = ak_test_registry(none);
    ak_doc *doc = NULL;
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_read_file(reg, path, NULL, &doc, &rep2), AK_E_NOINPUT);
    ak_registry_free(reg);
}
END_TEST

START_TEST(dangling_symlink_is_not_replaced)
{
    setup();
    char link[PATH_MAX + 16], where[PATH_MAX + 16];
    snprintf(link, sizeof link, "%s/out.bin", dir);
    snprintf(where, sizeof where, "%s/not-yet", dir);
    ck_assert_int_eq(symlink(where, link), 0);
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_file_replace(link, "data", 4, 0, &rep), AK_E_CANTCREATE);
    ck_assert_ptr_nonnull(strstr(rep.message, "already exists; pass --force"));
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_ne(access(where, F_OK), 0);
    /* With --force the link itself is replaced, not its target created. */
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_file_replace(link, "data", 4, AK_WRITE_OVERWRITE, &rep2), AK_OK);
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISREG(st.st_mode));
    ck_assert_int_ne(access(where, F_OK), 0);
}
END_TEST

/* A writer that makes the target appear while the temporary file is being
 * written, as a racing process would after the existence check. */
static char race_target[PATH_MAX + 16];
static long write_and_race(int fd, const void *b, size_t n)
{
    int other = open(race_target, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (other >= 0) {
        ck_assert_int_eq(write(other, "theirs", 6), 6);
        close(other);
    }
    return (long)write(fd, b, n);
}

START_TEST(target_appearing_during_the_write_is_kept)
{
    setup();
    snprintf(race_target, sizeof race_target, "%s/out.bin", dir);
    ak_file_ops ops = ak_posix_file_ops;
    ops.write = write_and_race;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_file_replace_with(&ops, race_target, "mine", 4, 0, &rep), AK_E_CANTCREATE);
    ck_assert_ptr_nonnull(strstr(rep.message, "already exists"));
    size_t n;
    unsigned char *b = ak_test_slurp(race_target, &n);
    ck_assert(n == 6 && memcmp(b, "theirs", 6) == 0);
    free(b);
}
END_TEST

START_TEST(long_output_name_fits)
{
    setup();
    char name[251], path[PATH_MAX + 300];
    memset(name, 'a', 250);
    name[250] = '\0';
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ak_report rep = { 0 };
    ck_assert_msg(ak_file_replace(path, "x", 1, 0, &rep) == AK_OK, "%s", rep.message);
    ck_assert_int_eq(access(path, F_OK), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hostsafety");
    TCase *tc = tcase_create("hostsafety");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, writing_never_touches_the_umask);
    tcase_add_test(tc, host_thread_keeps_its_umask_while_writing);
    tcase_add_test(tc, truncated_input_gives_no_signal);
    tcase_add_test(tc, fifo_input_is_refused_at_once);
    tcase_add_test(tc, dangling_symlink_is_not_replaced);
    tcase_add_test(tc, target_appearing_during_the_write_is_kept);
    tcase_add_test(tc, long_output_name_fits);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
