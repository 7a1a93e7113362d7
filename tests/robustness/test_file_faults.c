/* test_file_faults.c - write failures through ak_file_replace_with() with
 * fake file operations: disk full, short writes, a device that takes no
 * more bytes, interrupted calls, a failing flush and a failing rename. Each
 * failure must end in a clean error, leave no temporary file behind and
 * leave an existing target with its old bytes and mode. */
#include "robust.h"
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the fake operations do (test-only state; the core itself has none). */
static struct {
    long write_calls;
    long fail_write_at;  /* write call that fails (1-based), 0 = none */
    int fail_errno;      /* errno of that failure, 0 = return 0 bytes instead */
    size_t max_chunk;    /* most bytes one write call takes, 0 = all */
    long eintr_at;       /* write call that fails once with EINTR */
    int fail_fsync;      /* errno for fsync, 0 = works */
    int fail_rename;     /* errno for rename, 0 = works */
    long renames;
} fake;

static void fake_reset(void)
{
    memset(&fake, 0, sizeof fake);
}

static long fake_write(int fd, const void *buf, size_t n)
{
    fake.write_calls++;
    if (fake.eintr_at && fake.write_calls == fake.eintr_at) {
        errno = EINTR;
        return -1;
    }
    if (fake.fail_write_at && fake.write_calls >= fake.fail_write_at) {
        if (!fake.fail_errno)
            return 0;
        errno = fake.fail_errno;
        return -1;
    }
    if (fake.max_chunk && n > fake.max_chunk)
        n = fake.max_chunk;
    return (long)write(fd, buf, n);
}

static int fake_fsync(int fd)
{
    if (fake.fail_fsync) {
        errno = fake.fail_fsync;
        return -1;
    }
    return fsync(fd);
}

static int fake_rename(const char *from, const char *to)
{
    fake.renames++;
    if (fake.fail_rename) {
        errno = fake.fail_rename;
        return -1;
    }
    return rename(from, to);
}

static int fake_rename_noreplace(const char *from, const char *to)
{
    fake.renames++;
    if (fake.fail_rename) {
        errno = fake.fail_rename;
        return -1;
    }
    return ak_posix_file_ops.rename_noreplace(from, to);
}

static const ak_file_ops fake_ops = { fake_write, fake_fsync, fake_rename, fake_rename_noreplace };

/* ---- helpers ------------------------------------------------------------ */

static char dir[64];
static char target[128];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/ak-filefault-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(target, sizeof target, "%s/out.anm", dir);
}

