/* test_json.c - the json codec: every corpus file of ifp, ani and anm
 * through JSON and back byte-identically (mab read through JSON), JSON to
 * JSON identity, a hand edit that changes only the edited key's bytes,
 * hand-written documents into every writable format, names, props, the
 * "*_check" semantics, the core dump fixes, and a bad-input sweep. */
#include "testutil.h"
#include "../../plugins/json/json.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const ak_codec *ifp_codec(void);
const ak_codec *ani_codec(void);
const ak_codec *anm_codec(void);
const ak_codec *mab_codec(void);

#if defined(__SANITIZE_ADDRESS__)
#define AK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AK_ASAN 1
#endif
#endif
#ifndef AK_ASAN
#define AK_ASAN 0
#endif

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static ak_registry *registry(void)
{
    const ak_codec *codecs[] = { ifp_codec(), ani_codec(), anm_codec(), mab_codec(), json_codec(), NULL };
    return ak_test_registry(codecs);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static unsigned char *to_json(ak_registry *reg, const ak_doc *doc, size_t *n)
{
    return ak_test_write(reg, doc, "json", n);
}

/* Reads JSON text with the json codec named explicitly. */
static ak_status read_json(ak_registry *reg, const void *text, size_t n, ak_doc **doc, ak_report *rep)
{
    memset(rep, 0, sizeof *rep);
    ak_options o = { sizeof o, "json", "test.json", NULL, 0 };
    return ak_read(reg, text, n, &o, doc, rep);
}

static ak_doc *json_doc(ak_registry *reg, const void *text, size_t n)
{
    ak_report rep;
    ak_doc *doc = NULL;
    ak_status st = read_json(reg, text, n, &doc, &rep);
    ck_assert_msg(st == AK_OK, "reading JSON failed: %s", rep.message);
    return doc;
}

static ak_doc *json_str_doc(ak_registry *reg, const char *text) { return json_doc(reg, text, strlen(text)); }

/* Files of one corpus folder, sorted; NULL when the corpus is absent. */
static int corpus_files(const char *folder, char names[][256], int max)
{
    char dir[512];
    if (!ak_test_corpus(folder, dir, sizeof dir))
        return -1;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        const char *dot = strrchr(e->d_name, '.');
        if (e->d_name[0] == '.' || !dot || strcmp(dot + 1, folder) != 0)
            continue;
        snprintf(names[n++], 256, "%s/%s", folder, e->d_name);
    }
    closedir(d);
    for (int i = 1; i < n; i++) /* insertion sort, few files */
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[256];
            memcpy(t, names[j], 256);
            memcpy(names[j], names[j - 1], 256);
            memcpy(names[j - 1], t, 256);
        }
    return n;
}

static void stats_equal(const ak_doc *a, const ak_doc *b, const char *what)
{
    ak_doc_stats sa, sb;
    ak_doc_stats_get(a, &sa);
    ak_doc_stats_get(b, &sb);
    ck_assert_msg(sa.clips == sb.clips && sa.tracks == sb.tracks && sa.events == sb.events, "%s: counts differ",
                  what);
    for (int c = 0; c < AK_CHANNELS; c++)
        ck_assert_msg(sa.keys[c] == sb.keys[c], "%s: %s key counts differ", what, ak_channel_name(c));
}

static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

static void props_identical(const ak_props *a, const ak_props *b, const char *what)
{
    ck_assert_msg(a->count == b->count, "%s: %zu props, then %zu", what, a->count, b->count);
    for (size_t i = 0; i < a->count; i++) { /* same order, types and values */
        const ak_prop *pa = &a->items[i], *pb = &b->items[i];
        ck_assert_str_eq(pa->key, pb->key);
        ck_assert_msg(pa->type == pb->type, "%s: prop %s type %d, then %d", what, pa->key, pa->type, pb->type);
        ck_assert_int_eq(pa->i, pb->i);
        ck_assert_msg(same_double(pa->f, pb->f), "%s: prop %s", what, pa->key);
        ck_assert_uint_eq(pa->size, pb->size);
        ck_assert(pa->size == 0 || memcmp(pa->data, pb->data, pa->size) == 0);
    }
}

static void skeletons_identical(const ak_skeleton *a, const ak_skeleton *b, const char *what)
{
    ck_assert_msg(a->bone_count == b->bone_count, "%s: %zu bones, then %zu", what, a->bone_count, b->bone_count);
    for (size_t i = 0; i < a->bone_count; i++) {
        const ak_bone *x = &a->bones[i], *y = &b->bones[i];
        ck_assert_str_eq(x->name, y->name);
        ck_assert_int_eq(x->has_id, y->has_id);
        ck_assert_int_eq(x->id, y->id);
        ck_assert_int_eq(x->has_hash, y->has_hash);
        ck_assert_uint_eq(x->hash, y->hash);
        ck_assert_int_eq(x->parent, y->parent);
        for (int c = 0; c < 4; c++)
            ck_assert_msg(same_double(x->rotation[c], y->rotation[c]) &&
                              (c == 3 || (same_double(x->translation[c], y->translation[c]) &&
                                          same_double(x->scale[c], y->scale[c]))),
                          "%s: bone %zu rest value %d differs", what, i, c);
        props_identical(&x->props, &y->props, what);
    }
}

/* Every field of the model, compared exactly (NaN = NaN). */
static void docs_identical(const ak_doc *a, const ak_doc *b, const char *what)
{
    stats_equal(a, b, what);
    props_identical(&a->props, &b->props, what);
    ck_assert_str_eq(a->format, b->format);
    ck_assert_str_eq(a->variant, b->variant);
    skeletons_identical(&a->skeleton, &b->skeleton, what);
    for (size_t i = 0; i < a->clip_count; i++) {
        const ak_clip *ca = a->clips[i], *cb = b->clips[i];
        ck_assert_str_eq(ca->name, cb->name);
        ck_assert_msg(same_double(ca->duration, cb->duration) && same_double(ca->tick_rate, cb->tick_rate),
                      "%s: clip %zu times differ", what, i);
        ck_assert(same_double(ca->frame_rate, cb->frame_rate));
        props_identical(&ca->props, &cb->props, what);
        ck_assert_uint_eq(ca->event_count, cb->event_count);
        for (size_t e = 0; e < ca->event_count; e++) {
            ck_assert(same_double(ca->events[e].time, cb->events[e].time));
            ck_assert_str_eq(ca->events[e].type, cb->events[e].type);
            ck_assert_str_eq(ca->events[e].info, cb->events[e].info);
            props_identical(&ca->events[e].props, &cb->events[e].props, what);
        }
        for (size_t t = 0; t < ca->track_count; t++) {
            const ak_track *ta = ca->tracks[t], *tb = cb->tracks[t];
            ck_assert_str_eq(ta->bone, tb->bone);
            ck_assert_int_eq(ta->has_bone_id, tb->has_bone_id);
            ck_assert_int_eq(ta->bone_id, tb->bone_id);
            ck_assert_int_eq(ta->has_bone_hash, tb->has_bone_hash);
            ck_assert_uint_eq(ta->bone_hash, tb->bone_hash);
            ck_assert(same_double(ta->weight, tb->weight));
            props_identical(&ta->props, &tb->props, what);
            for (int c = 0; c < AK_CHANNELS; c++)
                for (size_t k = 0; k < ta->channel[c].count; k++) {
                    const ak_key *ka = &ta->channel[c].keys[k], *kb = &tb->channel[c].keys[k];
                    ck_assert_msg(same_double(ka->time, kb->time) && ka->tick == kb->tick,
                                  "%s: clip %zu track %zu %s key %zu time differs", what, i, t,
                                  ak_channel_name(c), k);
                    int w = c == AK_ROTATION ? 4 : c == AK_VISIBILITY ? 1 : 3;
                    for (int v = 0; v < w; v++)
                        ck_assert_msg(c == AK_VISIBILITY ? (ka->v[0] != 0) == (kb->v[0] != 0)
                                                         : same_double(ka->v[v], kb->v[v]),
                                      "%s: clip %zu track %zu %s key %zu value %d differs", what, i, t,
                                      ak_channel_name(c), k, v);
                    ck_assert_uint_eq(ka->raw_size, kb->raw_size);
                    ck_assert(ka->raw_size == 0 || memcmp(ka->raw, kb->raw, ka->raw_size) == 0);
                    ck_assert_int_eq(ak_key_changed(ka), ak_key_changed(kb));
                }
        }
    }
}

