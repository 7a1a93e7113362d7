/* read.c - rebuilds a document from animkit's JSON form with jansson.
 *
 * The text is parsed whole by json_loadb (jansson limits nesting depth
 * itself; the tree's memory is bounded from a pre-scan, bound.c, and
 * counted against the read's limit before parsing); then every
 * field is looked up with its type checked. Errors name the path of the
 * offending field ("clips[2].tracks[5].rotation[7]") and its byte offset
 * (found again in the text by locate.c); syntax errors carry jansson's.
 *
 * Name strings: the dump writes name bytes outside printable ASCII as
 * \u00XX, so code points up to U+00FF become that single byte again; higher
 * code points (typed by a user) stay UTF-8.
 *
 * Skeleton: bones in order, each parent an earlier bone (checked here, so
 * that what is read is a tree); rest values default to the identity.
 *
 * Keys: "*_ticks" restore key.tick; "*_raw" the stored bytes, attached after
 * time, tick and values; "*_check" tells whether the values still are those
 * the bytes were stored with. A key whose check does not match (edited by
 * hand) keeps its bytes but counts as changed, so writers re-encode it.
 */
#include "json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_UNKNOWN_WARNINGS 8

typedef struct jr {
    ak_job *job;
    const unsigned char *text; /* the input, for error offsets */
    size_t size;
    ak_doc *doc;
    char *buf;          /* scratch for converted strings and decoded bytes */
    size_t cap;
    unsigned unknown;   /* warnings about unknown fields so far */
} jr;

static const int channel_width[AK_CHANNELS] = { 4, 3, 3, 1 };

static ak_status bad(jr *r, const char *where, const char *what)
{
    return ak_fail(r->job, AK_E_DATA, json_locate(r->text, r->size, where), "%s: %s", where, what);
}

static int scratch(jr *r, size_t need)
{
    if (need <= r->cap)
        return 1;
    char *p = ak_job_realloc(r->job, r->buf, need, 1);
    if (!p)
        return 0;
    r->buf = p;
    r->cap = need;
    return 1;
}

/* A copy that outlives the next latin1() call, which reuses r->buf. */
static char *copy_string(jr *r, const char *s)
{
    size_t n = strlen(s);
    char *p = ak_job_alloc(r->job, n + 1, 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

/* The bytes of a JSON string: U+0080..U+00FF as one byte each (Latin-1),
 * everything else as it is. Returns NULL (job failed) when out of memory. */
static const char *latin1(jr *r, json_t *s)
{
    const unsigned char *p = (const unsigned char *)json_string_value(s);
    size_t n = json_string_length(s);
    if (!scratch(r, n + 1))
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if ((p[i] == 0xc2 || p[i] == 0xc3) && i + 1 < n && (p[i + 1] & 0xc0) == 0x80) {
            r->buf[o++] = (char)(((p[i] & 0x1f) << 6) | (p[i + 1] & 0x3f));
            i++;
        } else {
            r->buf[o++] = (char)p[i];
        }
    }
    r->buf[o] = '\0';
    return r->buf;
}

/* A string field (absent = `fallback`); the result lives in the scratch
 * buffer until the next conversion. */
static ak_status get_string(jr *r, json_t *obj, const char *field, const char *fallback, const char *where,
                            const char **out)
{
    json_t *v = json_object_get(obj, field);
    if (!v) {
        *out = fallback;
        return AK_OK;
    }
    if (!json_is_string(v)) {
        char w[512];
        snprintf(w, sizeof w, "%.300s.%s", where, field);
        return bad(r, w, "must be a string");
    }
    *out = latin1(r, v);
    return *out ? AK_OK : AK_E_NOMEM;
}

/* A number: an integer, a real, or one of the strings "nan", "inf", "-inf". */
static int number_of(json_t *v, double *out)
{
    if (json_is_integer(v)) {
        *out = (double)json_integer_value(v);
        return 1;
    }
    if (json_is_real(v)) {
        *out = json_real_value(v);
        return 1;
    }
    return json_is_string(v) && ak_parse_nonfinite(json_string_value(v), out);
}

static ak_status get_number(jr *r, json_t *obj, const char *field, double fallback, const char *where,
                            double *out)
{
    json_t *v = json_object_get(obj, field);
    if (!v) {
        *out = fallback;
        return AK_OK;
    }
    if (!number_of(v, out)) {
        char w[512];
        snprintf(w, sizeof w, "%.300s.%s", where, field);
        return bad(r, w, "must be a number (or \"nan\", \"inf\", \"-inf\")");
    }
    return AK_OK;
}

/* Warns (a few times per document) about fields this reader does not know. */
static void check_fields(jr *r, json_t *obj, const char *const *known, const char *where)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        int found = 0;
        for (const char *const *k = known; *k && !found; k++)
            found = strcmp(*k, key) == 0;
        if (!found && r->unknown < MAX_UNKNOWN_WARNINGS) {
            r->unknown++;
            char path[512];
            snprintf(path, sizeof path, "%.300s.%.64s", where, key);
            ak_warn(r->job, json_locate(r->text, r->size, path), "%s: unknown field \"%.64s\" ignored%s", where, key,
                    r->unknown == MAX_UNKNOWN_WARNINGS ? " (further unknown fields not reported)" : "");
        }
    }
}

