/* test_alloc_faults.c - allocation failure at every allocation site of a
 * read, a write, a clone and opening a registry: each must end in a clean
 * AK_E_NOMEM (or AK_E_LIMIT), hand back nothing, and leak nothing. The
 * allocator hook of the registry fails the Nth call for N = 1, 2, ... until
 * the operation runs through without a refused call. */
#include "robust.h"
#include "internal.h" /* ak_doc_new_with */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Past this many allocation calls the sweep samples N instead of trying
 * every one, to keep the program quick under the sanitizers. */
#define EVERY_N_UP_TO 3000

static long next_n(long n, long needed)
{
    if (needed <= EVERY_N_UP_TO || n < 500 || n > needed - 200)
        return n + 1;
    long step = needed / (EVERY_N_UP_TO - 700);
    long next = n + (step > 1 ? step : 1);
    return next > needed - 200 ? needed - 200 : next;
}

static int is_nomem(ak_status st) { return st == AK_E_NOMEM || st == AK_E_LIMIT; }

/* Fails every allocation of one read (with these ak_read_flags) in turn.
 * Returns the calls a clean read needs. */
static long sweep_read_flags(const ak_codec *codec, const unsigned char *bytes, size_t size, const char *label,
                             uint32_t flags)
{
    rb_alloc st = { 0 };
    const ak_codec *codecs[] = { codec, NULL };
    ak_registry *reg = rb_registry(&st, codecs);
    long base = st.live;
    ak_options o = { sizeof o, codec->name, label, NULL, 0, flags };

    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    rb_alloc_arm(&st, 0);
    ck_assert_msg(ak_read(reg, bytes, size, &o, &doc, &rep) == AK_OK, "%s: %s", label, rep.message);
    long needed = st.calls;
    ak_doc_free(doc);
    ck_assert_int_eq(st.live, base);

    long tried = 0;
    for (long n = 1;; n = next_n(n, needed)) {
        ck_assert_msg(n <= needed + 1, "%s: the read did not finish within %ld allocations", label, needed + 1);
        rb_alloc_arm(&st, n);
        memset(&rep, 0, sizeof rep);
        doc = (ak_doc *)&st; /* must be overwritten */
        ak_status s = ak_read(reg, bytes, size, &o, &doc, &rep);
        tried++;
        if (st.refused == 0) {
            ck_assert_msg(s == AK_OK, "%s: read failed without a refused allocation: %s", label, rep.message);
            ak_doc_free(doc);
            ck_assert_int_eq(st.live, base);
            break;
        }
        ck_assert_msg(s != AK_OK, "%s: allocation %ld was refused but the read reported success", label, n);
        ck_assert_msg(is_nomem(s), "%s: allocation %ld refused: status %s, want out of memory (%s)", label, n,
                      ak_status_name(s), rep.message);
        ck_assert_msg(rep.status == s, "%s: allocation %ld: report says %s, call returned %s", label, n,
                      ak_status_name(rep.status), ak_status_name(s));
        ck_assert_msg(rep.message[0] != '\0', "%s: allocation %ld: no message", label, n);
        ck_assert_msg(doc == NULL, "%s: allocation %ld: a failed read handed out a document", label, n);
        ck_assert_msg(st.live == base, "%s: allocation %ld refused: %ld blocks leaked", label, n, st.live - base);
        ck_assert_int_eq(st.bad_frees, 0);
    }
    printf("%s: %sread needs %ld allocation calls; failed each of %ld of them in turn\n", label,
           flags & AK_READ_OUTLINE ? "outline " : "", needed, tried);
    ak_registry_free(reg);
    ck_assert_int_eq(st.live, 0);
    ck_assert_int_eq(st.bad_frees, 0);
    return needed;
}

static long sweep_read(const ak_codec *codec, const unsigned char *bytes, size_t size, const char *label)
{
    return sweep_read_flags(codec, bytes, size, label, 0);
}

