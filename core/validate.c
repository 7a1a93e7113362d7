/* validate.c - format-independent checks of a document's content. */
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

typedef struct checker {
    const char *file;
    ak_report *report;
    unsigned errors;
} checker;

static void finding(checker *ck, ak_severity sev, const ak_clip *clip, const ak_track *t, const char *fmt, ...)
    AK_PRINTF(5, 6);

static void finding(checker *ck, ak_severity sev, const ak_clip *clip, const ak_track *t, const char *fmt, ...)
{
    char text[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    ak_report_emit(ck->report, sev, sev == AK_ERROR ? AK_E_DATA : AK_OK, ck->file, NULL, -1,
                   "clip '%s'%s%s%s: %s", clip->name, t ? ", bone '" : "", t ? t->bone : "", t ? "'" : "", text);
    if (sev == AK_ERROR)
        ck->errors++;
}

static int finite_key(const ak_key *k, int width)
{
    for (int i = 0; i < width; i++)
        if (!isfinite(k->v[i]))
            return 0;
    return isfinite(k->time);
}

static void check_channel(checker *ck, const ak_clip *clip, const ak_track *t, ak_channel_kind kind)
{
    static const int width[AK_CHANNELS] = { 4, 3, 3, 1 };
    const ak_channel *ch = &t->channel[kind];
    const char *name = ak_channel_name(kind);
    size_t nonfinite = 0, off_unit = 0, equal = 0, late = 0, negative = 0;
    double worst = 1; /* the norm furthest from 1 so far */
    for (size_t i = 0; i < ch->count; i++) {
        const ak_key *k = &ch->keys[i];
        if (!finite_key(k, width[kind])) {
            nonfinite++;
            continue;
        }
        if (i > 0 && k->time < ch->keys[i - 1].time) {
            finding(ck, AK_ERROR, clip, t, "%s key %zu has time %g s, before the key ahead of it", name, i, k->time);
        } else if (i > 0 && k->time == ch->keys[i - 1].time) {
            equal++;
        }
        if (k->time < 0)
            negative++;
        if (clip->duration > 0 && k->time > clip->duration + 1e-6)
            late++;
        if (kind == AK_ROTATION) {
            double n = sqrt(k->v[0] * k->v[0] + k->v[1] * k->v[1] + k->v[2] * k->v[2] + k->v[3] * k->v[3]);
            if (fabs(n - 1) > 0.01) {
                off_unit++;
                if (fabs(n - 1) > fabs(worst - 1))
                    worst = n;
            }
        }
        if (kind == AK_VISIBILITY && k->v[0] != 0 && k->v[0] != 1)
            finding(ck, AK_ERROR, clip, t, "%s key %zu is %g, not 0 or 1", name, i, k->v[0]);
    }
    if (nonfinite)
        finding(ck, AK_ERROR, clip, t, "%s: %zu keys hold NaN or infinite values", name, nonfinite);
    if (off_unit)
        finding(ck, AK_WARNING, clip, t, "%s: %zu quaternions are not unit length (worst norm %g)", name, off_unit, worst);
    if (equal)
        finding(ck, AK_WARNING, clip, t, "%s: %zu keys share their time with the key before", name, equal);
    if (negative)
        finding(ck, AK_WARNING, clip, t, "%s: %zu keys have negative times", name, negative);
    if (late)
        finding(ck, AK_WARNING, clip, t, "%s: %zu keys lie after the clip's duration (%g s)", name, late, clip->duration);
}

unsigned ak_doc_validate(const ak_doc *doc, const char *file, ak_report *report)
{
    checker ck = { file, report, 0 };
    for (size_t c = 0; c < doc->clip_count; c++) {
        const ak_clip *clip = doc->clips[c];
        if (!isfinite(clip->duration) || clip->duration < 0)
            finding(&ck, AK_ERROR, clip, NULL, "duration %g s is not a finite, non-negative number", clip->duration);
        for (size_t i = 0; i < clip->track_count; i++)
            for (int k = 0; k < AK_CHANNELS; k++)
                check_channel(&ck, clip, clip->tracks[i], (ak_channel_kind)k);
        for (size_t i = 0; i < clip->event_count; i++) {
            double t = clip->events[i].time;
            if (!isfinite(t))
                finding(&ck, AK_ERROR, clip, NULL, "event %zu has a non-finite time", i);
            else if (t < 0 || (clip->duration > 0 && t > clip->duration + 1e-6))
                finding(&ck, AK_WARNING, clip, NULL, "event '%s' at %g s lies outside the clip (0..%g s)",
                        clip->events[i].type, t, clip->duration);
        }
    }
    return ck.errors + ak_validate_skeleton(doc, file, report);
}