static int hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes a hex string into the scratch buffer; *size = its byte count. */
static ak_status hex_bytes(jr *r, json_t *s, const char *where, size_t *size)
{
    const unsigned char *p = (const unsigned char *)json_string_value(s);
    size_t n = json_string_length(s);
    if (n % 2)
        return bad(r, where, "hex string of odd length");
    if (!scratch(r, n / 2 + 1))
        return AK_E_NOMEM;
    for (size_t i = 0; i < n; i += 2) {
        int hi = hex_digit(p[i]), lo = hex_digit(p[i + 1]);
        if (hi < 0 || lo < 0) {
            char w[512];
            snprintf(w, sizeof w, "not a hex digit at character %zu of the string", hi < 0 ? i : i + 1);
            return bad(r, where, w);
        }
        r->buf[i / 2] = (char)(hi << 4 | lo);
    }
    *size = n / 2;
    return AK_OK;
}

/* "props": ints, floats (with a fraction, or {"float":...}), strings and
 * {"hex":"..."} bytes. */
static ak_status read_props(jr *r, json_t *obj, ak_props *props, const char *where)
{
    json_t *po = json_object_get(obj, "props");
    if (!po)
        return AK_OK;
    char w[512];
    snprintf(w, sizeof w, "%.300s.props", where);
    if (!json_is_object(po))
        return bad(r, w, "must be an object");
    const char *key;
    json_t *v;
    json_object_foreach(po, key, v) {
        char pw[512];
        snprintf(pw, sizeof pw, "%.300s.%.64s", w, key);
        /* The key goes through the same Latin-1 mapping as every name. */
        json_t *ks = json_string(key);
        if (!ks)
            return ak_fail(r->job, AK_E_NOMEM, -1, "out of memory");
        const char *k = latin1(r, ks);
        json_decref(ks);
        if (!k)
            return AK_E_NOMEM;
        char *kcopy = copy_string(r, k);
        if (!kcopy)
            return AK_E_NOMEM;
        ak_status st = AK_OK;
        double f;
        size_t n;
        if (!kcopy[0]) {
            st = bad(r, pw, "empty property name");
        } else if (json_is_integer(v)) {
            st = ak_prop_set_int(r->doc, props, kcopy, (int64_t)json_integer_value(v));
        } else if (json_is_real(v)) {
            st = ak_prop_set_float(r->doc, props, kcopy, json_real_value(v));
        } else if (json_is_string(v)) {
            const char *s = latin1(r, v);
            st = s ? ak_prop_set_string(r->doc, props, kcopy, s) : AK_E_NOMEM;
        } else if (json_is_object(v) && json_object_size(v) == 1 && json_is_string(json_object_get(v, "hex"))) {
            st = hex_bytes(r, json_object_get(v, "hex"), pw, &n);
            if (st == AK_OK)
                st = ak_prop_set_bytes(r->doc, props, kcopy, r->buf, n);
        } else if (json_is_object(v) && json_object_size(v) == 1 && json_object_get(v, "float") &&
                   number_of(json_object_get(v, "float"), &f)) {
            st = ak_prop_set_float(r->doc, props, kcopy, f);
        } else {
            st = bad(r, pw, "a property must be an integer, a real, a string, {\"hex\":\"...\"} or {\"float\":...}");
        }
        ak_job_free(r->job, kcopy);
        if (st != AK_OK)
            return ak_job_failed(r->job) ? st : ak_fail(r->job, st, -1, "%s: out of memory", pw);
    }
    return AK_OK;
}