/* Number of entries in the folder besides . and .. */
static int dir_entries(char *first, size_t size)
{
    DIR *d = opendir(dir);
    ck_assert(d != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == 0 && first)
            snprintf(first, size, "%s", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char p[512];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

static void put_file(const char *path, const char *text, mode_t mode)
{
    FILE *fp = fopen(path, "wb");
    ck_assert(fp != NULL);
    fputs(text, fp);
    fclose(fp);
    ck_assert_int_eq(chmod(path, mode), 0);
}

static void assert_file(const char *path, const unsigned char *bytes, size_t size, mode_t mode)
{
    size_t n;
    unsigned char *got = ak_test_slurp(path, &n);
    ck_assert_msg(ak_test_same_bytes(bytes, size, got, n, path), "%s has the wrong bytes", path);
    free(got);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_msg((st.st_mode & 07777) == mode, "%s: mode %o, want %o", path, (unsigned)(st.st_mode & 07777),
                  (unsigned)mode);
}

static unsigned char payload[20000];

static void fill_payload(void)
{
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (unsigned char)(i * 131u + (i >> 8));
}

#define OLD_TEXT "old contents that must survive\n"

/* Runs one failing replacement twice (no target; an existing target) and
 * checks the aftermath. */
static void expect_failure(void (*arm)(void), const char *what)
{
    for (int existing = 0; existing < 2; existing++) {
        make_dir();
        if (existing)
            put_file(target, OLD_TEXT, 0640);
        fake_reset();
        arm();
        ak_report rep = { 0 };
        ak_status st = ak_file_replace_with(&fake_ops, target, payload, sizeof payload,
                                            existing ? AK_WRITE_OVERWRITE : 0, &rep);
        ck_assert_msg(st == AK_E_IO || st == AK_E_CANTCREATE, "%s: status %s", what, ak_status_name(st));
        ck_assert_int_eq(rep.status, st);
        ck_assert_msg(strstr(rep.message, target) != NULL, "%s: message does not name the file: %s", what,
                      rep.message);
        char name[256] = "";
        int entries = dir_entries(name, sizeof name);
        if (existing) {
            ck_assert_msg(entries == 1 && !strcmp(name, "out.anm"), "%s: %d entries left (first %s)", what,
                          entries, name);
            assert_file(target, (const unsigned char *)OLD_TEXT, strlen(OLD_TEXT), 0640);
        } else {
            ck_assert_msg(entries == 0, "%s: left %s behind", what, name);
        }
        remove_dir();
    }
}

static void arm_enospc_first(void) { fake.fail_write_at = 1; fake.fail_errno = ENOSPC; }
static void arm_short_then_enospc(void) { fake.max_chunk = 4000; fake.fail_write_at = 3; fake.fail_errno = ENOSPC; }
static void arm_short_then_zero(void) { fake.max_chunk = 777; fake.fail_write_at = 5; fake.fail_errno = 0; }
static void arm_eio(void) { fake.max_chunk = 1; fake.fail_write_at = 1000; fake.fail_errno = EIO; }
static void arm_fsync(void) { fake.fail_fsync = EIO; }
static void arm_rename_exdev(void) { fake.fail_rename = EXDEV; }
static void arm_rename_eacces(void) { fake.max_chunk = 3000; fake.fail_rename = EACCES; }

START_TEST(t_disk_full) { expect_failure(arm_enospc_first, "disk full at the first write"); }
END_TEST
START_TEST(t_short_then_full) { expect_failure(arm_short_then_enospc, "short writes, then disk full"); }
END_TEST
START_TEST(t_short_then_zero) { expect_failure(arm_short_then_zero, "short writes, then 0 bytes taken"); }
END_TEST
START_TEST(t_eio_late) { expect_failure(arm_eio, "I/O error after 999 one-byte writes"); }
END_TEST
START_TEST(t_fsync) { expect_failure(arm_fsync, "flush fails"); }
END_TEST
START_TEST(t_rename_exdev) { expect_failure(arm_rename_exdev, "rename fails (EXDEV)"); }
END_TEST
START_TEST(t_rename_eacces) { expect_failure(arm_rename_eacces, "rename fails (EACCES)"); }
END_TEST

/* Disk full at every write call of a replacement done in 1000-byte pieces. */
static long sweep_at;
static void arm_sweep(void) { fake.max_chunk = 1000; fake.fail_write_at = sweep_at; fake.fail_errno = ENOSPC; }

START_TEST(t_full_at_every_call)
{
    long calls = (long)(sizeof payload + 999) / 1000;
    for (sweep_at = 1; sweep_at <= calls; sweep_at++)
        expect_failure(arm_sweep, "disk full at a later write");
}
END_TEST

/* Short writes and interrupted calls are not failures: the writer goes on
 * and the file ends complete. */
START_TEST(t_short_writes_complete)
{
    for (int existing = 0; existing < 2; existing++) {
        make_dir();
        if (existing)
            put_file(target, OLD_TEXT, 0604);
        fake_reset();
        fake.max_chunk = 333;
        fake.eintr_at = 7;
        ak_report rep = { 0 };
        ak_status st = ak_file_replace_with(&fake_ops, target, payload, sizeof payload,
                                            existing ? AK_WRITE_OVERWRITE : 0, &rep);
        ck_assert_msg(st == AK_OK, "%s", rep.message);
        ck_assert_int_gt(fake.write_calls, (long)(sizeof payload / 333));
        ck_assert_int_eq(fake.renames, 1);
        mode_t mask = umask(0);
        umask(mask);
        assert_file(target, payload, sizeof payload, existing ? 0604 : (0666 & ~mask));
        ck_assert_int_eq(dir_entries(NULL, 0), 1);
        remove_dir();
    }
}
END_TEST

/* No overwrite flag: an existing file is refused before anything is written. */
START_TEST(t_no_overwrite)
{
    make_dir();
    put_file(target, OLD_TEXT, 0600);
    fake_reset();
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_file_replace_with(&fake_ops, target, payload, 10, 0, &rep), AK_E_CANTCREATE);
    ck_assert_int_eq(fake.write_calls, 0);
    assert_file(target, (const unsigned char *)OLD_TEXT, strlen(OLD_TEXT), 0600);
    ck_assert_int_eq(dir_entries(NULL, 0), 1);
    remove_dir();
}
END_TEST

/* A folder in the way, and a folder that does not exist. */
START_TEST(t_bad_targets)
{
    make_dir();
    char sub[256];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_file_replace_with(&fake_ops, sub, payload, 10, AK_WRITE_OVERWRITE, &rep), AK_E_CANTCREATE);
    ck_assert_int_eq(dir_entries(NULL, 0), 1);
    rmdir(sub);
    char missing[256];
    snprintf(missing, sizeof missing, "%s/no/such/dir/out.ifp", dir);
    memset(&rep, 0, sizeof rep);
    ck_assert_int_eq(ak_file_replace_with(&fake_ops, missing, payload, 10, 0, &rep), AK_E_CANTCREATE);
    ck_assert(rep.message[0] != '\0');
    ck_assert_int_eq(dir_entries(NULL, 0), 0);
    remove_dir();
}
END_TEST

