/* testutil.c - helpers shared by the test programs. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

const char *ak_test_corpus(const char *relative, char *buf, size_t size)
{
    const char *dir = getenv("AK_CORPUS");
    if (!dir || !*dir)
        return NULL;
    int n = snprintf(buf, size, "%s/%s", dir, relative);
    struct stat st;
    if (n < 0 || (size_t)n >= size || stat(buf, &st) != 0)
        return NULL;
    return buf;
}

void ak_test_skip(const char *why)
{
    printf("SKIP: %s\n", why);
    fflush(stdout);
}

unsigned char *ak_test_slurp(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "cannot open %s", path);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    ck_assert(buf != NULL);
    ck_assert(fread(buf, 1, (size_t)n, fp) == (size_t)n);
    fclose(fp);
    *size = (size_t)n;
    return buf;
}

unsigned char *ak_test_corpus_file(const char *relative, size_t *size)
{
    char path[4096], why[4200];
    if (!ak_test_corpus(relative, path, sizeof path)) {
        snprintf(why, sizeof why, "corpus file %s not found (set AK_CORPUS)", relative);
        ak_test_skip(why);
        return NULL;
    }
    return ak_test_slurp(path, size);
}

ak_registry *ak_test_registry(const ak_codec *const *codecs)
{
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_PLUGINS, NULL, NULL, NULL, NULL, NULL };
    ak_registry *reg = NULL;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_OK);
    for (; codecs && *codecs; codecs++)
        ck_assert_int_eq(ak_registry_add_codec(reg, *codecs, 0, &rep), AK_OK);
    return reg;
}

ak_status ak_test_try_read(const ak_registry *reg, const unsigned char *bytes, size_t size, const char *name,
                           ak_doc **doc, ak_report *report)
{
    ak_options o = { sizeof o, NULL, name, NULL, 0, 0 };
    return ak_read(reg, bytes, size, &o, doc, report);
}

ak_doc *ak_test_read(const ak_registry *reg, const unsigned char *bytes, size_t size, const char *name)
{
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_status st = ak_test_try_read(reg, bytes, size, name, &doc, &rep);
    ck_assert_msg(st == AK_OK, "reading %s failed: %s", name, rep.message);
    return doc;
}

unsigned char *ak_test_write(const ak_registry *reg, const ak_doc *doc, const char *format, size_t *size)
{
    ak_report rep = { 0 };
    ak_options o = { sizeof o, format, NULL, NULL, 0, 0 };
    unsigned char *out = NULL;
    ak_status st = ak_write(reg, doc, &o, &out, size, &rep);
    ck_assert_msg(st == AK_OK, "writing %s failed: %s", format, rep.message);
    return out;
}

int ak_test_same_bytes(const unsigned char *a, size_t na, const unsigned char *b, size_t nb, const char *what)
{
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) {
            printf("%s: first difference at byte %zu (0x%zx): %02x vs %02x\n", what, i, i, a[i], b[i]);
            return 0;
        }
    if (na != nb) {
        printf("%s: sizes differ: %zu vs %zu\n", what, na, nb);
        return 0;
    }
    return 1;
}

void ak_test_tmpdir(const char *prefix, char *buf, size_t size)
{
    const char *b = getenv("AK_BUILDDIR");
    ck_assert_msg(b != NULL, "AK_BUILDDIR is not set (run through make check)");
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%s/tests/tmp", b);
    ck_assert_msg(mkdir(base, 0700) == 0 || errno == EEXIST, "cannot create %s", base);
    ck_assert_msg((size_t)snprintf(buf, size, "%s/%s-XXXXXX", base, prefix) < size, "path too long");
    ck_assert_ptr_nonnull(mkdtemp(buf));
    /* Whether the folder passes the plugin trust rule, asked as a host
     * would: a registry opened on a config file placed in it. */
    char probe[PATH_MAX];
    snprintf(probe, sizeof probe, "%s/.trust-probe.ini", buf);
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
    ck_assert_int_ge(fd, 0);
    static const char config[] = "[animkit]\nautoload = no\n";
    ck_assert_int_eq(write(fd, config, sizeof config - 1), (ssize_t)(sizeof config - 1));
    close(fd);
    ak_registry_config rc = { sizeof rc, AK_REG_NO_SEARCH, probe, NULL, NULL, NULL, NULL };
    ak_registry *reg = NULL;
    ak_report rep = { 0 };
    ak_status st = ak_registry_open(&rc, &reg, &rep);
    ak_registry_free(reg);
    unlink(probe);
    if (st == AK_OK)
        return;
    if (!getenv("ANIMKIT_UNSAFE_PLUGINS"))
        printf("NOTE: the build tree fails the plugin trust rule (%s); these tests set "
               "ANIMKIT_UNSAFE_PLUGINS=1\n", rep.text);
    setenv("ANIMKIT_UNSAFE_PLUGINS", "1", 1);
}

int ak_test_run(Suite *suite)
{
    SRunner *sr = srunner_create(suite);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

void ak_test_cuts(const unsigned char *bytes, size_t n, size_t dense, size_t step, ak_test_sweep_fn *fn, void *user)
{
    for (size_t len = 0; len < n; len += len < dense ? 1 : step) {
        unsigned char *copy = malloc(len ? len : 1); /* exactly len: ASan sees a read past the cut */
        ck_assert_ptr_nonnull(copy);
        memcpy(copy, bytes, len);
        fn(copy, len, len, user);
        free(copy);
    }
}

void ak_test_pokes(const unsigned char *bytes, size_t n, size_t limit, size_t stride, const uint32_t *values,
                   size_t count, size_t width, ak_test_sweep_fn *fn, void *user)
{
    unsigned char *copy = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, bytes, n);
    for (size_t off = 0; off + width <= n && off < limit; off += stride)
        for (size_t v = 0; v < count; v++) {
            for (size_t k = 0; k < width; k++)
                copy[off + k] = (unsigned char)(values[v] >> (8 * k));
            fn(copy, n, off, user);
            memcpy(copy + off, bytes + off, width);
        }
    free(copy);
}

static void *counted_alloc(void *live, size_t n)
{
    void *p = malloc(n);
    *(long *)live += p != NULL;
    return p;
}

static void *counted_realloc(void *live, void *p, size_t n)
{
    void *q = realloc(p, n);
    *(long *)live += q && !p;
    return q;
}

static void counted_free(void *live, void *p)
{
    *(long *)live -= p != NULL;
    free(p);
}

ak_allocator ak_test_counting_allocator(long *live)
{
    ak_allocator a = { counted_alloc, counted_realloc, counted_free, live };
    return a;
}

void ak_test_collect(void *user, const ak_message *message)
{
    ak_test_said *said = user;
    char line[2048];
    ak_message_format(message, line, sizeof line);
    size_t used = strlen(said->text);
    snprintf(said->text + used, sizeof said->text - used, "%s\n", line);
}
