/* retime.c - trimming, reversing, speeding up and resampling a clip.
 * Keys whose time and values stay as they were keep their stored bytes;
 * every other key is new or edited, so writers encode it. */
#include "internal.h"

#include <math.h>
#include <string.h>

/* Keys closer than this to a wanted time are taken as lying on it. */
#define SAME_TIME 1e-6
/* A resample may create at most this many keys per channel, and this
 * many in all (2.4 GB of keys): what a request can make is bounded, and a
 * larger one is refused before anything is changed. */
#define MAX_STEPS 10000000.0
#define MAX_RESAMPLED_KEYS 33554432.0

static ak_heap *clip_heap(ak_clip *clip) { return &clip->doc->private_->heap; }

static void set_time(const ak_clip *clip, ak_key *k, double time)
{
    if (k->time == time)
        return;
    k->time = time;
    if (clip->tick_rate > 0)
        k->tick = llround(time * clip->tick_rate);
}

/* A new key at `time` with the channel's value there. */
static ak_key sampled_key(const ak_clip *clip, const ak_channel *ch, ak_channel_kind kind, double time)
{
    ak_key k;
    memset(&k, 0, sizeof k);
    ak_channel_sample(ch, kind, time, k.v);
    k.time = time;
    if (clip->tick_rate > 0)
        k.tick = llround(time * clip->tick_rate);
    return k;
}

/* Makes `keys[0..n)` the channel's keys. */
static ak_status set_keys(ak_track *tr, ak_channel_kind kind, const ak_key *keys, size_t n)
{
    ak_channel *ch = &tr->channel[kind];
    if (n > ch->capacity_) {
        size_t more = n - ch->count;
        ak_status st = ak_channel_reserve(tr, kind, more);
        if (st != AK_OK)
            return st;
    }
    if (n)
        memmove(ch->keys, keys, n * sizeof *keys);
    ch->count = n;
    return AK_OK;
}

typedef ak_status (*channel_fn)(ak_clip *clip, ak_track *tr, ak_channel_kind kind, const ak_retime *how,
                                ak_key *scratch);

/* Runs `fn` on every non-empty channel with scratch room for `extra`
 * keys beyond the channel's own count (or exactly `fixed` keys). */
static ak_status each_channel(ak_clip *clip, const ak_retime *how, channel_fn fn, size_t extra, size_t fixed)
{
    ak_heap *heap = clip_heap(clip);
    for (size_t t = 0; t < clip->track_count; t++) {
        ak_track *tr = clip->tracks[t];
        for (int c = 0; c < AK_CHANNELS; c++) {
            size_t n = tr->channel[c].count;
            if (!n)
                continue;
            size_t room = fixed ? fixed : n + extra;
            if (room > SIZE_MAX / sizeof(ak_key))
                return AK_E_LIMIT;
            ak_key *scratch = ak_heap_alloc(heap, room * sizeof(ak_key));
            if (!scratch)
                return AK_E_NOMEM;
            ak_status st = fn(clip, tr, (ak_channel_kind)c, how, scratch);
            ak_heap_free(heap, scratch, room * sizeof(ak_key));
            if (st != AK_OK)
                return st;
        }
    }
    return AK_OK;
}

static ak_status trim_channel(ak_clip *clip, ak_track *tr, ak_channel_kind kind, const ak_retime *how,
                              ak_key *out)
{
    const ak_channel *ch = &tr->channel[kind];
    size_t n = 0;
    int have_start = 0;
    for (size_t k = 0; k < ch->count && !have_start; k++)
        have_start = fabs(ch->keys[k].time - how->t0) <= SAME_TIME;
    if (!have_start)
        out[n++] = sampled_key(clip, ch, kind, how->t0);
    int have_end = 0;
    for (size_t k = 0; k < ch->count; k++) {
        double t = ch->keys[k].time;
        if (t < how->t0 - SAME_TIME || t > how->t1 + SAME_TIME)
            continue;
        out[n++] = ch->keys[k];
        have_end = fabs(t - how->t1) <= SAME_TIME;
    }
    if (!have_end)
        out[n++] = sampled_key(clip, ch, kind, how->t1);
    for (size_t k = 0; k < n; k++)
        set_time(clip, &out[k], out[k].time - how->t0 > 0 ? out[k].time - how->t0 : 0);
    return set_keys(tr, kind, out, n);
}

static ak_status reverse_channel(ak_clip *clip, ak_track *tr, ak_channel_kind kind, const ak_retime *how,
                                 ak_key *out)
{
    (void)how;
    ak_channel *ch = &tr->channel[kind];
    size_t n = ch->count;
    if (kind == AK_VISIBILITY) {
        /* A step holds from its key to the next: played backwards, each
         * value starts where the next key was. */
        for (size_t k = 0; k < n; k++) {
            out[k] = ch->keys[n - 1 - k];
            double end = n - 1 - k + 1 < n ? ch->keys[n - k].time : clip->duration;
            set_time(clip, &out[k], clip->duration - end);
        }
    } else {
        for (size_t k = 0; k < n; k++) {
            out[k] = ch->keys[n - 1 - k];
            set_time(clip, &out[k], clip->duration - out[k].time);
        }
    }
    return set_keys(tr, kind, out, n);
}

