/* diff.c - what differs between two documents, within a tolerance. */
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The result and the labels it owns: a track without a bone name is named
 * by its hash, else its id, else its place ("#0x1a2b3c4d", "#12",
 * "(track 3)"), so that entries about such tracks can be told apart. */
typedef struct diff_result {
    ak_diff pub; /* first: ak_diff_free() is given &pub */
    char **labels;
    size_t label_count, label_capacity;
} diff_result;

typedef struct differ {
    diff_result *result;
    size_t capacity;
    double tol;
    int failed;
    const ak_track *labeled; /* the track `label` was made for */
    const char *label;
} differ;

static const char *track_label(differ *d, const ak_track *t, size_t index)
{
    if (t->bone[0])
        return t->bone;
    if (t == d->labeled)
        return d->label;
    char text[48];
    if (t->has_bone_hash)
        snprintf(text, sizeof text, "#0x%08" PRIx32, t->bone_hash);
    else if (t->has_bone_id)
        snprintf(text, sizeof text, "#%" PRId32, t->bone_id);
    else
        snprintf(text, sizeof text, "(track %zu)", index);
    diff_result *r = d->result;
    if (r->label_count == r->label_capacity) {
        size_t cap = r->label_capacity ? r->label_capacity * 2 : 8;
        char **grown = cap < SIZE_MAX / sizeof *grown ? realloc(r->labels, cap * sizeof *grown) : NULL;
        if (!grown) {
            d->failed = 1;
            return NULL;
        }
        r->labels = grown;
        r->label_capacity = cap;
    }
    char *copy = strdup(text);
    if (!copy) {
        d->failed = 1;
        return NULL;
    }
    r->labels[r->label_count++] = copy;
    d->labeled = t;
    d->label = copy;
    return copy;
}

static ak_diff_entry *add_entry(differ *d, ak_diff_kind kind, const char *clip, const char *bone)
{
    ak_diff *df = &d->result->pub;
    if (df->count == d->capacity) {
        size_t cap = d->capacity ? d->capacity * 2 : 16;
        ak_diff_entry *p = cap < SIZE_MAX / sizeof *p ? realloc(df->entries, cap * sizeof *p) : NULL;
        if (!p) {
            d->failed = 1;
            return NULL;
        }
        df->entries = p;
        d->capacity = cap;
    }
    ak_diff_entry *e = &df->entries[df->count++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->clip = clip;
    e->bone = bone;
    e->component = -1;
    return e;
}

/* |a - b|, with two NaNs equal and one NaN infinitely far. */
static double distance(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b) ? 0 : INFINITY;
    return fabs(a - b);
}

/* The largest component difference of two keys' values; a quaternion
 * and its negation are the same rotation. */
static double value_distance(const ak_key *a, const ak_key *b, ak_channel_kind kind, int *component)
{
    static const int width[AK_CHANNELS] = { 4, 3, 3, 1 };
    double best = -1;
    for (int sign = 1; sign >= (kind == AK_ROTATION ? -1 : 1); sign -= 2) {
        double worst = 0;
        int at = 0;
        for (int c = 0; c < width[kind]; c++) {
            double dd = kind == AK_VISIBILITY ? ((a->v[0] != 0) != (b->v[0] != 0))
                                              : distance(a->v[c], sign * b->v[c]);
            if (dd > worst) {
                worst = dd;
                at = c;
            }
        }
        if (best < 0 || worst < best) {
            best = worst;
            *component = at;
        }
    }
    return best;
}

