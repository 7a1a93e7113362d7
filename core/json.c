/* json.c - the JSON dump (schema version 1, documented in README.md). */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p < 0x20 || *p >= 0x7f)
            fprintf(out, "\\u%04x", *p); /* names are bytes: show them as Latin-1 */
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* The shortest of %.15g and %.17g that reads back to the same double, into
 * `buf`; non-finite values as the strings "nan", "inf", "-inf". */
static void format_number(char *buf, size_t size, double v)
{
    if (!isfinite(v)) {
        snprintf(buf, size, "%s", isnan(v) ? "\"nan\"" : v > 0 ? "\"inf\"" : "\"-inf\"");
        return;
    }
    if (v == 0 && signbit(v)) {
        snprintf(buf, size, "-0.0"); /* "-0" would read back as the integer 0 */
        return;
    }
    snprintf(buf, size, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, size, "%.17g", v);
}

static void put_number(FILE *out, double v)
{
    char buf[40];
    format_number(buf, sizeof buf, v);
    fputs(buf, out);
}

/* A float property always shows a fraction or exponent, so that a reader
 * can tell it from an int property. */
static void put_real(FILE *out, double v)
{
    char buf[40];
    format_number(buf, sizeof buf, v);
    if (!isfinite(v)) { /* a bare "nan" would read back as a string property */
        fprintf(out, "{\"float\":%s}", buf);
        return;
    }
    fputs(buf, out);
    if (!strpbrk(buf, ".eE"))
        fputs(".0", out);
}

static void put_hex(FILE *out, const unsigned char *p, size_t n)
{
    fputc('"', out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%02x", p[i]);
    fputc('"', out);
}

static void put_props(FILE *out, const ak_props *props)
{
    fputs("{", out);
    for (size_t i = 0; i < props->count; i++) {
        const ak_prop *p = &props->items[i];
        if (i)
            fputs(",", out);
        put_string(out, p->key);
        fputc(':', out);
        switch (p->type) {
        case AK_PROP_INT: fprintf(out, "%lld", (long long)p->i); break;
        case AK_PROP_FLOAT: put_real(out, p->f); break;
        case AK_PROP_STRING: put_string(out, (const char *)p->data); break;
        default:
            fputs("{\"hex\":", out);
            put_hex(out, p->data, p->size);
            fputs("}", out);
        }
    }
    fputs("}", out);
}

static const int channel_width[AK_CHANNELS] = { 4, 3, 3, 1 };

static void put_channel(FILE *out, const ak_channel *ch, ak_channel_kind kind, unsigned flags)
{
    fprintf(out, ",\n     \"%s\":[", ak_channel_name(kind));
    for (size_t k = 0; k < ch->count; k++) {
        const ak_key *key = &ch->keys[k];
        fputs(k ? ",[" : "[", out);
        put_number(out, key->time);
        for (int c = 0; c < channel_width[kind]; c++) {
            fputc(',', out);
            if (kind == AK_VISIBILITY)
                fprintf(out, "%d", key->v[0] != 0);
            else
                put_number(out, key->v[c]);
        }
        fputc(']', out);
    }
    fputs("]", out);
    if (flags & AK_JSON_TICKS) {
        fprintf(out, ",\n     \"%s_ticks\":[", ak_channel_name(kind));
        for (size_t k = 0; k < ch->count; k++)
            fprintf(out, "%s%lld", k ? "," : "", (long long)ch->keys[k].tick);
        fputs("]", out);
    }
    if (flags & AK_JSON_RAW) {
        fprintf(out, ",\n     \"%s_raw\":[", ak_channel_name(kind));
        for (size_t k = 0; k < ch->count; k++) {
            if (k)
                fputc(',', out);
            put_hex(out, ch->keys[k].raw ? ch->keys[k].raw : (const unsigned char *)"", ch->keys[k].raw_size);
        }
        /* "" where the key has no stored bytes or was edited since they were
         * stored. (A key may have had zero bytes stored, and count as unchanged.) */
        fprintf(out, "],\n     \"%s_check\":[", ak_channel_name(kind));
        for (size_t k = 0; k < ch->count; k++) {
            const ak_key *key = &ch->keys[k];
            if (!ak_key_changed(key))
                fprintf(out, "%s\"%016llx\"", k ? "," : "", (unsigned long long)ak_key_digest(key, kind));
            else
                fputs(k ? ",\"\"" : "\"\"", out);
        }
        fputs("]", out);
    }
}

static void put_track(FILE *out, const ak_track *t, unsigned flags)
{
    fputs("    {\"bone\":", out);
    put_string(out, t->bone);
    if (t->has_bone_id)
        fprintf(out, ",\"id\":%ld", (long)t->bone_id);
    if (t->has_bone_hash)
        fprintf(out, ",\"hash\":%lu", (unsigned long)t->bone_hash);
    fputs(",\"weight\":", out);
    put_number(out, t->weight);
    if (t->props.count) {
        fputs(",\"props\":", out);
        put_props(out, &t->props);
    }
    for (int c = 0; c < AK_CHANNELS; c++)
        if (t->channel[c].count)
            put_channel(out, &t->channel[c], (ak_channel_kind)c, flags);
    fputs("}", out);
}

static void put_clip(FILE *out, const ak_clip *clip, unsigned flags)
{
    fputs("  {\"name\":", out);
    put_string(out, clip->name);
    fputs(",\"duration\":", out);
    put_number(out, clip->duration);
    if (clip->frame_rate != 0) { /* also negative or NaN, as read from a file */
        fputs(",\"frame_rate\":", out);
        put_number(out, clip->frame_rate);
    }
    if (clip->tick_rate != 0) {
        fputs(",\"tick_rate\":", out);
        put_number(out, clip->tick_rate);
    }
    if (clip->props.count) {
        fputs(",\"props\":", out);
        put_props(out, &clip->props);
    }
    fputs(",\n   \"tracks\":[\n", out);
    for (size_t i = 0; i < clip->track_count; i++) {
        put_track(out, clip->tracks[i], flags);
        fputs(i + 1 < clip->track_count ? ",\n" : "\n", out);
    }
    fputs("   ],\n   \"events\":[", out);
    for (size_t i = 0; i < clip->event_count; i++) {
        const ak_event *e = &clip->events[i];
        fputs(i ? ",{\"time\":" : "{\"time\":", out);
        put_number(out, e->time);
        fputs(",\"type\":", out);
        put_string(out, e->type);
        fputs(",\"info\":", out);
        put_string(out, e->info);
        if (e->props.count) {
            fputs(",\"props\":", out);
            put_props(out, &e->props);
        }
        fputs("}", out);
    }
    fputs("]}", out);
}

static void put_vector(FILE *out, const char *field, const double *v, int n)
{
    fprintf(out, ",\"%s\":[", field);
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        put_number(out, v[i]);
    }
    fputc(']', out);
}