/* An optional parallel array ("rotation_ticks" ...) of exactly `n` entries. */
static ak_status parallel(jr *r, json_t *t, const char *name, const char *suffix, size_t n, const char *where,
                          json_t **out)
{
    char field[32];
    snprintf(field, sizeof field, "%s_%s", name, suffix);
    *out = json_object_get(t, field);
    if (!*out)
        return AK_OK;
    char w[512];
    snprintf(w, sizeof w, "%.300s.%s", where, field);
    if (!json_is_array(*out))
        return bad(r, w, "must be an array");
    if (json_array_size(*out) != n) {
        char msg[160];
        snprintf(msg, sizeof msg, "has %zu entries but \"%s\" has %zu keys", json_array_size(*out), name, n);
        return bad(r, w, msg);
    }
    return AK_OK;
}

static ak_status read_channel(jr *r, json_t *t, ak_track *track, ak_channel_kind kind, const char *where)
{
    const char *name = ak_channel_name(kind);
    json_t *arr = json_object_get(t, name);
    if (!arr)
        return AK_OK;
    char w[512];
    snprintf(w, sizeof w, "%.300s.%s", where, name);
    if (!json_is_array(arr))
        return bad(r, w, "must be an array of keys");
    size_t n = json_array_size(arr);
    json_t *ticks, *raws, *checks;
    ak_status st;
    if ((st = parallel(r, t, name, "ticks", n, where, &ticks)) != AK_OK ||
        (st = parallel(r, t, name, "raw", n, where, &raws)) != AK_OK ||
        (st = parallel(r, t, name, "check", n, where, &checks)) != AK_OK)
        return st;
    if (ak_channel_reserve(track, kind, n) != AK_OK)
        return ak_job_failed(r->job) ? AK_E_NOMEM : ak_fail(r->job, AK_E_NOMEM, -1, "%s: out of memory", w);
    const int width = channel_width[kind];
    const double tick_rate = track->clip->tick_rate;
    for (size_t i = 0; i < n; i++) {
        char kw[512];
        snprintf(kw, sizeof kw, "%.300s[%zu]", w, i);
        json_t *k = json_array_get(arr, i);
        if (!json_is_array(k) || json_array_size(k) != (size_t)(1 + width)) {
            char msg[96];
            snprintf(msg, sizeof msg, "a %s key must be an array of %d numbers (time, then %d value%s)", name,
                     1 + width, width, width > 1 ? "s" : "");
            return bad(r, kw, msg);
        }
        double num[5];
        for (int c = 0; c <= width; c++)
            if (!number_of(json_array_get(k, (size_t)c), &num[c]))
                return bad(r, kw, "key entries must be numbers (or \"nan\", \"inf\", \"-inf\")");
        ak_key *key = ak_key_add(track, kind);
        if (!key)
            return ak_job_failed(r->job) ? AK_E_NOMEM : ak_fail(r->job, AK_E_NOMEM, -1, "%s: out of memory", kw);
        key->time = num[0];
        for (int c = 0; c < width; c++)
            key->v[c] = num[1 + c];
        if (ticks) {
            json_t *tk = json_array_get(ticks, i);
            if (!json_is_integer(tk)) {
                snprintf(kw, sizeof kw, "%.300s_ticks[%zu]", w, i);
                return bad(r, kw, "must be an integer");
            }
            key->tick = (int64_t)json_integer_value(tk);
        } else if (tick_rate > 0) {
            double x = key->time * tick_rate;
            key->tick = isfinite(x) && fabs(x) < 9.0e18 ? (int64_t)llround(x) : 0;
        }
        json_t *cs = checks ? json_array_get(checks, i) : NULL;
        char rw[512];
        if (cs && !json_is_string(cs)) {
            snprintf(rw, sizeof rw, "%.300s_check[%zu]", w, i);
            return bad(r, rw, "must be a string");
        }
        if (!raws)
            continue;
        json_t *rs = json_array_get(raws, i);
        snprintf(rw, sizeof rw, "%.300s_raw[%zu]", w, i);
        if (!json_is_string(rs))
            return bad(r, rw, "must be a hex string");
        size_t size;
        if ((st = hex_bytes(r, rs, rw, &size)) != AK_OK)
            return st;
        int same = 0;
        if (cs && json_string_length(cs)) {
            char want[20];
            snprintf(want, sizeof want, "%016llx", (unsigned long long)ak_key_digest(key, kind));
            same = strcmp(json_string_value(cs), want) == 0;
        }
        if (!size && !same)
            continue; /* no stored bytes: the key stays "changed" */
        /* Edited (or unchecked) keys keep their bytes but count as changed.
         * An unchanged key with "" had zero bytes stored (anm marks derived
         * keys so). */
        st = ak_key_set_raw(track, key, r->buf, size);
        if (st != AK_OK)
            return ak_job_failed(r->job) ? st : ak_fail(r->job, st, -1, "%s: out of memory", rw);
        if (!same)
            ak_key_touch(key);
    }
    return AK_OK;
}