/* An outline read, where the codec reads outlines: its allocations too. */
static void sweep_outline(const ak_codec *codec, const unsigned char *bytes, size_t size, const char *label)
{
    const ak_codec *codecs[] = { codec, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_options o = { sizeof o, codec->name, label, NULL, 0, AK_READ_OUTLINE };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ck_assert_msg(ak_read(reg, bytes, size, &o, &doc, &rep) == AK_OK, "%s: %s", label, rep.message);
    int outline = ak_doc_outline(doc);
    ak_doc_free(doc);
    ak_registry_free(reg);
    if (outline)
        sweep_read_flags(codec, bytes, size, label, AK_READ_OUTLINE);
}

/* Reads once, then fails every allocation of a same-format write in turn. */
static void sweep_write(const ak_codec *codec, const unsigned char *bytes, size_t size, const char *label)
{
    if (!codec->write) {
        ak_test_skip("write fault injection: the codec cannot write");
        return;
    }
    rb_alloc st = { 0 };
    const ak_codec *codecs[] = { codec, NULL };
    ak_registry *reg = rb_registry(&st, codecs);
    ak_options o = { sizeof o, codec->name, label, NULL, 0, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ck_assert_msg(ak_read(reg, bytes, size, &o, &doc, &rep) == AK_OK, "%s: %s", label, rep.message);

    unsigned char *ref = NULL;
    size_t ref_size = 0;
    memset(&rep, 0, sizeof rep);
    rb_alloc_arm(&st, 0);
    ak_status s0 = ak_write(reg, doc, &o, &ref, &ref_size, &rep);
    if (s0 != AK_OK) {
        /* Not every document a reader makes must be writable (say, more
         * clips than the format holds); then there is nothing to sweep. */
        printf("%s: same-format write refused (%s): %s\n", label, ak_status_name(s0), rep.message);
        ck_assert_msg(s0 != AK_E_NOMEM, "%s: write ran out of memory without injection", label);
        ak_doc_free(doc);
        ak_registry_free(reg);
        return;
    }
    long needed = st.calls;
    long base = st.live; /* the registry, the document and the reference output */
    long tried = 0;
    for (long n = 1;; n = next_n(n, needed)) {
        ck_assert_msg(n <= needed + 1, "%s: the write did not finish within %ld allocations", label, needed + 1);
        rb_alloc_arm(&st, n);
        memset(&rep, 0, sizeof rep);
        unsigned char *out = (unsigned char *)&st;
        size_t out_size = 12345;
        ak_status s = ak_write(reg, doc, &o, &out, &out_size, &rep);
        tried++;
        if (st.refused == 0) {
            ck_assert_msg(s == AK_OK, "%s: write failed without a refused allocation: %s", label, rep.message);
            ck_assert(ak_test_same_bytes(ref, ref_size, out, out_size, label));
            ak_buffer_free(reg, out);
            break;
        }
        ck_assert_msg(s == AK_E_NOMEM, "%s: allocation %ld refused: write status %s, want out of memory (%s)",
                      label, n, ak_status_name(s), rep.message);
        ck_assert_int_eq(rep.status, AK_E_NOMEM);
        ck_assert_msg(out == NULL && out_size == 0, "%s: a failed write handed out a buffer", label);
        ck_assert_msg(st.live == base, "%s: write allocation %ld refused: %ld blocks leaked", label, n,
                      st.live - base);
    }
    printf("%s: write needs %ld allocation calls; failed each of %ld of them in turn\n", label, needed, tried);
    ak_buffer_free(reg, ref);
    ak_doc_free(doc);
    ak_registry_free(reg);
    ck_assert_int_eq(st.live, 0);
    ck_assert_int_eq(st.bad_frees, 0);
}

/* ak_doc_clone of a read document, failing each allocation in turn. */
static void sweep_clone(const ak_codec *codec, const unsigned char *bytes, size_t size, const char *label)
{
    rb_alloc st = { 0 };
    const ak_codec *codecs[] = { codec, NULL };
    ak_registry *reg = rb_registry(&st, codecs);
    ak_options o = { sizeof o, codec->name, label, NULL, 0, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ck_assert_msg(ak_read(reg, bytes, size, &o, &doc, &rep) == AK_OK, "%s: %s", label, rep.message);
    long base = st.live;
    rb_alloc_arm(&st, 0);
    ak_doc *copy = ak_doc_clone(doc);
    ck_assert(copy != NULL);
    long needed = st.calls;
    ak_doc_free(copy);
    ck_assert_int_eq(st.live, base);
    for (long n = 1;; n = next_n(n, needed)) {
        ck_assert(n <= needed + 1);
        rb_alloc_arm(&st, n);
        copy = ak_doc_clone(doc);
        if (st.refused == 0) {
            ck_assert(copy != NULL);
            ak_doc_free(copy);
            break;
        }
        ck_assert_msg(copy == NULL, "%s: clone succeeded although allocation %ld was refused", label, n);
        ck_assert_msg(st.live == base, "%s: clone allocation %ld refused: %ld blocks leaked", label, n,
                      st.live - base);
    }
    ak_doc_free(doc);
    ak_registry_free(reg);
    ck_assert_int_eq(st.live, 0);
}

/* ---- the synthetic codec ---------------------------------------------------- */

START_TEST(t_tst_read)
{
    size_t n;
    /* Many tracks of one key: the document outgrows its arena's first
     * block (sized from the input) several times, so failures land in the
     * middle of the read, not only at its start. */
    unsigned char *bytes = rb_tst_build(4, 400, 1, &n);
    long needed = sweep_read(rb_tst_codec(), bytes, n, "tst 4x400x1");
    /* The sweep must have had sites to fail: the document and its
     * arena's blocks (which hold the clip list, clips, tracks, keys and
     * props), more than one of them, so that a failure lands mid-read. */
    ck_assert_int_gt(needed, 2);
    free(bytes);
}
END_TEST

START_TEST(t_tst_write)
{
    size_t n;
    unsigned char *bytes = rb_tst_build(2, 3, 600, &n); /* output past the sink's first 4 KiB */
    sweep_write(rb_tst_codec(), bytes, n, "tst 2x3x600");
    free(bytes);
}
END_TEST

START_TEST(t_tst_clone)
{
    size_t n;
    unsigned char *bytes = rb_tst_build(2, 3, 10, &n);
    sweep_clone(rb_tst_codec(), bytes, n, "tst clone");
    free(bytes);
}
END_TEST

/* ---- the editing calls (issue 14) ----------------------------------------- */

enum { EDIT_PUT, EDIT_MERGE, EDIT_EXTRACT, EDIT_RETIME, EDIT_BONES, EDIT_OPS };

/* Runs one edit on `doc`; 1 if it succeeded. A failed put_clip must leave
 * the document as it was. */
static int run_edit(int op, ak_doc *doc)
{
    size_t clips = doc->clip_count;
    switch (op) {
    case EDIT_PUT: {
        ak_status st = ak_doc_put_clip(doc, doc->clips[1], "a new name", NULL);
        ck_assert(st == AK_OK || (is_nomem(st) && doc->clip_count == clips));
        return st == AK_OK;
    }
    case EDIT_MERGE: {
        ak_doc *one = ak_doc_extract_clip(doc, 0);
        if (!one)
            return 0;
        ak_status st = ak_doc_merge(one, doc);
        ak_doc_free(one);
        ck_assert(st == AK_OK || is_nomem(st));
        return st == AK_OK;
    }
    case EDIT_EXTRACT: {
        ak_doc *one = ak_doc_extract_clip(doc, 1);
        ak_doc_free(one);
        return one != NULL;
    }
    case EDIT_RETIME: {
        ak_retime h;
        memset(&h, 0, sizeof h);
        h.struct_size = sizeof h;
        h.trim = 1;
        h.t0 = 0.1;
        h.t1 = 0.5;
        h.fps = 60;
        ak_status st = ak_clip_retime(doc->clips[0], &h);
        ck_assert(st == AK_OK || is_nomem(st));
        return st == AK_OK;
    }
    default: {
        const char *from[] = { "bone0", "bone1" }, *to[] = { "renamed bone 0", "renamed bone 1" };
        return ak_doc_rename_bones(doc, from, to, 2) != (size_t)-1;
    }
    }
}

/* Fails every allocation of each editing call in turn: a clean error, and
 * nothing leaked once the document is freed. */
START_TEST(t_tst_edit)
{
    size_t n;
    unsigned char *bytes = rb_tst_build(2, 3, 20, &n);
    rb_alloc st = { 0 };
    const ak_codec *codecs[] = { rb_tst_codec(), NULL };
    ak_registry *reg = rb_registry(&st, codecs);
    long base = st.live;
    ak_options o = { sizeof o, "tst", "edit.tst", NULL, 0, 0 };
    for (int op = 0; op < EDIT_OPS; op++) {
        long needed = 0;
        long tried = 0;
        for (long k = 0;; k = next_n(k, needed), tried++) {
            ak_report rep = { 0 };
            ak_doc *doc = NULL;
            rb_alloc_arm(&st, 0);
            ck_assert_int_eq(ak_read(reg, bytes, n, &o, &doc, &rep), AK_OK);
            rb_alloc_arm(&st, k);
            int ok = run_edit(op, doc);
            long calls = st.calls, refused = st.refused;
            ak_doc_free(doc);
            ck_assert_msg(st.live == base, "edit %d, allocation %ld refused: %ld blocks leaked", op, k, st.live - base);
            if (k == 0) {
                ck_assert_msg(ok, "edit %d fails without a refused allocation", op);
                needed = calls;
                if (needed == 0) /* it fitted in memory the document held */
                    break;
                continue;
            }
            ck_assert_msg(!ok || !refused, "edit %d succeeded although allocation %ld was refused", op, k);
            if (!refused)
                break;
            ck_assert(k <= needed + 1);
        }
        printf("edit %d: %ld allocation calls, each failed in turn\n", op, tried ? needed : 0);
    }
    ak_registry_free(reg);
    ck_assert_int_eq(st.live, 0);
    free(bytes);
}
END_TEST

/* The counting allocator itself: a refused call must show as refused, and
 * a leak must show in `live` (so that the sweeps above can fail). */
START_TEST(t_allocator_counts)
{
    rb_alloc st = { 0 };
    ak_allocator a = rb_alloc_make(&st);
    rb_alloc_arm(&st, 2);
    void *p = a.alloc(a.user, 10);
    ck_assert(p != NULL);
    ck_assert(a.alloc(a.user, 10) == NULL);
    ck_assert_int_eq(st.refused, 1);
    p = a.realloc(a.user, p, 100);
    ck_assert(p != NULL);
    ck_assert_int_eq(st.live, 1);
    ck_assert_uint_eq(st.live_bytes, 100);
    rb_alloc_arm(&st, 0);
    ak_doc *doc = ak_doc_new_with(&a, 0);
    ck_assert(doc != NULL);
    ck_assert(ak_clip_add(doc, "x") != NULL);
    ck_assert_int_gt(st.live, 1);
    ak_doc_free(doc);
    ck_assert_int_eq(st.live, 1);
    a.free(a.user, p);
    ck_assert_int_eq(st.live, 0);
    ck_assert_uint_eq(st.live_bytes, 0);
}
END_TEST

/* ---- JSON dump ------------------------------------------------------------- */

/* The JSON writer keeps the text of numbers it has formatted, in a table
 * it enlarges from the document's allocator once a dump runs long: with
 * that allocation refused the dump must come out the same, and either way
 * every number must read back to the key's own value (a wrong table entry
 * would not). */
static char *dump_json(const ak_doc *doc, size_t *size)
{
    char *text = NULL;
    FILE *fp = open_memstream(&text, size);
    ck_assert_ptr_nonnull(fp);
    ck_assert_int_eq(ak_doc_write_json(doc, NULL, 0, fp), AK_OK);
    ck_assert_int_eq(fclose(fp), 0);
    return text;
}

static void check_keys_read_back(const char *text, const ak_channel *ch)
{
    const char *p = strstr(text, "\"rotation\":[");
    ck_assert_ptr_nonnull(p);
    p += strlen("\"rotation\":[");
    for (size_t k = 0; k < ch->count; k++) {
        double want[5] = { ch->keys[k].time, ch->keys[k].v[0], ch->keys[k].v[1], ch->keys[k].v[2], ch->keys[k].v[3] };
        ck_assert_msg(*p == '[', "key %zu: no '[' at \"%.20s\"", k, p);
        p++;
        for (int i = 0; i < 5; i++) {
            char *end;
            double got = strtod(p, &end);
            ck_assert_msg(end != p && memcmp(&got, &want[i], sizeof got) == 0,
                          "key %zu number %d: \"%.*s\" is not %.17g", k, i, (int)(end - p), p, want[i]);
            p = end + 1; /* the ',' or the ']' */
        }
        if (*p == ',')
            p++;
    }
}

START_TEST(t_json_number_table)
{
    rb_alloc st = { 0 };
    ak_allocator a = rb_alloc_make(&st);
    rb_alloc_arm(&st, 0);
    ak_doc *doc = ak_doc_new_with(&a, 0);
    ak_track *t = ak_track_add(ak_clip_add(doc, "c"), "b");
    ck_assert_ptr_nonnull(t);
    /* 20,000 numbers: past the point where the table grows. Values repeat
     * (quantised, as in ANP3) or are any finite double, so that entries
     * collide and are replaced. */
    uint64_t seed = 12345;
    for (int k = 0; k < 4000; k++) {
        ak_key *key = ak_key_add(t, AK_ROTATION);
        ck_assert_ptr_nonnull(key);
        key->time = k / 30.0;
        for (int i = 0; i < 4; i++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            double v = (double)(int)((seed >> 33) % 6000 - 3000) / 4096;
            if (i == 3 && k % 3 == 0) {
                uint64_t bits = seed ^ (seed >> 29);
                memcpy(&v, &bits, sizeof v);
                if (!isfinite(v))
                    v = -0.0;
            }
            key->v[i] = v;
        }
    }
    long before = st.live;
    rb_alloc_arm(&st, 0);
    size_t n1, n2;
    char *with_table = dump_json(doc, &n1);
    ck_assert_int_eq(st.calls, 1); /* the larger table */
    ck_assert_int_eq(st.live, before);
    rb_alloc_arm(&st, 1);
    char *small_only = dump_json(doc, &n2);
    ck_assert_int_eq(st.refused, 1);
    ck_assert_int_eq(st.live, before);
    ck_assert_uint_eq(n1, n2);
    ck_assert(memcmp(with_table, small_only, n1) == 0);
    check_keys_read_back(with_table, &t->channel[AK_ROTATION]);
    free(with_table);
    free(small_only);
    ak_doc_free(doc);
    ck_assert_int_eq(st.live, 0);
    ck_assert_int_eq(st.bad_frees, 0);
}
END_TEST

/* ---- registry construction -------------------------------------------------- */

START_TEST(t_registry_open)
{
    rb_alloc st = { 0 };
    ak_allocator al = rb_alloc_make(&st);
    const ak_codec *codecs[] = { rb_tst_codec(), NULL };
    for (long n = 1; n < 1000; n++) {
        rb_alloc_arm(&st, n);
        ak_registry_config cfg = { sizeof cfg, AK_REG_NO_PLUGINS, NULL, &al, NULL, NULL, NULL };
        ak_registry *reg = NULL;
        ak_report rep = { 0 };
        ak_status s = ak_registry_open(&cfg, &reg, &rep);
        if (s == AK_OK)
            for (const ak_codec *const *c = codecs; *c && s == AK_OK; c++)
                s = ak_registry_add_codec(reg, *c, 0, &rep);
        if (st.refused == 0) {
            ck_assert_int_eq(s, AK_OK);
            ck_assert_uint_eq(ak_registry_count(reg), 1);
            ak_registry_free(reg);
            ck_assert_int_eq(st.live, 0);
            return;
        }
        ck_assert_msg(s == AK_E_NOMEM, "allocation %ld refused: %s", n, ak_status_name(s));
        ak_registry_free(reg);
        ck_assert_msg(st.live == 0, "allocation %ld refused: %ld blocks leaked", n, st.live);
    }
    ck_abort_msg("opening a registry never succeeded");
}
END_TEST

/* A config file naming a missing plugin and a bone dictionary: the refusal
 * and the strings it keeps are allocated too. */
START_TEST(t_registry_config)
{
    char dir[200];
    ak_test_tmpdir("robust", dir, sizeof dir);
    char path[256];
    snprintf(path, sizeof path, "%s/animkit.ini", dir);
    FILE *fp = fopen(path, "w");
    ck_assert(fp != NULL);
    fprintf(fp, "[animkit]\nplugin_dir = nowhere\nautoload = no\nbone_names = bones.txt\n"
                "[plugin missing]\npath = missing.so\n[plugin gone]\npath = ./gone.so\n");
    fclose(fp);
    rb_alloc st = { 0 };
    ak_allocator al = rb_alloc_make(&st);
    long n;
    for (n = 1; n < 1000; n++) {
        rb_alloc_arm(&st, n);
        ak_registry_config cfg = { sizeof cfg, AK_REG_NO_SEARCH, path, &al, NULL, NULL, NULL };
        ak_registry *reg = NULL;
        ak_report rep = { 0 };
        ak_status s = ak_registry_open(&cfg, &reg, &rep);
        if (st.refused == 0) {
            ck_assert_msg(s == AK_OK, "%s", rep.message);
            ck_assert_uint_eq(ak_registry_refused_count(reg), 2);
            ck_assert(ak_registry_bone_names(reg) != NULL);
            ak_registry_free(reg);
            ck_assert_int_eq(st.live, 0);
            break;
        }
        /* A refusal record that cannot be stored is dropped (the warning
         * still went out); anything else must be a clean out-of-memory. */
        ck_assert_msg(s == AK_OK || s == AK_E_NOMEM, "allocation %ld refused: %s", n, ak_status_name(s));
        if (s != AK_OK)
            ck_assert(reg == NULL);
        ak_registry_free(reg);
        ck_assert_msg(st.live == 0, "allocation %ld refused: %ld blocks leaked", n, st.live);
    }
    ck_assert_int_lt(n, 1000);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* ---- the real plugins -------------------------------------------------------- */

START_TEST(t_plugins)
{
    size_t count;
    const rb_plugin *plugins = rb_plugins(&count);
    const rb_plugin *p = &plugins[_i];
    char label[256], why[1024];
    size_t n = 0;
    unsigned char *bytes = rb_plugin_input(p, &n, label, sizeof label, why, sizeof why);
    if (!bytes) {
        ak_test_skip(why);
        return;
    }
    sweep_read(p->codec, bytes, n, label);
    sweep_outline(p->codec, bytes, n, label);
    sweep_write(p->codec, bytes, n, label);
    sweep_clone(p->codec, bytes, n, label);
    free(bytes);
    /* A document from elsewhere: the writer encodes everything anew. */
    bytes = rb_plugin_synthetic(p, &n, label, sizeof label, why, sizeof why);
    if (!bytes) {
        ak_test_skip(why);
        return;
    }
    sweep_read(p->codec, bytes, n, label);
    sweep_outline(p->codec, bytes, n, label);
    sweep_write(p->codec, bytes, n, label);
    free(bytes);
}
END_TEST

/* Converting the synthetic codec's document into each plugin's format:
 * the writer's path for documents without raw bytes or props. */
START_TEST(t_convert)
{
    size_t count;
    const rb_plugin *p = &rb_plugins(&count)[_i];
    if (!p->codec->write) {
        ak_test_skip("conversion fault injection: the codec cannot write");
        return;
    }
    rb_alloc st = { 0 };
    const ak_codec *codecs[] = { rb_tst_codec(), p->codec, NULL };
    ak_registry *reg = rb_registry(&st, codecs);
    size_t n;
    unsigned char *bytes = rb_tst_build(1, 3, 20, &n);
    ak_options o = { sizeof o, "tst", "in.tst", NULL, 0, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ck_assert_int_eq(ak_read(reg, bytes, n, &o, &doc, &rep), AK_OK);
    /* A format that needs a skeleton gets one bone per track, as a host would add. */
    for (size_t t = 0; (p->codec->caps & AK_CAP_SKELETON) && t < doc->clips[0]->track_count; t++)
        ck_assert(ak_bone_add(doc, doc->clips[0]->tracks[t]->bone) != NULL);
    long base = st.live;
    ak_options w = { sizeof w, p->name, NULL, NULL, 0, 0 };
    for (long k = 1;; k++) {
        ck_assert_int_lt(k, 100000);
        rb_alloc_arm(&st, k);
        memset(&rep, 0, sizeof rep);
        unsigned char *out = NULL;
        size_t out_size = 0;
        ak_status s = ak_write(reg, doc, &w, &out, &out_size, &rep);
        if (st.refused == 0) {
            ck_assert_msg(s == AK_OK, "tst -> %s: %s", p->name, rep.message);
            ak_buffer_free(reg, out);
            printf("tst -> %s: conversion needs %ld allocation calls\n", p->name, k - 1);
            break;
        }
        ck_assert_msg(s == AK_E_NOMEM, "tst -> %s: allocation %ld refused: %s", p->name, k, rep.message);
        ck_assert(out == NULL);
        ck_assert_msg(st.live == base, "tst -> %s: allocation %ld refused: %ld blocks leaked", p->name, k,
                      st.live - base);
    }
    ak_doc_free(doc);
    free(bytes);
    ak_registry_free(reg);
    ck_assert_int_eq(st.live, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("alloc_faults");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, t_allocator_counts);
    tcase_add_test(tc, t_tst_read);
    tcase_add_test(tc, t_tst_write);
    tcase_add_test(tc, t_tst_clone);
    tcase_add_test(tc, t_tst_edit);
    tcase_add_test(tc, t_json_number_table);
    tcase_add_test(tc, t_registry_open);
    tcase_add_test(tc, t_registry_config);
    suite_add_tcase(s, tc);
    size_t count;
    rb_plugins(&count);
    if (count) {
        TCase *tp = tcase_create("plugins");
        tcase_set_timeout(tp, 600);
        tcase_add_loop_test(tp, t_plugins, 0, (int)count);
        tcase_add_loop_test(tp, t_convert, 0, (int)count);
        suite_add_tcase(s, tp);
    } else {
        ak_test_skip("no format plugin linked in: fault injection ran on the synthetic codec only");
    }
    return ak_test_run(s);
}