/* Keeps at most `keep` clips (for the sanitizer build on the big files). */
static void trim_clips(ak_doc *doc, size_t keep)
{
    while (doc->clip_count > keep)
        ak_clip_remove(doc, doc->clip_count - 1);
}

/* ------------------------------------------------------------------ */
/* Corpus round trips                                                  */
/* ------------------------------------------------------------------ */

/* file -> JSON -> document -> same format: identical to the file (or, for
 * a trimmed document, to the trimmed document written directly). */
static void corpus_trip(ak_registry *reg, const char *rel, int writable)
{
    char path[512];
    ck_assert_ptr_nonnull(ak_test_corpus(rel, path, sizeof path));
    size_t n;
    unsigned char *bytes = ak_test_slurp(path, &n);
    ak_doc *doc = ak_test_read(reg, bytes, n, path);
    char format[32];
    snprintf(format, sizeof format, "%s", doc->format);
    int trimmed = 0;
    if (AK_ASAN && n > 200000 && doc->clip_count > 6) {
        trim_clips(doc, 6);
        trimmed = 1;
    }
    const unsigned char *want = bytes;
    size_t want_n = n;
    unsigned char *direct = NULL;
    if (trimmed && writable) {
        direct = ak_test_write(reg, doc, format, &want_n);
        want = direct;
    }

    double t0 = now_ms();
    size_t jn;
    unsigned char *json = to_json(reg, doc, &jn);
    double t1 = now_ms();
    ak_doc *back = json_doc(reg, json, jn);
    double t2 = now_ms();
    if (n > 200000)
        printf("INFO: %s%s: %zu bytes -> JSON %zu bytes (%.1fx); write %.0f ms, read %.0f ms\n", rel,
               trimmed ? " (6 clips)" : "", n, jn, (double)jn / n, t1 - t0, t2 - t1);
    ck_assert_str_eq(back->format, format);
    docs_identical(doc, back, rel);

    if (writable) {
        size_t on;
        unsigned char *out = ak_test_write(reg, back, format, &on);
        ck_assert_msg(ak_test_same_bytes(want, want_n, out, on, rel), "%s: not byte-identical after JSON", rel);
        ak_buffer_free(reg, out);
    }
    /* JSON -> JSON is the identity. */
    size_t jn2;
    unsigned char *json2 = to_json(reg, back, &jn2);
    ck_assert_msg(ak_test_same_bytes(json, jn, json2, jn2, rel), "%s: JSON -> JSON differs", rel);
    ak_buffer_free(reg, json2);
    ak_buffer_free(reg, json);
    ak_buffer_free(reg, direct);
    ak_doc_free(back);
    ak_doc_free(doc);
    free(bytes);
}

static void corpus_folder(const char *folder, int writable)
{
    char names[64][256];
    int n = corpus_files(folder, names, 64);
    if (n < 0) {
        ak_test_skip("corpus not found (set AK_CORPUS)");
        return;
    }
    ck_assert_int_gt(n, 0);
    ak_registry *reg = registry();
    for (int i = 0; i < n; i++)
        corpus_trip(reg, names[i], writable);
    ak_registry_free(reg);
}

START_TEST(test_corpus_ifp) { corpus_folder("ifp", 1); }
END_TEST
START_TEST(test_corpus_ani) { corpus_folder("ani", 1); }
END_TEST
START_TEST(test_corpus_anm) { corpus_folder("anm", 1); }
END_TEST
START_TEST(test_corpus_mab) { corpus_folder("mab", 0); }
END_TEST

/* ------------------------------------------------------------------ */
/* A hand edit changes only the edited key's bytes                     */
/* ------------------------------------------------------------------ */

static size_t hex_decode(const char *hex, unsigned char *out, size_t max)
{
    size_t n = 0;
    while (hex[0] && hex[0] != '"' && hex[1] && n < max) {
        unsigned v;
        ck_assert_int_eq(sscanf(hex, "%2x", &v), 1);
        out[n++] = (unsigned char)v;
        hex += 2;
    }
    return n;
}

/* Replaces value `comp` (0 = x) of the first rotation key of the first
 * track that has stored bytes with `value`; returns the key's raw bytes. */
static char *edit_first_rotation(const char *json, int comp, const char *value, unsigned char *raw, size_t *raw_n)
{
    const char *r = strstr(json, "\"rotation\":[[");
    ck_assert_ptr_nonnull(r);
    const char *comma = r + strlen("\"rotation\":[[");
    for (int c = 0; c <= comp; c++)
        comma = strchr(comma + 1, ',');
    const char *end = comma + 1 + strcspn(comma + 1, ",]");
    const char *rw = strstr(r, "\"rotation_raw\":[\"");
    ck_assert_ptr_nonnull(rw);
    *raw_n = hex_decode(rw + strlen("\"rotation_raw\":[\""), raw, 64);
    ck_assert_uint_gt(*raw_n, 0);
    size_t head = (size_t)(comma + 1 - json);
    char *out = malloc(strlen(json) + strlen(value) + 1);
    ck_assert_ptr_nonnull(out);
    memcpy(out, json, head);
    strcpy(out + head, value);
    strcat(out, end);
    return out;
}