static ak_status speed_channel(ak_clip *clip, ak_track *tr, ak_channel_kind kind, const ak_retime *how,
                               ak_key *out)
{
    (void)out;
    ak_channel *ch = &tr->channel[kind];
    for (size_t k = 0; k < ch->count; k++)
        set_time(clip, &ch->keys[k], ch->keys[k].time / how->speed);
    return AK_OK;
}

static size_t resample_steps(const ak_clip *clip, double fps)
{
    double last = ceil(clip->duration * fps - SAME_TIME * fps);
    return (size_t)(last > 0 ? last : 0) + 1;
}

static ak_status resample_channel(ak_clip *clip, ak_track *tr, ak_channel_kind kind, const ak_retime *how,
                                  ak_key *out)
{
    const ak_channel *ch = &tr->channel[kind];
    size_t steps = resample_steps(clip, how->fps), next = 0;
    for (size_t s = 0; s < steps; s++) {
        double t = (double)s / how->fps;
        if (t > clip->duration)
            t = clip->duration;
        while (next < ch->count && ch->keys[next].time < t - SAME_TIME)
            next++;
        if (next < ch->count && fabs(ch->keys[next].time - t) <= SAME_TIME)
            out[s] = ch->keys[next];
        else
            out[s] = sampled_key(clip, ch, kind, t);
    }
    return set_keys(tr, kind, out, steps);
}

static void retime_events(ak_clip *clip, const ak_retime *how)
{
    if (how->trim) {
        size_t kept = 0;
        for (size_t e = 0; e < clip->event_count; e++) {
            ak_event ev = clip->events[e];
            if (ev.time < how->t0 - SAME_TIME || ev.time > how->t1 + SAME_TIME)
                continue;
            ev.time = ev.time - how->t0 > 0 ? ev.time - how->t0 : 0;
            clip->events[kept++] = ev;
        }
        clip->event_count = kept;
    }
    double duration = how->trim ? how->t1 - how->t0 : clip->duration;
    if (how->reverse) {
        for (size_t e = 0, n = clip->event_count; e < n / 2; e++) {
            ak_event a = clip->events[e];
            clip->events[e] = clip->events[n - 1 - e];
            clip->events[n - 1 - e] = a;
        }
        for (size_t e = 0; e < clip->event_count; e++)
            clip->events[e].time = duration - clip->events[e].time;
    }
    if (how->speed > 0 && how->speed != 1)
        for (size_t e = 0; e < clip->event_count; e++)
            clip->events[e].time /= how->speed;
}

static ak_status check_retime(const ak_clip *clip, const ak_retime *how)
{
    if (!how || how->struct_size < sizeof *how)
        return AK_E_USAGE;
    if (how->trim && !(how->t0 >= 0 && how->t1 > how->t0 && how->t0 < clip->duration && isfinite(how->t1)))
        return AK_E_USAGE;
    if (!(how->speed >= 0 && isfinite(how->speed)) || !(how->fps >= 0 && isfinite(how->fps)))
        return AK_E_USAGE;
    /* The duration once trimmed and slowed down or sped up: what every time
     * must fit in, and what a resample covers. */
    double duration = how->trim ? fmin(how->t1, clip->duration) - how->t0 : clip->duration;
    if (how->speed > 0 && how->speed != 1)
        duration /= how->speed;
    if (!isfinite(duration))
        return AK_E_USAGE;
    if (how->fps > 0) {
        size_t channels = 0;
        for (size_t t = 0; t < clip->track_count; t++)
            for (int c = 0; c < AK_CHANNELS; c++)
                channels += clip->tracks[t]->channel[c].count > 0;
        double steps = duration * how->fps;
        if (steps > MAX_STEPS || steps * (double)channels > MAX_RESAMPLED_KEYS)
            return AK_E_LIMIT;
    }
    return AK_OK;
}

ak_status ak_clip_retime(ak_clip *clip, const ak_retime *how)
{
    ak_status st = check_retime(clip, how);
    if (st != AK_OK)
        return st;
    ak_retime h = *how;
    if (h.trim && h.t1 > clip->duration)
        h.t1 = clip->duration;
    if (h.trim && (st = each_channel(clip, &h, trim_channel, 2, 0)) != AK_OK)
        return st;
    retime_events(clip, &h);
    if (h.trim)
        clip->duration = h.t1 - h.t0;
    if (h.reverse && (st = each_channel(clip, &h, reverse_channel, 0, 0)) != AK_OK)
        return st;
    if (h.speed > 0 && h.speed != 1) {
        if ((st = each_channel(clip, &h, speed_channel, 0, 0)) != AK_OK)
            return st;
        clip->duration /= h.speed;
    }
    if (h.fps > 0) {
        if ((st = each_channel(clip, &h, resample_channel, 0, resample_steps(clip, h.fps))) != AK_OK)
            return st;
        if (clip->frame_rate > 0)
            clip->frame_rate = h.fps;
    }
    return AK_OK;
}
