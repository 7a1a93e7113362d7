/* diff.c - what differs between two documents, within a tolerance. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct differ {
    ak_diff *diff;
    size_t capacity;
    double tol;
    int failed;
} differ;

static ak_diff_entry *add_entry(differ *d, ak_diff_kind kind, const char *clip, const char *bone)
{
    ak_diff *df = d->diff;
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

static void diff_channel(differ *d, const char *clip, const char *bone, ak_channel_kind kind,
                         const ak_channel *a, const ak_channel *b)
{
    if (a->count != b->count) {
        ak_diff_entry *e = add_entry(d, AK_DIFF_KEY_COUNT, clip, bone);
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
        ak_diff_entry *e = add_entry(d, AK_DIFF_KEYS, clip, bone);
        if (e) {
            e->channel = kind;
            e->count_a = e->count_b = a->count;
            e->key = worst_key;
            e->component = worst_component;
            e->max_diff = worst;
        }
    }
}

static int same_bone(const ak_track *a, const ak_track *b)
{
    if (a->bone[0] && b->bone[0])
        return strcmp(a->bone, b->bone) == 0;
    if (a->has_bone_hash && b->has_bone_hash)
        return a->bone_hash == b->bone_hash;
    return a->has_bone_id && b->has_bone_id && a->bone_id == b->bone_id && !a->bone[0] && !b->bone[0];
}

static const char *bone_label(const ak_track *t) { return t->bone[0] ? t->bone : "(unnamed)"; }

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
    unsigned char *used = calloc(b->track_count + 1, 1);
    if (!used) {
        d->failed = 1;
        return;
    }
    for (size_t i = 0; i < a->track_count; i++) {
        const ak_track *ta = a->tracks[i];
        size_t j = 0;
        while (j < b->track_count && (used[j] || !same_bone(ta, b->tracks[j])))
            j++;
        if (j == b->track_count) {
            add_entry(d, AK_DIFF_TRACK_REMOVED, a->name, bone_label(ta));
            continue;
        }
        used[j] = 1;
        for (int c = 0; c < AK_CHANNELS; c++)
            diff_channel(d, a->name, bone_label(ta), (ak_channel_kind)c, &ta->channel[c], &b->tracks[j]->channel[c]);
    }
    for (size_t j = 0; j < b->track_count; j++)
        if (!used[j])
            add_entry(d, AK_DIFF_TRACK_ADDED, a->name, bone_label(b->tracks[j]));
    free(used);
    if (!events_equal(a, b, d->tol)) {
        ak_diff_entry *e = add_entry(d, AK_DIFF_EVENTS, a->name, NULL);
        if (e) {
            e->count_a = a->event_count;
            e->count_b = b->event_count;
        }
    }
}

/* The n-th clip named like doc->clips[index] in `doc`'s order. */
static size_t occurrence(const ak_doc *doc, size_t index)
{
    size_t n = 0;
    for (size_t i = 0; i < index; i++)
        n += strcmp(doc->clips[i]->name, doc->clips[index]->name) == 0;
    return n;
}

static long find_occurrence(const ak_doc *doc, const char *name, size_t n)
{
    for (size_t i = 0; i < doc->clip_count; i++)
        if (strcmp(doc->clips[i]->name, name) == 0 && n-- == 0)
            return (long)i;
    return -1;
}

ak_status ak_doc_diff(const ak_doc *a, const ak_doc *b, double tol, ak_diff **out)
{
    if (!a || !b || !out || !(tol >= 0))
        return AK_E_USAGE;
    *out = NULL;
    differ d = { calloc(1, sizeof(ak_diff)), 0, tol, 0 };
    if (!d.diff)
        return AK_E_NOMEM;
    for (size_t i = 0; i < a->clip_count && !d.failed; i++) {
        long j = find_occurrence(b, a->clips[i]->name, occurrence(a, i));
        if (j < 0)
            add_entry(&d, AK_DIFF_CLIP_REMOVED, a->clips[i]->name, NULL);
        else
            diff_clip(&d, a->clips[i], b->clips[j]);
    }
    for (size_t j = 0; j < b->clip_count && !d.failed; j++)
        if (find_occurrence(a, b->clips[j]->name, occurrence(b, j)) < 0)
            add_entry(&d, AK_DIFF_CLIP_ADDED, b->clips[j]->name, NULL);
    if (d.failed) {
        ak_diff_free(d.diff);
        return AK_E_NOMEM;
    }
    *out = d.diff;
    return AK_OK;
}

void ak_diff_free(ak_diff *diff)
{
    if (!diff)
        return;
    free(diff->entries);
    free(diff);
}