/* The skeleton in bone order; id and hash only when the bone has them. */
static void put_skeleton(FILE *out, const ak_skeleton *sk)
{
    fputs(",\n \"skeleton\":[\n", out);
    for (size_t i = 0; i < sk->bone_count; i++) {
        const ak_bone *b = &sk->bones[i];
        fputs("  {\"name\":", out);
        put_string(out, b->name);
        if (b->has_id)
            fprintf(out, ",\"id\":%ld", (long)b->id);
        if (b->has_hash)
            fprintf(out, ",\"hash\":%lu", (unsigned long)b->hash);
        fprintf(out, ",\"parent\":%ld", (long)b->parent);
        put_vector(out, "translation", b->translation, 3);
        put_vector(out, "rotation", b->rotation, 4);
        put_vector(out, "scale", b->scale, 3);
        if (b->props.count) {
            fputs(",\"props\":", out);
            put_props(out, &b->props);
        }
        fputs(i + 1 < sk->bone_count ? "},\n" : "}\n", out);
    }
    fputs(" ]", out);
}

ak_status ak_doc_write_json(const ak_doc *doc, const char *clip, unsigned flags, FILE *out)
{
    fputs("{\"animkit\":1,\"format\":", out);
    put_string(out, doc->format);
    fputs(",\"variant\":", out);
    put_string(out, doc->variant);
    if (doc->props.count) {
        fputs(",\"props\":", out);
        put_props(out, &doc->props);
    }
    if (doc->skeleton.bone_count)
        put_skeleton(out, &doc->skeleton);
    fputs(",\n \"clips\":[\n", out);
    int first = 1;
    for (size_t i = 0; i < doc->clip_count; i++) {
        if (clip && !ak_str_ieq(doc->clips[i]->name, clip))
            continue;
        if (!first)
            fputs(",\n", out);
        first = 0;
        put_clip(out, doc->clips[i], flags);
    }
    fputs("\n]}\n", out);
    return ferror(out) ? AK_E_IO : AK_OK;
}