static void edit_trip(const char *rel, const char *format, int comp, int exact_value)
{
    size_t n;
    unsigned char *bytes = ak_test_corpus_file(rel, &n);
    if (!bytes)
        return;
    ak_registry *reg = registry();
    ak_doc *doc = ak_test_read(reg, bytes, n, rel);
    size_t jn;
    unsigned char *json = to_json(reg, doc, &jn);
    char *text = malloc(jn + 1);
    memcpy(text, json, jn);
    text[jn] = 0;
    unsigned char raw[64];
    size_t raw_n;
    char *edited = edit_first_rotation(text, comp, "0.5", raw, &raw_n);

    ak_doc *back = json_doc(reg, edited, strlen(edited));
    /* The edited key counts as changed and still has its bytes; the next
     * key does not count as changed. */
    const ak_track *tr = NULL;
    for (size_t c = 0; c < back->clip_count && !tr; c++)
        for (size_t t = 0; t < back->clips[c]->track_count && !tr; t++)
            if (back->clips[c]->tracks[t]->channel[AK_ROTATION].count)
                tr = back->clips[c]->tracks[t];
    ck_assert_ptr_nonnull(tr);
    ck_assert_double_eq(tr->channel[AK_ROTATION].keys[0].v[comp], 0.5);
    ck_assert_int_eq(ak_key_changed(&tr->channel[AK_ROTATION].keys[0]), 1);
    ck_assert_uint_eq(tr->channel[AK_ROTATION].keys[0].raw_size, raw_n);
    if (tr->channel[AK_ROTATION].count > 1)
        ck_assert_int_eq(ak_key_changed(&tr->channel[AK_ROTATION].keys[1]), 0);

    size_t on;
    unsigned char *out = ak_test_write(reg, back, format, &on);
    ck_assert_uint_eq(on, n);
    size_t first = n, last = 0;
    for (size_t i = 0; i < n; i++)
        if (out[i] != bytes[i]) {
            if (first == n)
                first = i;
            last = i;
        }
    ck_assert_msg(first < n, "%s: the edit did not reach the output", rel);
    /* Every differing byte lies inside one occurrence of the key's bytes. */
    int inside = 0;
    for (size_t p = last + 1 >= raw_n ? last + 1 - raw_n : 0; p <= first && p + raw_n <= n && !inside; p++)
        inside = memcmp(bytes + p, raw, raw_n) == 0;
    ck_assert_msg(inside, "%s: bytes %zu..%zu differ, not only the edited key's %zu bytes", rel, first, last,
                  raw_n);
    /* And the output says 0.5 now (within the format's quantisation), the
     * quaternion as written (not renormalised by this codec). */
    ak_doc *re = ak_test_read(reg, out, on, "edited");
    if (!exact_value) { /* stored as a matrix: the quaternion comes back normalised */
        ak_doc_free(re);
        re = NULL;
    }
    const ak_track *rt = NULL;
    for (size_t c = 0; re && c < re->clip_count && !rt; c++)
        for (size_t t = 0; t < re->clips[c]->track_count && !rt; t++)
            if (re->clips[c]->tracks[t]->channel[AK_ROTATION].count)
                rt = re->clips[c]->tracks[t];
    ck_assert(rt || !re);
    ck_assert_msg(!rt || fabs(rt->channel[AK_ROTATION].keys[0].v[comp] - 0.5) < 1e-3, "%s: edited value reads %g", rel,
                  rt->channel[AK_ROTATION].keys[0].v[comp]);
    ak_doc_free(re);
    ak_buffer_free(reg, out);
    ak_doc_free(back);
    free(edited);
    free(text);
    ak_buffer_free(reg, json);
    ak_doc_free(doc);
    free(bytes);
    ak_registry_free(reg);
}

START_TEST(test_edit_ifp) { edit_trip("ifp/walking_cuffed.ifp", "ifp", 0, 1); }
END_TEST
START_TEST(test_edit_ifp_float) { edit_trip("ifp/weapc.ifp", "ifp", 0, 1); }
END_TEST
START_TEST(test_edit_ani) { edit_trip("ani/lights_camera_action_100fps_w_music.ani", "ani", 1, 0); }
END_TEST
START_TEST(test_edit_anm) { edit_trip("anm/frm2_64bones_hmmwv_body_r.anm", "anm", 1, 0); }
END_TEST

/* ------------------------------------------------------------------ */
/* Hand-written JSON into every writable format                        */
/* ------------------------------------------------------------------ */

/* Counts "... is not carried into ..." warnings. */
static void count_not_carried(void *user, const ak_message *m)
{
    if (strstr(m->text, "not carried"))
        ++*(unsigned *)user;
}

static const char minimal[] =
    "{\"animkit\":1,\"clips\":[{\"name\":\"wave\",\"duration\":1.0,\"tracks\":["
    "{\"bone\":\"Root\",\"id\":0,"
    " \"rotation\":[[0,0,0,0,1],[0.5,0,0,0.70710678118654757,0.70710678118654757],[1,0,0,0,1]],"
    " \"translation\":[[0,0,0,1],[0.5,0.25,0,1],[1,0.5,-0.125,1]]},"
    "{\"bone\":\"Arm\",\"id\":1,"
    " \"rotation\":[[0,0.6,0,0,0.8],[1,0,0.6,0,0.8]]}]}]}";

static void check_minimal(const ak_doc *d, const char *format, double dt, double dq, double dp)
{
    ck_assert_uint_eq(d->clip_count, 1);
    const ak_clip *c = d->clips[0];
    ck_assert_uint_eq(c->track_count, 2);
    /* Tracks may come back in another order in some formats: find by name. */
    for (size_t t = 0; t < c->track_count; t++) {
        const ak_track *tr = c->tracks[t];
        int root = strcmp(tr->bone, "Root") == 0;
        ck_assert_msg(root || strcmp(tr->bone, "Arm") == 0, "%s: bone \"%s\"", format, tr->bone);
        static const double rq[3][5] = { { 0, 0, 0, 0, 1 }, { 0.5, 0, 0, 0.70710678118654757, 0.70710678118654757 },
                                         { 1, 0, 0, 0, 1 } };
        static const double aq[2][5] = { { 0, 0.6, 0, 0, 0.8 }, { 1, 0, 0.6, 0, 0.8 } };
        const ak_channel *ch = &tr->channel[AK_ROTATION];
        ck_assert_uint_eq(ch->count, root ? 3 : 2);
        for (size_t k = 0; k < ch->count; k++) {
            const double *want = root ? rq[k] : aq[k];
            ck_assert_msg(fabs(ch->keys[k].time - want[0]) <= dt, "%s: time %g", format, ch->keys[k].time);
            double dot = 0;
            for (int i = 0; i < 4; i++)
                dot += ch->keys[k].v[i] * want[1 + i];
            ck_assert_msg(fabs(fabs(dot) - 1) <= dq, "%s: %s rotation %zu off (dot %g)", format, tr->bone, k, dot);
        }
        if (root && dp >= 0) {
            static const double rp[3][4] = { { 0, 0, 0, 1 }, { 0.5, 0.25, 0, 1 }, { 1, 0.5, -0.125, 1 } };
            const ak_channel *tc = &tr->channel[AK_TRANSLATION];
            ck_assert_uint_eq(tc->count, 3);
            for (size_t k = 0; k < 3; k++) {
                ck_assert(fabs(tc->keys[k].time - rp[k][0]) <= dt);
                for (int i = 0; i < 3; i++)
                    ck_assert_msg(fabs(tc->keys[k].v[i] - rp[k][1 + i]) <= dp, "%s: translation %zu.%d = %g",
                                  format, k, i, tc->keys[k].v[i]);
            }
        }
    }
}

START_TEST(test_handwritten)
{
    ak_registry *reg = registry();
    ak_doc *d = json_str_doc(reg, minimal);
    ck_assert_str_eq(d->format, "json"); /* the core names a document without a format */
    /* Nothing stored: every key counts as changed, ticks come from nothing. */
    ck_assert_int_eq(ak_key_changed(&d->clips[0]->tracks[0]->channel[AK_ROTATION].keys[0]), 1);
    check_minimal(d, "json", 0, 1e-15, 0);
    static const struct {
        const char *format;
        double dt, dq, dp;
    } targets[] = {
        { "ifp", 1.0 / 60, 1e-3, 1e-3 }, /* ANP3: 1/60 s ticks, 1/4096 and 1/1024 steps */
        { "ani", 1e-3, 1e-6, 1e-6 },     /* milliseconds, floats */
        { "anm", 1.0 / 30, 1e-5, 1e-5 }, /* frames, float matrices */
    };
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        size_t n;
        unsigned char *out;
        /* A document json named itself has no other format's data to lose. */
        unsigned not_carried = 0;
        ak_report rep = { 0 };
        rep.on_message = count_not_carried;
        rep.user = &not_carried;
        ak_options o = { sizeof o, targets[i].format, NULL, NULL, 0 };
        ck_assert_int_eq(ak_write(reg, d, &o, &out, &n, &rep), AK_OK);
        ck_assert_msg(not_carried == 0, "%s: a 'not carried' warning", targets[i].format);
        char name[32];
        snprintf(name, sizeof name, "minimal.%s", targets[i].format);
        ak_doc *back = ak_test_read(reg, out, n, name);
        ck_assert_str_eq(back->format, targets[i].format);
        check_minimal(back, targets[i].format, targets[i].dt, targets[i].dq, targets[i].dp);
        ak_doc_free(back);
        ak_buffer_free(reg, out);
    }
    ak_doc_free(d);
    ak_registry_free(reg);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Names, props, numbers, checks                                       */