/* The real thing, end to end: ak_write_file through a registry. */
START_TEST(t_write_file)
{
    make_dir();
    const ak_codec *codecs[] = { rb_tst_codec(), NULL };
    ak_registry *reg = ak_test_registry(codecs);
    size_t n;
    unsigned char *bytes = rb_tst_build(1, 2, 3, &n);
    ak_doc *doc = ak_test_read(reg, bytes, n, "in.tst");
    char path[256];
    snprintf(path, sizeof path, "%s/out.tst", dir);
    put_file(path, OLD_TEXT, 0644);
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_write_file(reg, doc, path, NULL, 0, &rep), AK_E_CANTCREATE);
    assert_file(path, (const unsigned char *)OLD_TEXT, strlen(OLD_TEXT), 0644);
    memset(&rep, 0, sizeof rep);
    ck_assert_msg(ak_write_file(reg, doc, path, NULL, AK_WRITE_OVERWRITE, &rep) == AK_OK, "%s", rep.message);
    assert_file(path, bytes, n, 0644);
    ck_assert_int_eq(dir_entries(NULL, 0), 1);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(bytes);
    remove_dir();
}
END_TEST

int main(void)
{
    fill_payload();
    Suite *s = suite_create("file_faults");
    TCase *tc = tcase_create("replace");
    tcase_add_test(tc, t_disk_full);
    tcase_add_test(tc, t_short_then_full);
    tcase_add_test(tc, t_short_then_zero);
    tcase_add_test(tc, t_eio_late);
    tcase_add_test(tc, t_fsync);
    tcase_add_test(tc, t_rename_exdev);
    tcase_add_test(tc, t_rename_eacces);
    tcase_add_test(tc, t_full_at_every_call);
    tcase_add_test(tc, t_short_writes_complete);
    tcase_add_test(tc, t_no_overwrite);
    tcase_add_test(tc, t_bad_targets);
    tcase_add_test(tc, t_write_file);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
