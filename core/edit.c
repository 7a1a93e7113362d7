/* edit.c - moving clips between documents (replace, merge, split) and
 * renaming bones, keeping the stored bytes of what is not edited. */
#include "internal.h"

#include <string.h>

long ak_doc_clip_index(const ak_doc *doc, const char *name)
{
    for (size_t i = 0; i < doc->clip_count; i++)
        if (ak_str_ieq(doc->clips[i]->name, name))
            return (long)i;
    return -1;
}

/* Stored bytes and format props are only meaningful to a writer of the
 * format and variant they were read from. */
static int same_layout(const ak_doc *to, const ak_doc *from)
{
    return !to->format[0] || (!strcmp(to->format, from->format) && !strcmp(to->variant, from->variant));
}

static void drop_props_with_prefix(ak_props *props, const char *format)
{
    size_t n = strlen(format), kept = 0;
    for (size_t i = 0; i < props->count; i++) {
        const char *key = props->items[i].key;
        if (n && !strncmp(key, format, n) && key[n] == '.')
            continue;
        props->items[kept++] = props->items[i];
    }
    props->count = kept;
}

/* The copy will be written in another layout: its keys must be encoded. */
static void forget_layout(ak_clip *clip, const char *format)
{
    drop_props_with_prefix(&clip->props, format);
    for (size_t t = 0; t < clip->track_count; t++) {
        ak_track *tr = clip->tracks[t];
        drop_props_with_prefix(&tr->props, format);
        for (int c = 0; c < AK_CHANNELS; c++)
            for (size_t k = 0; k < tr->channel[c].count; k++) {
                ak_key *key = &tr->channel[c].keys[k];
                key->raw = NULL;
                key->raw_size = 0;
                ak_key_touch(key);
            }
    }
    for (size_t e = 0; e < clip->event_count; e++)
        drop_props_with_prefix(&clip->events[e].props, format);
}

/* Appends a copy of `src`; on failure the document is as it was. */
static ak_status append_copy(ak_doc *doc, const ak_clip *src, const char *name)
{
    size_t before = doc->clip_count;
    ak_status st = ak_copy_clip(doc, src);
    if (st == AK_OK && name)
        st = ak_clip_set_name(doc->clips[doc->clip_count - 1], name);
    if (st != AK_OK) {
        if (doc->clip_count > before)
            ak_clip_remove(doc, doc->clip_count - 1);
        return st;
    }
    if (!same_layout(doc, src->doc))
        forget_layout(doc->clips[doc->clip_count - 1], src->doc->format);
    return AK_OK;
}

ak_status ak_doc_put_clip(ak_doc *doc, const ak_clip *src, const char *name, size_t *index)
{
    if (!doc || !src)
        return AK_E_USAGE;
    long at = ak_doc_clip_index(doc, name ? name : src->name);
    if (at >= 0) /* the games look names up case-insensitively: keep the stored spelling */
        name = doc->clips[at]->name;
    ak_status st = append_copy(doc, src, name);
    if (st != AK_OK)
        return st;
    size_t last = doc->clip_count - 1;
    if (at >= 0) {
        /* The copy takes the old clip's place; the order of the others stays. */
        ak_clip *copy = doc->clips[last];
        doc->clips[last] = doc->clips[at];
        doc->clips[at] = copy;
        ak_clip_remove(doc, last);
        last = (size_t)at;
    }
    if (index)
        *index = last;
    return AK_OK;
}

static ak_status adopt_layout(ak_doc *doc, const ak_doc *src)
{
    ak_status st = ak_doc_set_format(doc, src->format, src->variant);
    if (st == AK_OK)
        st = ak_copy_props(doc, &doc->props, &src->props);
    if (st == AK_OK && src->skeleton.bone_count)
        st = ak_doc_copy_skeleton(doc, &src->skeleton);
    return st;
}

ak_status ak_doc_merge(ak_doc *doc, const ak_doc *src)
{
    if (!doc || !src)
        return AK_E_USAGE;
    if (!doc->format[0] && !doc->clip_count) {
        ak_status st = adopt_layout(doc, src);
        if (st != AK_OK)
            return st;
    }
    for (size_t i = 0, n = src->clip_count; i < n; i++) { /* n: doc may be src */
        ak_status st = append_copy(doc, src->clips[i], NULL);
        if (st != AK_OK)
            return st;
    }
    return AK_OK;
}

ak_doc *ak_doc_extract_clip(const ak_doc *doc, size_t index)
{
    if (!doc || index >= doc->clip_count)
        return NULL;
    ak_doc *one = ak_doc_new_with(&doc->private_->heap.allocator, 0);
    if (!one)
        return NULL;
    if (adopt_layout(one, doc) != AK_OK || ak_copy_clip(one, doc->clips[index]) != AK_OK) {
        ak_doc_free(one);
        return NULL;
    }
    return one;
}

size_t ak_doc_rename_bones(ak_doc *doc, const char *const *from, const char *const *to, size_t count)
{
    size_t renamed = 0;
    for (size_t c = 0; c < doc->clip_count; c++) {
        ak_clip *clip = doc->clips[c];
        for (size_t t = 0; t < clip->track_count; t++) {
            ak_track *tr = clip->tracks[t];
            for (size_t i = 0; i < count; i++) {
                if (strcmp(tr->bone, from[i]) != 0)
                    continue;
                if (ak_track_set_bone(tr, to[i]) != AK_OK)
                    return (size_t)-1;
                if (tr->has_bone_hash)
                    tr->bone_hash = ak_crc32(to[i], strlen(to[i]));
                renamed++;
                break;
            }
        }
    }
    return renamed;
}

ak_status ak_doc_assign_bone_ids(ak_doc *doc, const ak_doc *skeleton, size_t *assigned)
{
    size_t n = 0;
    ak_status st = ak_doc_attach_skeleton(doc, skeleton);
    for (size_t c = 0; st == AK_OK && c < doc->clip_count; c++) {
        ak_clip *clip = doc->clips[c];
        for (size_t t = 0; t < clip->track_count; t++) {
            ak_track *tr = clip->tracks[t];
            if (tr->skeleton_bone < 0)
                continue;
            const ak_bone *b = &doc->skeleton.bones[tr->skeleton_bone];
            if (!b->has_id)
                continue;
            tr->bone_id = b->id;
            tr->has_bone_id = 1;
            n++;
        }
    }
    if (assigned)
        *assigned = n;
    return st;
}