/* ------------------------------------------------------------------ */

static const char odd_name[] = "a\"b\\c\nd\x01\x7f\x80\xe9\xff/";

/* Three bones: a root without id or hash, a child with both and props,
 * a grandchild named with Latin-1 and UTF-8 bytes and odd rest values. */
static const char latin_name[] = " Kn\xf6" "chel \xc3\xa9";

static void add_skeleton(ak_doc *d)
{
    ak_bone *b = ak_bone_add(d, "Root");
    ck_assert_ptr_nonnull(b);
    b->translation[2] = 1.25;
    b = ak_bone_add(d, " Pelvis");
    ck_assert_ptr_nonnull(b);
    b->parent = 0;
    b->id = -7;
    b->has_id = 1;
    b->hash = 0xfedcba98u;
    b->has_hash = 1;
    b->rotation[0] = 0.5;
    b->rotation[1] = -0.5;
    b->rotation[2] = 0.5;
    b->rotation[3] = -0.5;
    b->scale[1] = 2;
    ck_assert_int_eq(ak_prop_set_int(d, &b->props, "flags", 3), AK_OK);
    ck_assert_int_eq(ak_prop_set_bytes(d, &b->props, "matrix", "\x00\x80\xff", 3), AK_OK);
    ck_assert_int_eq(ak_prop_set_string(d, &b->props, odd_name, latin_name), AK_OK);
    b = ak_bone_add(d, latin_name);
    ck_assert_ptr_nonnull(b);
    b->parent = 1;
    b->translation[0] = 0.1;
    b->translation[1] = -0.0;
    b->translation[2] = NAN;
    b->scale[0] = 1e-300;
}

static ak_doc *rich_doc(void)
{
    ak_doc *d = ak_doc_new();
    ck_assert_int_eq(ak_doc_set_format(d, "ifp", "ANP3"), AK_OK);
    ck_assert_int_eq(ak_prop_set_int(d, &d->props, "i", -9007199254740993LL), AK_OK);
    ck_assert_int_eq(ak_prop_set_float(d, &d->props, "f16", 1e16), AK_OK);
    ck_assert_int_eq(ak_prop_set_float(d, &d->props, "f", 3.0), AK_OK);
    ck_assert_int_eq(ak_prop_set_float(d, &d->props, "neg0", -0.0), AK_OK);
    ck_assert_int_eq(ak_prop_set_float(d, &d->props, "nan", NAN), AK_OK);
    ck_assert_int_eq(ak_prop_set_float(d, &d->props, "inf", -INFINITY), AK_OK);
    ck_assert_int_eq(ak_prop_set_string(d, &d->props, "s", "nan"), AK_OK);
    ck_assert_int_eq(ak_prop_set_bytes(d, &d->props, "b", "\x00\x01\xff", 3), AK_OK);
    ck_assert_int_eq(ak_prop_set_bytes(d, &d->props, "empty", "", 0), AK_OK);
    ak_clip *c = ak_clip_add(d, odd_name);
    c->duration = 2;
    c->frame_rate = 30;
    c->tick_rate = 60;
    ck_assert_int_eq(ak_prop_set_string(d, &c->props, odd_name, odd_name), AK_OK);
    ak_track *t = ak_track_add(c, odd_name);
    t->has_bone_id = 1;
    t->bone_id = -2147483647 - 1;
    t->has_bone_hash = 1;
    t->bone_hash = 0xffffffffu;
    t->weight = 0.25;
    ck_assert_int_eq(ak_prop_set_int(d, &t->props, "x", 1), AK_OK);
    for (int i = 0; i < 3; i++) {
        ak_key *k = ak_key_add(t, AK_ROTATION);
        k->time = i / 60.0;
        k->tick = i;
        k->v[0] = i == 1 ? -0.0 : 0.1 * i;
        k->v[3] = 0.9;
        unsigned char raw[4] = { 1, 2, 3, (unsigned char)i };
        ck_assert_int_eq(ak_key_set_raw(t, k, raw, sizeof raw), AK_OK);
    }
    t->channel[AK_ROTATION].keys[2].v[1] = 0.5; /* edited after storing: changed, bytes kept */
    ak_key *p = ak_key_add(t, AK_TRANSLATION); /* no stored bytes */
    p->time = 1;
    p->tick = 60;
    p->v[0] = NAN;
    p->v[1] = INFINITY;
    p->v[2] = 1e-300;
    ak_key *s = ak_key_add(t, AK_SCALE);
    s->v[0] = s->v[1] = s->v[2] = 1;
    /* Zero bytes stored (anm does this for scale derived from a matrix):
     * unchanged, and must stay so through JSON. */
    ck_assert_int_eq(ak_key_set_raw(t, s, NULL, 0), AK_OK);
    ck_assert_int_eq(ak_key_changed(s), 0);
    ak_key *vk = ak_key_add(t, AK_VISIBILITY);
    vk->v[0] = 1;
    ck_assert_int_eq(ak_key_set_raw(t, vk, "\x01", 1), AK_OK);
    ak_clip *odd = ak_clip_add(d, "odd rates"); /* as a damaged file may give them */
    odd->frame_rate = -24;
    odd->tick_rate = NAN;
    ak_event *e = ak_event_add(c, 0.5, "sound", odd_name);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(ak_prop_set_float(d, &e->props, "vol", 0.5), AK_OK);
    add_skeleton(d);
    return d;
}