static void diff_channel(differ *d, const char *clip, const ak_track *track, size_t index, ak_channel_kind kind,
                         const ak_channel *a, const ak_channel *b)
{
    if (a->count != b->count) {
        ak_diff_entry *e = add_entry(d, AK_DIFF_KEY_COUNT, clip, track_label(d, track, index));
        if (e) {
            e->channel = kind;
            e->count_a = a->count;
            e->count_b = b->count;
        }
        return;
    }
    double worst = 0;
    size_t worst_key = 0;
    int worst_component = -1;
    for (size_t k = 0; k < a->count; k++) {
        int component = -1;
        double dv = value_distance(&a->keys[k], &b->keys[k], kind, &component);
        double dt = distance(a->keys[k].time, b->keys[k].time);
        if (dt > dv) {
            dv = dt;
            component = -1;
        }
        if (dv > worst) {
            worst = dv;
            worst_key = k;
            worst_component = component;
        }
    }
    if (worst > d->tol) {
        ak_diff_entry *e = add_entry(d, AK_DIFF_KEYS, clip, track_label(d, track, index));
        if (e) {
            e->channel = kind;
            e->count_a = e->count_b = a->count;
            e->key = worst_key;
            e->component = worst_component;
            e->max_diff = worst;
        }
    }
}

/* What pairs clips and tracks: a kind, then a name or a number. */
typedef struct match_key {
    int kind;         /* 0 name, 1 hash, 2 id, 3 nothing (paired in order) */
    const char *name; /* kind 0 */
    int64_t num;      /* kinds 1 and 2 */
    size_t index;     /* position in its list: the n-th of a key pairs with the n-th */
} match_key;

static int key_cmp(const match_key *a, const match_key *b)
{
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->kind == 0)
        return strcmp(a->name, b->name);
    return a->num < b->num ? -1 : a->num > b->num;
}

static int key_order(const void *x, const void *y)
{
    const match_key *a = x, *b = y;
    int c = key_cmp(a, b);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* pair[i] = the index in b of a's item i, or -1; paired[j] = 1 when b's
 * item j has a partner. O(n log n) whatever the names. */
static void pair_keys(match_key *a, size_t na, match_key *b, size_t nb, long *pair, unsigned char *paired)
{
    qsort(a, na, sizeof *a, key_order);
    qsort(b, nb, sizeof *b, key_order);
    for (size_t i = 0; i < na; i++)
        pair[i] = -1;
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        int c = key_cmp(&a[i], &b[j]);
        if (c == 0) {
            pair[a[i].index] = (long)b[j].index;
            paired[b[j].index] = 1;
            i++;
            j++;
        } else if (c < 0)
            i++;
        else
            j++;
    }
}

static match_key track_key(const ak_track *t, size_t index)
{
    match_key k = { 3, NULL, 0, index };
    if (t->bone[0]) {
        k.kind = 0;
        k.name = t->bone;
    } else if (t->has_bone_hash) {
        k.kind = 1;
        k.num = t->bone_hash;
    } else if (t->has_bone_id) {
        k.kind = 2;
        k.num = t->bone_id;
    }
    return k;
}

/* Scratch for one pairing: keys of both sides, the pairs, the marks. */
typedef struct pairing {
    match_key *ka, *kb;
    long *pair;
    unsigned char *paired;
} pairing;

static int pairing_alloc(pairing *p, size_t na, size_t nb)
{
    p->ka = calloc(na + 1, sizeof *p->ka);
    p->kb = calloc(nb + 1, sizeof *p->kb);
    p->pair = calloc(na + 1, sizeof *p->pair);
    p->paired = calloc(nb + 1, 1);
    return p->ka && p->kb && p->pair && p->paired;
}

static void pairing_free(pairing *p)
{
    free(p->ka);
    free(p->kb);
    free(p->pair);
    free(p->paired);
}

static int events_equal(const ak_clip *a, const ak_clip *b, double tol)
{
    if (a->event_count != b->event_count)
        return 0;
    for (size_t i = 0; i < a->event_count; i++) {
        const ak_event *x = &a->events[i], *y = &b->events[i];
        if (distance(x->time, y->time) > tol || strcmp(x->type, y->type) || strcmp(x->info, y->info))
            return 0;
    }
    return 1;
}