static const char *const track_fields[] = {
    "bone", "id", "hash", "weight", "props",
    "rotation", "rotation_ticks", "rotation_raw", "rotation_check",
    "translation", "translation_ticks", "translation_raw", "translation_check",
    "scale", "scale_ticks", "scale_raw", "scale_check",
    "visibility", "visibility_ticks", "visibility_raw", "visibility_check",
    NULL
};

static ak_status read_track(jr *r, json_t *t, ak_clip *clip, const char *where)
{
    if (!json_is_object(t))
        return bad(r, where, "a track must be an object");
    check_fields(r, t, track_fields, where);
    const char *bone = "";
    ak_status st = get_string(r, t, "bone", "", where, &bone);
    if (st != AK_OK)
        return st;
    ak_track *track = ak_track_add(clip, bone);
    if (!track)
        return ak_job_failed(r->job) ? AK_E_NOMEM : ak_fail(r->job, AK_E_NOMEM, -1, "%s: out of memory", where);
    char w[512];
    json_t *v = json_object_get(t, "id");
    if (v) {
        if (!json_is_integer(v) || json_integer_value(v) < INT32_MIN || json_integer_value(v) > INT32_MAX) {
            snprintf(w, sizeof w, "%.300s.id", where);
            return bad(r, w, "must be an integer from -2147483648 to 2147483647");
        }
        track->bone_id = (int32_t)json_integer_value(v);
        track->has_bone_id = 1;
    }
    v = json_object_get(t, "hash");
    if (v) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > (json_int_t)UINT32_MAX) {
            snprintf(w, sizeof w, "%.300s.hash", where);
            return bad(r, w, "must be an integer from 0 to 4294967295");
        }
        track->bone_hash = (uint32_t)json_integer_value(v);
        track->has_bone_hash = 1;
    }
    if ((st = get_number(r, t, "weight", 1.0, where, &track->weight)) != AK_OK)
        return st;
    if ((st = read_props(r, t, &track->props, where)) != AK_OK)
        return st;
    for (int c = 0; c < AK_CHANNELS; c++)
        if ((st = read_channel(r, t, track, (ak_channel_kind)c, where)) != AK_OK)
            return st;
    return AK_OK;
}

static const char *const event_fields[] = { "time", "type", "info", "props", NULL };

static ak_status read_event(jr *r, json_t *e, ak_clip *clip, const char *where)
{
    if (!json_is_object(e))
        return bad(r, where, "an event must be an object");
    check_fields(r, e, event_fields, where);
    double time;
    const char *s = "";
    ak_status st = get_number(r, e, "time", 0, where, &time);
    if (st != AK_OK || (st = get_string(r, e, "type", "", where, &s)) != AK_OK)
        return st;
    char *type = copy_string(r, s);
    if (!type)
        return AK_E_NOMEM;
    st = get_string(r, e, "info", "", where, &s);
    ak_event *ev = st == AK_OK ? ak_event_add(clip, time, type, s) : NULL;
    ak_job_free(r->job, type);
    if (st != AK_OK)
        return st;
    if (!ev)
        return ak_job_failed(r->job) ? AK_E_NOMEM : ak_fail(r->job, AK_E_NOMEM, -1, "%s: out of memory", where);
    return read_props(r, e, &ev->props, where);
}

static const char *const clip_fields[] = {
    "name", "duration", "frame_rate", "tick_rate", "props", "tracks", "events", NULL
};