START_TEST(test_rich_document)
{
    ak_registry *reg = registry();
    ak_doc *d = rich_doc();
    size_t jn;
    unsigned char *json = to_json(reg, d, &jn);
    /* The text is valid JSON in every part (1e16 as a float property used
     * to come out as "1e+16.0"). */
    json_error_t err;
    json_t *root = json_loadb((const char *)json, jn, 0, &err);
    ck_assert_msg(root != NULL, "invalid JSON: %s at %d", err.text, err.position);
    json_t *props = json_object_get(root, "props");
    ck_assert(json_is_real(json_object_get(props, "f16")));
    ck_assert(json_is_real(json_object_get(props, "f")));
    ck_assert(json_is_real(json_object_get(props, "neg0")));
    ck_assert(json_is_integer(json_object_get(props, "i")));
    json_decref(root);

    /* No "data is not carried into json" warning: json carries it all. */
    ak_report rep = { 0 };
    ak_options o = { sizeof o, "json", "rich.json", NULL, 0 };
    unsigned char *again;
    size_t again_n;
    ck_assert_int_eq(ak_write(reg, d, &o, &again, &again_n, &rep), AK_OK);
    ck_assert_uint_eq(rep.warnings, 0);
    ak_buffer_free(reg, again);

    ak_doc *back = json_doc(reg, json, jn);
    docs_identical(d, back, "rich");
    ck_assert_str_eq(back->clips[0]->name, odd_name);
    ck_assert_str_eq(back->clips[0]->tracks[0]->bone, odd_name);
    ck_assert_str_eq(back->clips[0]->events[0].info, odd_name);
    ck_assert_double_eq(back->clips[0]->frame_rate, 30);
    ck_assert_double_eq(back->clips[0]->tracks[0]->weight, 0.25);
    const ak_props *bp = &back->props;
    ck_assert_uint_eq(bp->count, d->props.count);
    for (size_t i = 0; i < bp->count; i++) { /* same order, types and values */
        const ak_prop *a = &d->props.items[i], *b = &bp->items[i];
        ck_assert_str_eq(a->key, b->key);
        ck_assert_int_eq(a->type, b->type);
        ck_assert_int_eq(a->i, b->i);
        ck_assert(same_double(a->f, b->f));
        ck_assert_uint_eq(a->size, b->size);
        ck_assert(a->size == 0 || memcmp(a->data, b->data, a->size) == 0);
    }
    ck_assert_int_eq(ak_prop_get(&back->clips[0]->props, odd_name)->type, AK_PROP_STRING);
    ck_assert_str_eq((const char *)ak_prop_get(&back->clips[0]->props, odd_name)->data, odd_name);
    const ak_channel *rot = &back->clips[0]->tracks[0]->channel[AK_ROTATION];
    ck_assert_int_eq(ak_key_changed(&rot->keys[0]), 0);
    ck_assert_int_eq(ak_key_changed(&rot->keys[1]), 0);
    ck_assert_int_eq(ak_key_changed(&rot->keys[2]), 1); /* stays edited */
    ck_assert_uint_eq(rot->keys[2].raw_size, 4);
    ck_assert_int_eq(ak_key_changed(&back->clips[0]->tracks[0]->channel[AK_TRANSLATION].keys[0]), 1);
    ck_assert_int_eq(ak_key_changed(&back->clips[0]->tracks[0]->channel[AK_SCALE].keys[0]), 0);

    size_t jn2;
    unsigned char *json2 = to_json(reg, back, &jn2);
    ck_assert(ak_test_same_bytes(json, jn, json2, jn2, "rich JSON -> JSON"));
    ak_buffer_free(reg, json2);
    ak_doc_free(back);
    ak_buffer_free(reg, json);
    ak_doc_free(d);
    ak_registry_free(reg);
}
END_TEST

START_TEST(test_skeleton)
{
    ak_registry *reg = registry();
    ak_doc *d = ak_doc_new();
    ck_assert_int_eq(ak_doc_set_format(d, "dff", ""), AK_OK);
    add_skeleton(d);
    size_t jn;
    unsigned char *json = to_json(reg, d, &jn);
    /* The text, read by jansson here: id and hash only where the bone has
     * them, every rest value, names as Latin-1 code points. */
    json_error_t err;
    json_t *root = json_loadb((const char *)json, jn, 0, &err);
    ck_assert_msg(root != NULL, "invalid JSON: %s", err.text);
    json_t *sk = json_object_get(root, "skeleton");
    ck_assert_uint_eq(json_array_size(sk), 3);
    json_t *b0 = json_array_get(sk, 0), *b1 = json_array_get(sk, 1), *b2 = json_array_get(sk, 2);
    ck_assert_ptr_null(json_object_get(b0, "id"));
    ck_assert_ptr_null(json_object_get(b0, "hash"));
    ck_assert_ptr_null(json_object_get(b0, "props"));
    ck_assert_int_eq(json_integer_value(json_object_get(b0, "parent")), -1);
    ck_assert_double_eq(json_number_value(json_array_get(json_object_get(b0, "translation"), 2)), 1.25);
    ck_assert_double_eq(json_number_value(json_array_get(json_object_get(b0, "rotation"), 3)), 1);
    ck_assert_double_eq(json_number_value(json_array_get(json_object_get(b0, "scale"), 0)), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(b1, "id")), -7);
    ck_assert_int_eq(json_integer_value(json_object_get(b1, "hash")), 0xfedcba98u);
    ck_assert_int_eq(json_integer_value(json_object_get(b1, "parent")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(b1, "props"), "flags")), 3);
    ck_assert_str_eq(json_string_value(json_object_get(b1, "name")), " Pelvis");
    /* 0xf6 -> U+00F6 (two UTF-8 bytes), 0xc3 0xa9 -> U+00C3 U+00A9. */
    ck_assert_str_eq(json_string_value(json_object_get(b2, "name")), " Kn\xc3\xb6" "chel \xc3\x83\xc2\xa9");
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(b2, "translation"), 2)), "nan");
    ck_assert_uint_eq(json_array_size(json_object_get(root, "clips")), 0);
    json_decref(root);

    /* Back unchanged, and the second dump is the first byte for byte. */
    ak_doc *back = json_doc(reg, json, jn);
    docs_identical(d, back, "skeleton");
    ck_assert_str_eq(back->skeleton.bones[2].name, latin_name);
    ck_assert_str_eq((const char *)ak_prop_get(&back->skeleton.bones[1].props, odd_name)->data, latin_name);
    size_t jn2;
    unsigned char *json2 = to_json(reg, back, &jn2);
    ck_assert(ak_test_same_bytes(json, jn, json2, jn2, "skeleton JSON -> JSON"));
    ak_buffer_free(reg, json2);
    ak_doc_free(back);

    /* Written by hand: a skeleton without "clips", rest values left out
     * take the identity; the bones match tracks once attached. */
    back = json_str_doc(reg, "{\"animkit\":1,\"skeleton\":[{\"name\":\"a\"},{\"name\":\"b\",\"parent\":0,"
                             "\"translation\":[1,2,3]}]}");
    ck_assert_uint_eq(back->skeleton.bone_count, 2);
    ck_assert_uint_eq(back->clip_count, 0);
    ck_assert_int_eq(back->skeleton.bones[0].parent, -1);
    ck_assert_double_eq(back->skeleton.bones[0].rotation[3], 1);
    ck_assert_double_eq(back->skeleton.bones[0].scale[2], 1);
    ck_assert_double_eq(back->skeleton.bones[1].translation[2], 3);
    ck_assert_int_eq(back->skeleton.bones[1].has_id, 0);
    ak_doc_free(back);

    ak_buffer_free(reg, json);
    ak_doc_free(d);
    ak_registry_free(reg);
}
END_TEST

static char skeleton_warning[512];

static void keep_skeleton_warning(void *user, const ak_message *m)
{
    (void)user;
    if (m->severity == AK_WARNING && strstr(m->text, "skeleton"))
        snprintf(skeleton_warning, sizeof skeleton_warning, "%s", m->text);
}

START_TEST(test_skeleton_loss_reported)
{
    ak_registry *reg = registry();
    ak_doc *d = ak_doc_new();
    add_skeleton(d);
    ck_assert_ptr_nonnull(ak_track_add(ak_clip_add(d, "c"), "Root"));
    ak_report rep = { 0 };
    rep.on_message = keep_skeleton_warning;
    skeleton_warning[0] = 0;
    ak_options o = { sizeof o, "ifp", "x.ifp", NULL, 0 };
    unsigned char *out;
    size_t n;
    ck_assert_int_eq(ak_write(reg, d, &o, &out, &n, &rep), AK_OK);
    ck_assert_str_eq(skeleton_warning, "the skeleton (3 bones) is not carried: ifp cannot store one");
    ak_buffer_free(reg, out);
    skeleton_warning[0] = 0;
    o.format = "json";
    ck_assert_int_eq(ak_write(reg, d, &o, &out, &n, &rep), AK_OK);
    ck_assert_str_eq(skeleton_warning, "");
    ak_buffer_free(reg, out);
    ak_doc_free(d);
    ak_registry_free(reg);
}
END_TEST