static void diff_clip(differ *d, const ak_clip *a, const ak_clip *b)
{
    if (distance(a->duration, b->duration) > d->tol) {
        ak_diff_entry *e = add_entry(d, AK_DIFF_DURATION, a->name, NULL);
        if (e)
            e->max_diff = distance(a->duration, b->duration);
    }
    pairing p = { NULL, NULL, NULL, NULL };
    if (!pairing_alloc(&p, a->track_count, b->track_count)) {
        pairing_free(&p);
        d->failed = 1;
        return;
    }
    for (size_t i = 0; i < a->track_count; i++)
        p.ka[i] = track_key(a->tracks[i], i);
    for (size_t j = 0; j < b->track_count; j++)
        p.kb[j] = track_key(b->tracks[j], j);
    pair_keys(p.ka, a->track_count, p.kb, b->track_count, p.pair, p.paired);
    for (size_t i = 0; i < a->track_count; i++) {
        const ak_track *ta = a->tracks[i];
        if (p.pair[i] < 0) {
            add_entry(d, AK_DIFF_TRACK_REMOVED, a->name, track_label(d, ta, i));
            continue;
        }
        for (int c = 0; c < AK_CHANNELS; c++)
            diff_channel(d, a->name, ta, i, (ak_channel_kind)c, &ta->channel[c], &b->tracks[p.pair[i]]->channel[c]);
    }
    for (size_t j = 0; j < b->track_count; j++)
        if (!p.paired[j])
            add_entry(d, AK_DIFF_TRACK_ADDED, a->name, track_label(d, b->tracks[j], j));
    pairing_free(&p);
    if (!events_equal(a, b, d->tol)) {
        ak_diff_entry *e = add_entry(d, AK_DIFF_EVENTS, a->name, NULL);
        if (e) {
            e->count_a = a->event_count;
            e->count_b = b->event_count;
        }
    }
}

ak_status ak_doc_diff(const ak_doc *a, const ak_doc *b, double tol, ak_diff **out)
{
    if (!a || !b || !out || !(tol >= 0) || ak_doc_outline(a) || ak_doc_outline(b))
        return AK_E_USAGE;
    *out = NULL;
    differ d = { calloc(1, sizeof(diff_result)), 0, tol, 0, NULL, NULL };
    pairing p = { NULL, NULL, NULL, NULL };
    if (!d.result || !pairing_alloc(&p, a->clip_count, b->clip_count)) {
        pairing_free(&p);
        free(d.result);
        return AK_E_NOMEM;
    }
    for (size_t i = 0; i < a->clip_count; i++)
        p.ka[i] = (match_key){ 0, a->clips[i]->name, 0, i };
    for (size_t j = 0; j < b->clip_count; j++)
        p.kb[j] = (match_key){ 0, b->clips[j]->name, 0, j };
    pair_keys(p.ka, a->clip_count, p.kb, b->clip_count, p.pair, p.paired);
    for (size_t i = 0; i < a->clip_count && !d.failed; i++) {
        if (p.pair[i] < 0)
            add_entry(&d, AK_DIFF_CLIP_REMOVED, a->clips[i]->name, NULL);
        else
            diff_clip(&d, a->clips[i], b->clips[p.pair[i]]);
    }
    for (size_t j = 0; j < b->clip_count && !d.failed; j++)
        if (!p.paired[j])
            add_entry(&d, AK_DIFF_CLIP_ADDED, b->clips[j]->name, NULL);
    pairing_free(&p);
    if (d.failed) {
        ak_diff_free(&d.result->pub);
        return AK_E_NOMEM;
    }
    *out = &d.result->pub;
    return AK_OK;
}

void ak_diff_free(ak_diff *diff)
{
    if (!diff)
        return;
    diff_result *r = (diff_result *)diff;
    for (size_t i = 0; i < r->label_count; i++)
        free(r->labels[i]);
    free(r->labels);
    free(diff->entries);
    free(r);
}