static ak_status read_clip(jr *r, json_t *c, const char *where)
{
    if (!json_is_object(c))
        return bad(r, where, "a clip must be an object");
    check_fields(r, c, clip_fields, where);
    const char *name = "";
    ak_status st = get_string(r, c, "name", "", where, &name);
    if (st != AK_OK)
        return st;
    ak_clip *clip = ak_clip_add(r->doc, name);
    if (!clip)
        return ak_job_failed(r->job) ? AK_E_NOMEM : ak_fail(r->job, AK_E_NOMEM, -1, "%s: out of memory", where);
    if ((st = get_number(r, c, "duration", 0, where, &clip->duration)) != AK_OK ||
        (st = get_number(r, c, "frame_rate", 0, where, &clip->frame_rate)) != AK_OK ||
        (st = get_number(r, c, "tick_rate", 0, where, &clip->tick_rate)) != AK_OK ||
        (st = read_props(r, c, &clip->props, where)) != AK_OK)
        return st;
    const char *lists[2] = { "tracks", "events" };
    for (int l = 0; l < 2; l++) {
        json_t *arr = json_object_get(c, lists[l]);
        if (!arr)
            continue;
        char w[512];
        snprintf(w, sizeof w, "%.300s.%s", where, lists[l]);
        if (!json_is_array(arr))
            return bad(r, w, "must be an array");
        for (size_t i = 0; i < json_array_size(arr); i++) {
            char iw[512];
            snprintf(iw, sizeof iw, "%.300s[%zu]", w, i);
            st = l == 0 ? read_track(r, json_array_get(arr, i), clip, iw)
                        : read_event(r, json_array_get(arr, i), clip, iw);
            if (st != AK_OK)
                return st;
        }
    }
    return AK_OK;
}

/* An optional array of exactly `n` numbers (a bone's rest values). */
static ak_status get_vector(jr *r, json_t *obj, const char *field, int n, const char *where, double *out)
{
    json_t *v = json_object_get(obj, field);
    if (!v)
        return AK_OK;
    char w[512];
    snprintf(w, sizeof w, "%.300s.%s", where, field);
    if (!json_is_array(v) || json_array_size(v) != (size_t)n) {
        char msg[96];
        snprintf(msg, sizeof msg, "must be an array of %d numbers", n);
        return bad(r, w, msg);
    }
    for (int i = 0; i < n; i++)
        if (!number_of(json_array_get(v, (size_t)i), &out[i])) {
            snprintf(w, sizeof w, "%.300s.%s[%d]", where, field, i);
            return bad(r, w, "must be a number (or \"nan\", \"inf\", \"-inf\")");
        }
    return AK_OK;
}

static ak_status get_int_range(jr *r, json_t *obj, const char *field, json_int_t lo, json_int_t hi,
                               const char *what, const char *where, json_t **out)
{
    *out = json_object_get(obj, field);
    if (*out && (!json_is_integer(*out) || json_integer_value(*out) < lo || json_integer_value(*out) > hi)) {
        char w[512];
        snprintf(w, sizeof w, "%.300s.%s", where, field);
        return bad(r, w, what);
    }
    return AK_OK;
}

static const char *const bone_fields[] = {
    "name", "id", "hash", "parent", "translation", "rotation", "scale", "props", NULL
};

/* One bone; its parent must already have been read, so that the hierarchy
 * every consumer walks is parent-first and free of cycles. */
static ak_status read_bone(jr *r, json_t *b, size_t index, const char *where)
{
    if (!json_is_object(b))
        return bad(r, where, "a bone must be an object");
    check_fields(r, b, bone_fields, where);
    const char *name = "";
    json_t *id, *hash, *parent;
    ak_status st = get_string(r, b, "name", "", where, &name);
    if (st != AK_OK ||
        (st = get_int_range(r, b, "id", INT32_MIN, INT32_MAX, "must be an integer from -2147483648 to 2147483647",
                            where, &id)) != AK_OK ||
        (st = get_int_range(r, b, "hash", 0, (json_int_t)UINT32_MAX, "must be an integer from 0 to 4294967295",
                            where, &hash)) != AK_OK ||
        (st = get_int_range(r, b, "parent", -1, (json_int_t)index - 1,
                            "must be -1 (a root) or the index of an earlier bone", where, &parent)) != AK_OK)
        return st;
    ak_bone *bone = ak_bone_add(r->doc, name);
    if (!bone)
        return ak_job_failed(r->job) ? AK_E_NOMEM : ak_fail(r->job, AK_E_NOMEM, -1, "%s: out of memory", where);
    bone->parent = parent ? (int32_t)json_integer_value(parent) : -1;
    if (id) {
        bone->id = (int32_t)json_integer_value(id);
        bone->has_id = 1;
    }
    if (hash) {
        bone->hash = (uint32_t)json_integer_value(hash);
        bone->has_hash = 1;
    }
    if ((st = get_vector(r, b, "translation", 3, where, bone->translation)) != AK_OK ||
        (st = get_vector(r, b, "rotation", 4, where, bone->rotation)) != AK_OK ||
        (st = get_vector(r, b, "scale", 3, where, bone->scale)) != AK_OK)
        return st;
    return read_props(r, b, &bone->props, where);
}