START_TEST(test_names_and_checks_by_hand)
{
    ak_registry *reg = registry();
    /* \u00e9 is the byte 0xe9; U+0416 stays UTF-8; strings for numbers. */
    ak_doc *d = json_str_doc(reg,
        "{\"animkit\":1,\"format\":\"ifp\",\"variant\":\"ANP3\",\"clips\":[{\"name\":\"caf\\u00e9 \\u0416\","
        "\"duration\":\"inf\",\"tick_rate\":60,\"tracks\":[{\"bone\":\"b\",\"weight\":\"nan\","
        "\"rotation\":[[0,0,0,0,1],[0.5,\"-inf\",0,0,1]],"
        "\"rotation_raw\":[\"0A0b\",\"\"],"
        "\"rotation_check\":[\"0000000000000000\",\"\"]}]}]}");
    const ak_clip *c = d->clips[0];
    ck_assert_str_eq(c->name, "caf\xe9 \xd0\x96");
    ck_assert(isinf(c->duration) && c->duration > 0);
    const ak_track *t = c->tracks[0];
    ck_assert(isnan(t->weight));
    /* No ticks given: from time * tick_rate. */
    ck_assert_int_eq(t->channel[AK_ROTATION].keys[1].tick, 30);
    ck_assert(isinf(t->channel[AK_ROTATION].keys[1].v[0]));
    /* A wrong check: bytes kept, key changed; no bytes: changed. */
    ck_assert_uint_eq(t->channel[AK_ROTATION].keys[0].raw_size, 2);
    ck_assert_int_eq(t->channel[AK_ROTATION].keys[0].raw[0], 0x0a);
    ck_assert_int_eq(ak_key_changed(&t->channel[AK_ROTATION].keys[0]), 1);
    ck_assert_int_eq(ak_key_changed(&t->channel[AK_ROTATION].keys[1]), 1);
    ak_doc_free(d);

    /* The right check, computed here independently: FNV-1a 64 over the
     * little-endian bytes of tick 0, time 0.0, x 0, y 0, z 0, w 1.0. */
    unsigned char buf[48] = { 0 };
    buf[6 * 8 - 2] = 0xf0; /* 1.0 = 0x3ff0000000000000 */
    buf[6 * 8 - 1] = 0x3f;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < sizeof buf; i++) {
        h ^= buf[i];
        h *= 0x100000001b3ull;
    }
    char text[512];
    snprintf(text, sizeof text,
             "{\"animkit\":1,\"clips\":[{\"name\":\"c\",\"tracks\":[{\"rotation\":[[0,0,0,0,1]],"
             "\"rotation_raw\":[\"ff\"],\"rotation_check\":[\"%016llx\"]}]}]}",
             (unsigned long long)h);
    d = json_str_doc(reg, text);
    ck_assert_int_eq(ak_key_changed(&d->clips[0]->tracks[0]->channel[AK_ROTATION].keys[0]), 0);
    ak_doc_free(d);
    ak_registry_free(reg);
}
END_TEST

START_TEST(test_probe)
{
    const ak_codec *c = json_codec();
    ck_assert_int_eq(c->probe((const unsigned char *)"{\"animkit\":1}", 13, NULL), AK_PROBE_MAGIC);
    ck_assert_int_eq(c->probe((const unsigned char *)" \n\t{ \"animkit\" :1}", 18, "x.bin"), AK_PROBE_MAGIC);
    ck_assert_int_eq(c->probe((const unsigned char *)"{\"animkit\"", 10, NULL), 0);
    ck_assert_int_eq(c->probe((const unsigned char *)"{\"other\":1}", 11, NULL), 0);
    ck_assert_int_eq(c->probe((const unsigned char *)"{\"other\":1}", 11, "a/b.JSON"), AK_PROBE_EXTENSION);
    ck_assert_int_eq(c->probe((const unsigned char *)"", 0, "a.json/b"), 0);
    ck_assert_int_eq(c->probe((const unsigned char *)"ANP3", 4, NULL), 0);
    ck_assert(c->caps & AK_CAP_VISIBILITY && c->caps & AK_CAP_EVENTS && c->caps & AK_CAP_MULTI_CLIP &&
              c->caps & AK_CAP_BONE_HASH && c->caps & AK_CAP_WEIGHT);
    /* Through the registry: the magic wins over the extension of another codec. */
    ak_registry *reg = registry();
    ak_probe_result pr;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_probe(reg, "{\"animkit\":1,\"clips\":[]}", 24, "x.ifp", &pr, &rep), AK_OK);
    ck_assert_str_eq(pr.codec->name, "json");
    ak_registry_free(reg);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Bad input                                                           */
/* ------------------------------------------------------------------ */

static void expect_data_error(ak_registry *reg, const void *text, size_t n, const char *what)
{
    ak_report rep;
    ak_doc *doc = NULL;
    ak_status st = read_json(reg, text, n, &doc, &rep);
    ck_assert_msg(st == AK_E_DATA, "%s: status %s (%s)", what, ak_status_name(st), rep.message);
    ck_assert_ptr_null(doc);
    ck_assert_msg(rep.text[0] != 0, "%s: no message", what);
    ck_assert_msg(rep.offset >= 0 && (size_t)rep.offset <= n, "%s: offset %lld", what, (long long)rep.offset);
}

/* The error is reported at the offset of `at` in `text`. */
static void expect_error_at(ak_registry *reg, const char *text, const char *at)
{
    ak_report rep;
    ak_doc *doc = NULL;
    ck_assert_int_eq(read_json(reg, text, strlen(text), &doc, &rep), AK_E_DATA);
    ck_assert_ptr_nonnull(strstr(text, at));
    ck_assert_msg(rep.offset == strstr(text, at) - text, "%s: offset %lld, want %td (%s)", text,
                  (long long)rep.offset, strstr(text, at) - text, rep.text);
}

static unsigned char *small_corpus_json(ak_registry *reg, size_t *jn)
{
    char path[512];
    if (!ak_test_corpus("ifp/weapc.ifp", path, sizeof path))
        return NULL;
    size_t n;
    unsigned char *bytes = ak_test_slurp(path, &n);
    ak_doc *doc = ak_test_read(reg, bytes, n, path);
    unsigned char *json = to_json(reg, doc, jn);
    ak_doc_free(doc);
    free(bytes);
    return json;
}

