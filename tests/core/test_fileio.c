/* test_fileio.c - atomic replacement of output files. */
#include "testutil.h"
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX], target[PATH_MAX + 16];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/ak-fileio-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(target, sizeof target, "%s/out.bin", dir);
}

static int entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, ".."));
    closedir(d);
    return n;
}

static int content_is(const char *text)
{
    size_t n;
    unsigned char *b = ak_test_slurp(target, &n);
    int same = n == strlen(text) && memcmp(b, text, n) == 0;
    free(b);
    return same;
}

START_TEST(creates_then_refuses_then_replaces)
{
    setup();
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_file_replace(target, "old", 3, 0, &rep), AK_OK);
    ck_assert(content_is("old"));
    chmod(target, 0640);
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_file_replace(target, "new", 3, 0, &rep2), AK_E_CANTCREATE);
    ck_assert_ptr_nonnull(strstr(rep2.message, "already exists; pass --force"));
    ck_assert(content_is("old"));
    ck_assert_int_eq(ak_file_replace(target, "newer", 5, AK_WRITE_OVERWRITE, &rep), AK_OK);
    ck_assert(content_is("newer"));
    struct stat st;
    stat(target, &st);
    ck_assert_int_eq(st.st_mode & 0777, 0640); /* the replaced file keeps its mode */
    ck_assert_int_eq(entries(), 1);           /* no temporary file left behind */
}
END_TEST

static long write_nothing(int fd, const void *b, size_t n) { (void)fd; (void)b; (void)n; return 0; }
static long write_enospc(int fd, const void *b, size_t n) { (void)fd; (void)b; (void)n; errno = ENOSPC; return -1; }
static int rename_fails(const char *a, const char *b) { (void)a; (void)b; errno = EXDEV; return -1; }

START_TEST(failures_leave_the_old_file)
{
    setup();
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_file_replace(target, "old", 3, 0, &rep), AK_OK);
    ak_file_ops full = ak_posix_file_ops;
    full.write = write_enospc;
    ak_report r1 = { 0 };
    ck_assert_int_eq(ak_file_replace_with(&full, target, "new!", 4, AK_WRITE_OVERWRITE, &r1), AK_E_IO);
    ck_assert_ptr_nonnull(strstr(r1.message, "No space left on device"));
    ak_file_ops stuck = ak_posix_file_ops;
    stuck.write = write_nothing;
    ak_report r2 = { 0 };
    ck_assert_int_eq(ak_file_replace_with(&stuck, target, "new!", 4, AK_WRITE_OVERWRITE, &r2), AK_E_IO);
    ak_file_ops norename = ak_posix_file_ops;
    norename.rename = rename_fails;
    ak_report r3 = { 0 };
    ck_assert_int_eq(ak_file_replace_with(&norename, target, "new!", 4, AK_WRITE_OVERWRITE, &r3),
                     AK_E_CANTCREATE);
    ck_assert(content_is("old"));
    ck_assert_int_eq(entries(), 1);
}
END_TEST

START_TEST(missing_folder_and_directory_target)
{
    setup();
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/no/such/dir.bin", dir);
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_file_replace(path, "x", 1, 0, &rep), AK_E_CANTCREATE);
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_file_replace(dir, "x", 1, AK_WRITE_OVERWRITE, &rep2), AK_E_CANTCREATE);
}
END_TEST

/* A file system with neither RENAME_NOREPLACE (EINVAL) nor hard links
 * (EPERM, as FAT answers link()): the move looks, then renames, and still
 * refuses to replace what is there. One with links but no such rename
 * moves by link and unlink. */
static int calls_made;
static int no_such_rename(const char *from, const char *to)
{
    (void)from, (void)to;
    calls_made++;
    errno = EINVAL;
    return -1;
}
static int no_links(const char *from, const char *to)
{
    (void)from, (void)to;
    calls_made++;
    errno = EPERM;
    return -1;
}

START_TEST(no_replace_move_without_the_kernel_rename_or_links)
{
    setup();
    char from[PATH_MAX + 16];
    snprintf(from, sizeof from, "%s/new.tmp", dir);
    FILE *fp = fopen(from, "w");
    ck_assert_ptr_nonnull(fp);
    fputs("new", fp);
    fclose(fp);
    const ak_noreplace_calls fat = { no_such_rename, no_links, rename };
    ck_assert_int_eq(ak_move_noreplace(&fat, from, target), 0);
    ck_assert_int_eq(calls_made, 2);
    ck_assert(content_is("new"));
    ck_assert_int_eq(access(from, F_OK), -1);
    /* Something is there now: refused, nothing moved. */
    fp = fopen(from, "w");
    fputs("newer", fp);
    fclose(fp);
    errno = 0;
    ck_assert_int_eq(ak_move_noreplace(&fat, from, target), -1);
    ck_assert_int_eq(errno, EEXIST);
    ck_assert(content_is("new"));
    ck_assert_int_eq(access(from, F_OK), 0);
    /* A dangling symbolic link counts as there. */
    char dangling[PATH_MAX + 16];
    snprintf(dangling, sizeof dangling, "%s/dangling", dir);
    ck_assert_int_eq(symlink("nowhere", dangling), 0);
    ck_assert_int_eq(ak_move_noreplace(&fat, from, dangling), -1);
    ck_assert_int_eq(errno, EEXIST);
    /* Links but no such rename: link and unlink, refused over a file. */
    const ak_noreplace_calls old_nfs = { no_such_rename, link, rename };
    ck_assert_int_eq(ak_move_noreplace(&old_nfs, from, target), -1);
    ck_assert_int_eq(errno, EEXIST);
    ck_assert(unlink(target) == 0 && unlink(dangling) == 0);
    ck_assert_int_eq(ak_move_noreplace(&old_nfs, from, target), 0);
    ck_assert(content_is("newer"));
    ck_assert_int_eq(entries(), 1);
    ck_assert(unlink(target) == 0 && rmdir(dir) == 0);
}
END_TEST

START_TEST(map_reads_whole_file)
{
    setup();
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_file_replace(target, "abc", 3, 0, &rep), AK_OK);
    ak_mapped_file f;
    ck_assert_int_eq(ak_file_map(target, &f, &rep), AK_OK);
    ck_assert_uint_eq(f.size, 3);
    ck_assert_int_eq(memcmp(f.data, "abc", 3), 0);
    ak_file_unmap(&f);
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_file_map("/nonexistent/file", &f, &rep2), AK_E_NOINPUT);
    ck_assert_int_eq(ak_file_map(dir, &f, &rep2), AK_E_NOINPUT);
    char empty[PATH_MAX + 8];
    snprintf(empty, sizeof empty, "%s/empty", dir);
    ck_assert_int_eq(ak_file_replace(empty, "", 0, 0, &rep), AK_OK);
    ck_assert_int_eq(ak_file_map(empty, &f, &rep), AK_OK);
    ck_assert_uint_eq(f.size, 0);
    ak_file_unmap(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fileio");
    TCase *tc = tcase_create("fileio");
    tcase_add_test(tc, creates_then_refuses_then_replaces);
    tcase_add_test(tc, failures_leave_the_old_file);
    tcase_add_test(tc, missing_folder_and_directory_target);
    tcase_add_test(tc, map_reads_whole_file);
    tcase_add_test(tc, no_replace_move_without_the_kernel_rename_or_links);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