static ak_status read_skeleton(jr *r, json_t *root)
{
    json_t *arr = json_object_get(root, "skeleton");
    if (!arr)
        return AK_OK;
    if (!json_is_array(arr))
        return bad(r, "skeleton", "must be an array of bones");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        char w[64];
        snprintf(w, sizeof w, "skeleton[%zu]", i);
        ak_status st = read_bone(r, json_array_get(arr, i), i, w);
        if (st != AK_OK)
            return st;
    }
    return AK_OK;
}

static const char *const doc_fields[] = { "animkit", "format", "variant", "props", "skeleton", "clips", NULL };

static ak_status read_root(jr *r, json_t *root)
{
    if (!json_is_object(root))
        return bad(r, "document", "the top level must be an object");
    json_t *ver = json_object_get(root, "animkit");
    if (!ver || !json_is_integer(ver))
        return bad(r, "animkit", "missing or not an integer: this is not an animkit JSON document");
    if (json_integer_value(ver) != 1)
        return ak_fail(r->job, AK_E_UNSUPPORTED, json_locate(r->text, r->size, "animkit"), "schema version %lld is not supported (only 1)",
                       (long long)json_integer_value(ver));
    check_fields(r, root, doc_fields, "document");
    const char *s = "";
    ak_status st = get_string(r, root, "format", "", "document", &s);
    if (st != AK_OK)
        return st;
    char *format = copy_string(r, s);
    if (!format)
        return AK_E_NOMEM;
    st = get_string(r, root, "variant", "", "document", &s);
    if (st == AK_OK && ak_doc_set_format(r->doc, format, s) != AK_OK)
        st = ak_job_failed(r->job) ? AK_E_NOMEM : ak_fail(r->job, AK_E_NOMEM, -1, "out of memory");
    ak_job_free(r->job, format);
    if (st != AK_OK || (st = read_props(r, root, &r->doc->props, "document")) != AK_OK ||
        (st = read_skeleton(r, root)) != AK_OK)
        return st;
    json_t *clips = json_object_get(root, "clips");
    if (!clips && r->doc->skeleton.bone_count)
        return AK_OK; /* a model's skeleton on its own */
    if (!clips || !json_is_array(clips))
        return bad(r, "clips", "missing or not an array");
    for (size_t i = 0; i < json_array_size(clips); i++) {
        char w[512];
        snprintf(w, sizeof w, "clips[%zu]", i);
        if ((st = read_clip(r, json_array_get(clips, i), w)) != AK_OK)
            return st;
    }
    return AK_OK;
}

ak_status json_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    if (size > JSON_MAX_INPUT)
        return ak_fail(job, AK_E_LIMIT, -1, "a JSON document of %zu bytes is larger than the %zu bytes allowed",
                       size, JSON_MAX_INPUT);
    /* The tree is jansson's memory, outside the job: its bound is counted. */
    void *tree = ak_job_reserve(job, json_tree_bound(bytes, size), "the JSON parse tree");
    if (!tree)
        return AK_E_LIMIT;
    json_error_t err;
    json_t *root = json_loadb((const char *)bytes, size, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return ak_fail(job, AK_E_DATA, err.position >= 0 ? (int64_t)err.position : -1,
                       "JSON syntax: %s (line %d, column %d)", err.text, err.line, err.column);
    jr r = { job, bytes, size, doc, NULL, 0, 0 };
    ak_status st = read_root(&r, root);
    ak_job_free(job, r.buf);
    json_decref(root);
    ak_job_free(job, tree);
    if (st == AK_OK && ak_job_failed(job))
        st = AK_E_DATA; /* the core keeps the first error's status */
    return st;
}