START_TEST(test_bad_truncated)
{
    ak_registry *reg = registry();
    size_t jn;
    unsigned char *json = small_corpus_json(reg, &jn);
    ak_doc *rich = NULL;
    if (!json) { /* no corpus: the synthetic document */
        rich = rich_doc();
        json = to_json(reg, rich, &jn);
    }
    size_t step = jn / 400 + 1;
    unsigned checked = 0;
    for (size_t cut = 0; cut + 1 < jn; cut += (cut < 64 || cut + 64 > jn) ? 1 : step) {
        ak_report rep;
        ak_doc *doc = NULL;
        ak_status st = read_json(reg, json, cut, &doc, &rep);
        ck_assert_msg(st == AK_E_DATA, "cut at %zu: %s", cut, ak_status_name(st));
        ck_assert_msg(rep.offset >= 0 && (size_t)rep.offset <= cut, "cut at %zu: offset %lld", cut,
                      (long long)rep.offset);
        checked++;
    }
    ck_assert_uint_gt(checked, 100);
    /* Only the final newline may go. */
    ak_doc *doc = json_doc(reg, json, jn - 1);
    ak_doc_free(doc);
    ak_buffer_free(reg, json);
    ak_doc_free(rich);
    ak_registry_free(reg);
}
END_TEST

/* Replaces every node of the tree in turn with a value of the wrong type
 * ({} for scalars and arrays, [] for objects); each must be refused. */
static unsigned mutate_all(ak_registry *reg, json_t *root, json_t *node, const char *path)
{
    unsigned count = 0;
    if (json_is_object(node)) {
        const char *key;
        json_t *v;
        void *tmp;
        json_object_foreach_safe(node, tmp, key, v) {
            char p[512];
            snprintf(p, sizeof p, "%.400s.%.64s", path, key);
            json_incref(v);
            json_t *bad = json_is_object(v) ? json_array() : json_object();
            json_object_set_new(node, key, bad);
            char *text = json_dumps(root, 0);
            expect_data_error(reg, text, strlen(text), p);
            free(text);
            json_object_set_new(node, key, v);
            count += 1 + mutate_all(reg, root, v, p);
        }
    } else if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++) {
            char p[512];
            snprintf(p, sizeof p, "%.400s[%zu]", path, i);
            json_t *v = json_array_get(node, i);
            json_incref(v);
            json_array_set_new(node, i, json_is_object(v) ? json_array() : json_object());
            char *text = json_dumps(root, 0);
            expect_data_error(reg, text, strlen(text), p);
            free(text);
            json_array_set_new(node, i, v);
            count += 1 + mutate_all(reg, root, v, p);
        }
    }
    return count;
}

START_TEST(test_bad_types)
{
    ak_registry *reg = registry();
    ak_doc *d = rich_doc();
    /* Drop the empty bytes prop: {"hex":""} with "hex" -> {} stays an object. */
    size_t jn;
    unsigned char *json = to_json(reg, d, &jn);
    json_error_t err;
    json_t *root = json_loadb((const char *)json, jn, 0, &err);
    ck_assert_ptr_nonnull(root);
    unsigned n = mutate_all(reg, root, root, "");
    ck_assert_uint_gt(n, 60);
    json_decref(root);
    ak_buffer_free(reg, json);
    ak_doc_free(d);
    ak_registry_free(reg);
}
END_TEST

