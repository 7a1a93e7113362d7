/* test_json_bound.c - jansson's parse tree counts against the read's
 * memory limit: the bound from the pre-scan (bound.c) is checked against
 * what jansson really allocates for texts of every shape, and a text whose
 * tree does not fit the cap is refused before it is parsed. */
#include "testutil.h"
#include "../../plugins/json/json.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* jansson's allocations, measured through its (process-global) hooks:
 * fine in a test program, not in a library. Each block is charged its
 * size rounded up to 16 plus 16 bytes of chunk header, as glibc does. */
typedef struct block_head {
    size_t size;
    size_t pad_;
} block_head;
static size_t live, peak;

static size_t chunk(size_t n) { return ((n + 15) & ~(size_t)15) + 16; }

static void *count_malloc(size_t n)
{
    block_head *h = malloc(sizeof *h + n);
    if (!h)
        return NULL;
    h->size = n;
    live += chunk(n);
    if (live > peak)
        peak = live;
    return h + 1;
}

static void count_free(void *p)
{
    if (!p)
        return;
    block_head *h = (block_head *)p - 1;
    live -= chunk(h->size);
    free(h);
}

static char *text_of(const char *head, const char *item, size_t count, const char *sep, const char *tail)
{
    size_t n = strlen(head) + count * (strlen(item) + 24 + strlen(sep)) + strlen(tail) + 1;
    char *t = malloc(n), *p = t;
    p += sprintf(p, "%s", head);
    for (size_t i = 0; i < count; i++)
        p += sprintf(p, item, i, i);
    if (count) /* drop the last separator */
        p -= strlen(sep);
    sprintf(p, "%s", tail);
    return t;
}

static void bound_covers(const char *what, const char *text)
{
    size_t n = strlen(text);
    live = peak = 0;
    json_error_t err;
    json_t *root = json_loadb(text, n, JSON_DECODE_ANY, &err);
    ck_assert_msg(root != NULL, "%s: %s", what, err.text);
    json_decref(root);
    size_t bound = json_tree_bound((const unsigned char *)text, n);
    printf("%s: %zu bytes of text, jansson peak %zu bytes, bound %zu bytes\n", what, n, peak, bound);
    fflush(stdout);
    ck_assert_msg(bound >= peak, "%s: bound %zu below jansson's %zu bytes", what, bound, peak);
}

START_TEST(bound_covers_every_shape)
{
    json_set_alloc_funcs(count_malloc, count_free);
    char *t;
    bound_covers("numbers", t = text_of("[", "%zu,", 50000, ",", "]"));
    free(t);
    bound_covers("floats", t = text_of("[", "%zu.5e-3,", 50000, ",", "]"));
    free(t);
    bound_covers("literals", t = text_of("[", "true,", 50000, ",", "]"));
    free(t);
    bound_covers("empty strings", t = text_of("[", "\"\",", 50000, ",", "]"));
    free(t);
    bound_covers("strings", t = text_of("[", "\"s%zu-%zu\",", 50000, ",", "]"));
    free(t);
    bound_covers("members", t = text_of("{", "\"k%zu\":%zu,", 50000, ",", "}"));
    free(t);
    bound_covers("empty arrays", t = text_of("[", "[],", 50000, ",", "]"));
    free(t);
    bound_covers("empty objects", t = text_of("[", "{},", 50000, ",", "]"));
    free(t);
    bound_covers("objects", t = text_of("[", "{\"a\":%zu,\"b\":[%zu]},", 20000, ",", "]"));
    free(t);
    char *big = malloc(1 << 20);
    memset(big, 'x', 1 << 20);
    big[0] = '"';
    big[(1 << 20) - 1] = '\0';
    big[(1 << 20) - 2] = '"';
    bound_covers("one long string", big);
    free(big);
}
END_TEST

static const char *const doc_head = "{\"animkit\":1,\"format\":\"json\",\"variant\":\"\",\"padding\":";
static const char *const doc_tail = ",\"clips\":[]}";

START_TEST(tree_over_the_cap_is_refused)
{
    /* A valid document with 400,000 numbers in an unknown member: small
     * as a document, some 20 MB as jansson's tree. */
    char *head = malloc(strlen(doc_head) + 2);
    sprintf(head, "%s[", doc_head);
    char *tail = malloc(strlen(doc_tail) + 2);
    sprintf(tail, "]%s", doc_tail);
    char *text = text_of(head, "0,", 400000, ",", tail);
    free(head);
    free(tail);
    const ak_codec *codecs[] = { json_codec(), NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_options o = { sizeof o, "json", "pad.json", NULL, 1u << 20, 0 };
    ak_doc *doc = NULL;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_read(reg, text, strlen(text), &o, &doc, &rep), AK_E_LIMIT);
    ck_assert_msg(strstr(rep.message, "the JSON parse tree would need about"), "%s", rep.message);
    /* Under the default cap (the tree counted with the keys: 240 x the input) it reads. */
    o.max_alloc = 0;
    ak_report rep2 = { 0 };
    ck_assert_msg(ak_read(reg, text, strlen(text), &o, &doc, &rep2) == AK_OK, "%s", rep2.message);
    ck_assert_uint_eq(doc->clip_count, 0);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json_bound");
    TCase *tc = tcase_create("json_bound");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, bound_covers_every_shape);
    tcase_add_test(tc, tree_over_the_cap_is_refused);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