START_TEST(test_bad_specific)
{
    ak_registry *reg = registry();
    static const char *const bad[] = {
        "",
        "[]",
        "{}",
        "{\"animkit\":\"1\",\"clips\":[]}",
        "{\"animkit\":1}",
        "{\"animkit\":1,\"clips\":[],\"clips\":[]}",
        "{\"animkit\":1,\"clips\":[]} x",
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"rotation\":[[0,0,0,1]]}]}]}",
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"rotation\":[[0,0,0,0,1,2]]}]}]}",
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"rotation\":[[0,0,0,0,\"NaN\"]]}]}]}",
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"rotation\":[[0,0,0,0,1]],\"rotation_ticks\":[1,2]}]}]}",
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"rotation\":[[0,0,0,0,1]],\"rotation_ticks\":[0.5]}]}]}",
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"rotation\":[[0,0,0,0,1]],\"rotation_raw\":[\"abc\"]}]}]}",
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"rotation\":[[0,0,0,0,1]],\"rotation_raw\":[\"zz\"]}]}]}",
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"rotation\":[[0,0,0,0,1]],\"rotation_raw\":[\"0g\"]}]}]}",
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"rotation\":[[0,0,0,0,1]],\"rotation_raw\":[]}]}]}",
        ("{\"animkit\":1,\"clips\":[{\"tracks\":[{\"rotation\":[[0,0,0,0,1]],\"rotation_raw\":[\"00\"],"
         "\"rotation_check\":[1]}]}]}"),
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"id\":2147483648}]}]}",
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"id\":1.0}]}]}",
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"hash\":-1}]}]}",
        "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"hash\":4294967296}]}]}",
        "{\"animkit\":1,\"clips\":[{\"props\":{\"a\":{\"hex\":\"0\"}}}]}",
        "{\"animkit\":1,\"clips\":[{\"props\":{\"a\":{\"hex\":\"00\",\"x\":1}}}]}",
        "{\"animkit\":1,\"clips\":[{\"props\":{\"a\":{\"float\":\"x\"}}}]}",
        "{\"animkit\":1,\"clips\":[{\"props\":{\"\":1}}]}",
        "{\"animkit\":1,\"clips\":[{\"props\":{\"a\":null}}]}",
        "{\"animkit\":1,\"clips\":[{\"props\":{\"a\":true}}]}",
        "{\"animkit\":1,\"clips\":[{\"name\":\"a\\u0000b\"}]}",
        "{\"animkit\":1,\"clips\":[{\"name\":\"\xff\"}]}",
        "{\"animkit\":1,\"clips\":[{\"duration\":1e999}]}",
        "{\"animkit\":1,\"props\":{\"i\":99999999999999999999}, \"clips\":[]}",
        "{\"animkit\":1,\"clips\":[{\"events\":[{\"time\":null}]}]}",
        "{\"animkit\":1,\"clips\":[{\"events\":[{\"type\":1}]}]}",
        "{\"animkit\":1,\"clips\":[{\"events\":[{\"info\":[]}]}]}",
        "{\"animkit\":1,\"skeleton\":{}}",
        "{\"animkit\":1,\"skeleton\":[]}",
        "{\"animkit\":1,\"skeleton\":[1],\"clips\":[]}",
        "{\"animkit\":1,\"skeleton\":[{\"parent\":0}],\"clips\":[]}",
        "{\"animkit\":1,\"skeleton\":[{\"parent\":-2}],\"clips\":[]}",
        "{\"animkit\":1,\"skeleton\":[{},{\"parent\":1}],\"clips\":[]}",
        "{\"animkit\":1,\"skeleton\":[{\"parent\":0.0}],\"clips\":[]}",
        "{\"animkit\":1,\"skeleton\":[{\"id\":2147483648}],\"clips\":[]}",
        "{\"animkit\":1,\"skeleton\":[{\"hash\":-1}],\"clips\":[]}",
        "{\"animkit\":1,\"skeleton\":[{\"rotation\":[0,0,1]}],\"clips\":[]}",
        "{\"animkit\":1,\"skeleton\":[{\"translation\":[0,0,\"x\"]}],\"clips\":[]}",
        "{\"animkit\":1,\"skeleton\":[{\"scale\":1}],\"clips\":[]}",
        "{\"animkit\":1,\"skeleton\":[{\"name\":1}],\"clips\":[]}",
        "{\"animkit\":1,\"skeleton\":[{\"props\":[]}],\"clips\":[]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_data_error(reg, bad[i], strlen(bad[i]), bad[i]);

    /* Offsets of errors found after parsing point at the field. */
    expect_error_at(reg, "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"id\":1},{\"id\":1.5}]}]}", "1.5");
    expect_error_at(reg, "{\"animkit\":1,\"clips\":[{}, {\"tracks\":[{\"rotation\":[[0,0,0,0,1], [1,0,0,0,\"x\"]]}]}]}",
                    "[1,0");
    expect_error_at(reg, "{\"animkit\":1,\"clips\":[{\"name\":\"a\\\"[]\",\"props\":{\"a.b\":1,\"c\":[]}}]}", "[]}}");
    expect_error_at(reg, "{\"animkit\":1, \"clips\":[{\"tracks\":[{\"rotation\":[[0,0,0,0,1]],"
                         "\"rotation_raw\":[ \"0g\"]}]}]}", "\"0g");
    expect_error_at(reg, " {\"animkit\":\"1\"}", "\"1\"");
    expect_error_at(reg, "{\"animkit\":1,\"skeleton\":[{\"name\":\"a\"},{\"parent\":0},{\"parent\": 2}]}", "2}]");
    expect_error_at(reg, "{\"animkit\":1,\"skeleton\":[{\"name\":\"a\",\"rotation\":[0,0,0, \"w\"]}]}", "\"w\"");

    /* A newer schema is unsupported, not malformed. */
    ak_report rep;
    ak_doc *doc = NULL;
    const char *v2 = "{\"animkit\":2,\"clips\":[]}";
    ck_assert_int_eq(read_json(reg, v2, strlen(v2), &doc, &rep), AK_E_UNSUPPORTED);

    /* Deep nesting: jansson's depth limit, a clean error. */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 64);
    size_t p = (size_t)sprintf(deep, "{\"animkit\":1,\"clips\":[],\"x\":");
    for (size_t i = 0; i < depth; i++)
        deep[p++] = '[';
    for (size_t i = 0; i < depth; i++)
        deep[p++] = ']';
    deep[p++] = '}';
    expect_data_error(reg, deep, p, "deep nesting");
    free(deep);

    /* Unknown fields are warned about, not fatal. */
    const char *extra = "{\"animkit\":1,\"future\":1,\"clips\":[{\"x\":1,\"tracks\":[{\"rotaton\":[]}]}]}";
    ck_assert_int_eq(read_json(reg, extra, strlen(extra), &doc, &rep), AK_OK);
    ck_assert_uint_eq(rep.warnings, 3);
    ak_doc_free(doc);

    /* Many keys in few bytes stay within the input-proportional cap. */
    size_t keys = 200000;
    char *many = malloc(keys * 12 + 128);
    p = (size_t)sprintf(many, "{\"animkit\":1,\"clips\":[{\"tracks\":[{\"visibility\":[");
    for (size_t i = 0; i < keys; i++)
        p += (size_t)sprintf(many + p, "%s[0,1]", i ? "," : "");
    p += (size_t)sprintf(many + p, "]}]}]}");
    ck_assert_int_eq(read_json(reg, many, p, &doc, &rep), AK_OK);
    ck_assert_uint_eq(doc->clips[0]->tracks[0]->channel[AK_VISIBILITY].count, keys);
    ak_doc_free(doc);
    free(many);
    ak_registry_free(reg);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Allocation failures and the memory cap                              */
/* ------------------------------------------------------------------ */

typedef struct fail_alloc {
    long calls, fail_at, refused, live;
} fail_alloc;

static void *fa_alloc(void *user, size_t size)
{
    fail_alloc *f = user;
    if (++f->calls == f->fail_at) {
        f->refused++;
        return NULL;
    }
    void *p = malloc(size);
    if (p)
        f->live++;
    return p;
}

static void *fa_realloc(void *user, void *ptr, size_t size)
{
    fail_alloc *f = user;
    if (++f->calls == f->fail_at) {
        f->refused++;
        return NULL;
    }
    void *p = realloc(ptr, size);
    if (p && !ptr)
        f->live++;
    return p;
}

static void fa_free(void *user, void *ptr)
{
    fail_alloc *f = user;
    if (ptr)
        f->live--;
    free(ptr);
}

START_TEST(test_alloc_faults)
{
    fail_alloc fa = { 0, 0, 0, 0 };
    ak_allocator al = { fa_alloc, fa_realloc, fa_free, &fa };
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_PLUGINS, NULL, &al, NULL, NULL, NULL };
    ak_registry *reg = NULL;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_OK);
    ck_assert_int_eq(ak_registry_add_codec(reg, json_codec(), 0, &rep), AK_OK);
    ak_doc *d = rich_doc();
    unsigned char *json;
    size_t jn;
    ak_options o = { sizeof o, "json", "t.json", NULL, 0 };
    ck_assert_int_eq(ak_write(reg, d, &o, &json, &jn, &rep), AK_OK);
    long base = fa.live;
    fa.calls = 0;
    ak_doc *doc = NULL;
    ck_assert_int_eq(ak_read(reg, json, jn, &o, &doc, &rep), AK_OK);
    long needed = fa.calls;
    ck_assert_int_gt(needed, 10);
    ak_doc_free(doc);
    ck_assert_int_eq(fa.live, base);
    for (long n = 1; n <= needed; n++) {
        fa.calls = fa.refused = 0;
        fa.fail_at = n;
        memset(&rep, 0, sizeof rep);
        doc = NULL;
        ak_status st = ak_read(reg, json, jn, &o, &doc, &rep);
        ck_assert_msg(fa.refused == 0 || st == AK_E_NOMEM, "allocation %ld refused: %s", n, ak_status_name(st));
        ck_assert(st == AK_OK ? doc != NULL : doc == NULL);
        ak_doc_free(doc);
        ck_assert_msg(fa.live == base, "allocation %ld refused: %ld blocks leaked", n, fa.live - base);
        /* The write: the sink's buffer. */
        fa.calls = fa.refused = 0;
        unsigned char *out = NULL;
        size_t on;
        st = ak_write(reg, d, &o, &out, &on, &rep);
        ck_assert(fa.refused == 0 ? st == AK_OK : st == AK_E_NOMEM);
        ak_buffer_free(reg, out);
        ck_assert_int_eq(fa.live, base);
    }
    fa.fail_at = 0;
    /* A memory cap below what the document needs: a clean limit error. */
    ak_options small = { sizeof small, "json", "t.json", NULL, 4096 };
    memset(&rep, 0, sizeof rep);
    ck_assert_int_eq(ak_read(reg, json, jn, &small, &doc, &rep), AK_E_LIMIT);
    ck_assert_ptr_null(doc);
    ak_buffer_free(reg, json);
    ak_doc_free(d);
    ak_registry_free(reg);
    ck_assert_int_eq(fa.live, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("json");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_probe);
    tcase_add_test(tc, test_rich_document);
    tcase_add_test(tc, test_skeleton);
    tcase_add_test(tc, test_skeleton_loss_reported);
    tcase_add_test(tc, test_names_and_checks_by_hand);
    tcase_add_test(tc, test_handwritten);
    tcase_add_test(tc, test_bad_specific);
    tcase_add_test(tc, test_bad_types);
    tcase_add_test(tc, test_bad_truncated);
    tcase_add_test(tc, test_alloc_faults);
    tcase_add_test(tc, test_edit_ifp);
    tcase_add_test(tc, test_edit_ifp_float);
    tcase_add_test(tc, test_edit_ani);
    tcase_add_test(tc, test_edit_anm);
    tcase_add_test(tc, test_corpus_ifp);
    tcase_add_test(tc, test_corpus_ani);
    tcase_add_test(tc, test_corpus_anm);
    tcase_add_test(tc, test_corpus_mab);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
