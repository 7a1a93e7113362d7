/* json.c - the JSON dump (schema version 1, documented in README.md). */
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Key values repeat: the tracks of a clip share their key times, and
 * quantised formats hold a few thousand distinct values (ANP3's x/4096).
 * A number seen recently is copied from a table instead of converted
 * again. A dump starts with a small table in `jout`; one that goes on
 * past BIG_TABLE_AFTER numbers takes a larger one from the document's
 * allocator (ped_cretaceous.ifp: 475 MB/s of JSON without a table, 535
 * with the small one, 571 with the large one), and keeps the small one if
 * that allocation fails. */
#define SMALL_TABLE_BITS 8
#define BIG_TABLE_BITS 11
#define BIG_TABLE_AFTER 16384u

typedef struct seen_number {
    uint64_t bits; /* all ones (a NaN, never kept) when empty */
    uint32_t length;
    char text[AK_SHORTEST_MAX - 4];
} seen_number;

/* The dump goes out through a buffer of its own: one stdio call per
 * piece (a quote, a comma, a name) was most of the time of dumping a file
 * of many bones with few keys. */
typedef struct jout {
    FILE *file;
    size_t used;
    char buf[8192];
    seen_number *seen;  /* NULL until the first key */
    unsigned seen_bits; /* `seen` holds 1 << seen_bits entries */
    size_t lookups;
    seen_number *big;   /* from `allocator`, freed at the end */
    const ak_allocator *allocator;
    seen_number small[1u << SMALL_TABLE_BITS];
} jout;

static void jflush(jout *o)
{
    if (o->used)
        fwrite(o->buf, 1, o->used, o->file);
    o->used = 0;
}

static void jput(jout *o, const void *data, size_t n)
{
    if (n > sizeof o->buf - o->used) {
        jflush(o);
        if (n > sizeof o->buf) {
            fwrite(data, 1, n, o->file);
            return;
        }
    }
    memcpy(o->buf + o->used, data, n);
    o->used += n;
}

static void jputc(jout *o, char c)
{
    if (o->used == sizeof o->buf)
        jflush(o);
    o->buf[o->used++] = c;
}

static void jputs(jout *o, const char *s) { jput(o, s, strlen(s)); }

static void jprintf(jout *o, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(o->buf + o->used, sizeof o->buf - o->used, format, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof o->buf - o->used) {
        o->used += (size_t)n;
        return;
    }
    jflush(o); /* did not fit: again, straight to the file */
    va_start(ap, format);
    vfprintf(o->file, format, ap);
    va_end(ap);
}

/* Runs of characters that need no escape are copied at once. */
static void put_string(jout *out, const char *s)
{
    jputc(out, '"');
    const unsigned char *run = (const unsigned char *)s, *p = run;
    for (; *p; p++) {
        if (*p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x7f)
            continue;
        jput(out, run, (size_t)(p - run));
        run = p + 1;
        if (*p == '"' || *p == '\\')
            jprintf(out, "\\%c", *p);
        else if (*p == '\n')
            jputs(out, "\\n");
        else
            jprintf(out, "\\u%04x", *p); /* names are bytes: show them as Latin-1 */
    }
    jput(out, run, (size_t)(p - run));
    jputc(out, '"');
}

/* The shortest text that reads back to the same double (dtoa.c), into
 * `buf`; non-finite values as the strings "nan", "inf", "-inf". Returns
 * the length. */
static size_t format_number(char *buf, size_t size, double v)
{
    if (!isfinite(v))
        return (size_t)snprintf(buf, size, "%s", isnan(v) ? "\"nan\"" : v > 0 ? "\"inf\"" : "\"-inf\"");
    if (v == 0 && signbit(v))
        return (size_t)snprintf(buf, size, "-0.0"); /* "-0" would read back as the integer 0 */
    if (size < AK_SHORTEST_MAX)
        return 0;
    return ak_shortest_double(v, buf);
}

static void use_table(jout *out, seen_number *table, unsigned bits)
{
    memset(table, 0xff, sizeof *table << bits);
    out->seen = table;
    out->seen_bits = bits;
}

static void grow_table(jout *out)
{
    out->big = out->allocator->alloc(out->allocator->user, sizeof(seen_number) << BIG_TABLE_BITS);
    if (out->big)
        use_table(out, out->big, BIG_TABLE_BITS);
}

/* format_number for a key's time or value, through the table. */
static size_t format_key_number(jout *out, char *buf, double v)
{
    if (!isfinite(v))
        return format_number(buf, AK_SHORTEST_MAX, v);
    if (++out->lookups == BIG_TABLE_AFTER && !out->big)
        grow_table(out);
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    seen_number *s = &out->seen[(bits * 0x9e3779b97f4a7c15u) >> (64 - out->seen_bits)];
    if (s->bits == bits) {
        memcpy(buf, s->text, sizeof s->text);
        return s->length;
    }
    size_t n = format_number(buf, AK_SHORTEST_MAX, v);
    if (n <= sizeof s->text) {
        s->bits = bits;
        s->length = (uint32_t)n;
        memcpy(s->text, buf, sizeof s->text);
    }
    return n;
}

static void put_number(jout *out, double v)
{
    char buf[40];
    format_number(buf, sizeof buf, v);
    jputs(out, buf);
}

/* A float property always shows a fraction or exponent, so that a reader
 * can tell it from an int property. */
static void put_real(jout *out, double v)
{
    char buf[40];
    format_number(buf, sizeof buf, v);
    if (!isfinite(v)) { /* a bare "nan" would read back as a string property */
        jprintf(out, "{\"float\":%s}", buf);
        return;
    }
    jputs(out, buf);
    if (!strpbrk(buf, ".eE"))
        jputs(out, ".0");
}

/* Straight into the output buffer, as many bytes at a time as it has
 * room for (mesh blobs make hex most of some dumps). */
static void put_hex(jout *out, const unsigned char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    jputc(out, '"');
    while (n) {
        size_t room = (sizeof out->buf - out->used) / 2;
        if (!room) {
            jflush(out);
            continue;
        }
        size_t m = n < room ? n : room;
        char *d = out->buf + out->used;
        for (size_t i = 0; i < m; i++) {
            d[2 * i] = digits[p[i] >> 4];
            d[2 * i + 1] = digits[p[i] & 15];
        }
        out->used += 2 * m;
        p += m;
        n -= m;
    }
    jputc(out, '"');
}

static void put_props(jout *out, const ak_props *props)
{
    jputs(out, "{");
    for (size_t i = 0; i < props->count; i++) {
        const ak_prop *p = &props->items[i];
        if (i)
            jputs(out, ",");
        put_string(out, p->key);
        jputc(out, ':');
        switch (p->type) {
        case AK_PROP_INT: jprintf(out, "%lld", (long long)p->i); break;
        case AK_PROP_FLOAT: put_real(out, p->f); break;
        case AK_PROP_STRING: put_string(out, (const char *)p->data); break;
        default:
            jputs(out, "{\"hex\":");
            put_hex(out, p->data, p->size);
            jputs(out, "}");
        }
    }
    jputs(out, "}");
}

/* An integer in decimal (a printf per key was a sixth of a dump). */
static void put_int(jout *out, int64_t v)
{
    char text[24];
    size_t i = sizeof text;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        text[--i] = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        text[--i] = '-';
    jput(out, text + i, sizeof text - i);
}

/* A key digest as 16 lowercase hex digits in quotes. */
static void put_digest(jout *out, uint64_t d)
{
    static const char digits[] = "0123456789abcdef";
    char text[18];
    text[0] = text[17] = '"';
    for (int i = 16; i >= 1; i--, d >>= 4)
        text[i] = digits[d & 15];
    jput(out, text, sizeof text);
}

static const int channel_width[AK_CHANNELS] = { 4, 3, 3, 1 };

static void put_channel(jout *out, const ak_channel *ch, ak_channel_kind kind, unsigned flags)
{
    jprintf(out, ",\n     \"%s\":[", ak_channel_name(kind));
    if (!out->seen)
        use_table(out, out->small, SMALL_TABLE_BITS);
    for (size_t k = 0; k < ch->count; k++) {
        /* One key is one write: the numbers are formatted into `line`. */
        const ak_key *key = &ch->keys[k];
        char line[8 + 5 * 40];
        size_t n = 0;
        if (k)
            line[n++] = ',';
        line[n++] = '[';
        n += format_key_number(out, line + n, key->time);
        for (int c = 0; c < channel_width[kind]; c++) {
            line[n++] = ',';
            if (kind == AK_VISIBILITY)
                line[n++] = key->v[0] != 0 ? '1' : '0';
            else
                n += format_key_number(out, line + n, key->v[c]);
        }
        line[n++] = ']';
        jput(out, line, n);
    }
    jputs(out, "]");
    if (flags & AK_JSON_TICKS) {
        jprintf(out, ",\n     \"%s_ticks\":[", ak_channel_name(kind));
        for (size_t k = 0; k < ch->count; k++) {
            if (k)
                jputc(out, ',');
            put_int(out, ch->keys[k].tick);
        }
        jputs(out, "]");
    }
    if (flags & AK_JSON_RAW) {
        jprintf(out, ",\n     \"%s_raw\":[", ak_channel_name(kind));
        for (size_t k = 0; k < ch->count; k++) {
            if (k)
                jputc(out, ',');
            put_hex(out, ch->keys[k].raw ? ch->keys[k].raw : (const unsigned char *)"", ch->keys[k].raw_size);
        }
        /* "" where the key has no stored bytes or was edited since they were
         * stored. (A key may have had zero bytes stored, and count as unchanged.) */
        jprintf(out, "],\n     \"%s_check\":[", ak_channel_name(kind));
        uint64_t digest[64];
        for (size_t k = 0; k < ch->count; k++) {
            if (k % 64 == 0)
                ak_keys_digest(ch->keys + k, ch->count - k < 64 ? ch->count - k : 64, kind, digest);
            if (k)
                jputc(out, ',');
            if (!ak_key_changed(&ch->keys[k]))
                put_digest(out, digest[k % 64]);
            else
                jputs(out, "\"\"");
        }
        jputs(out, "]");
    }
}

static void put_track(jout *out, const ak_track *t, unsigned flags)
{
    jputs(out, "    {\"bone\":");
    put_string(out, t->bone);
    if (t->has_bone_id)
        jprintf(out, ",\"id\":%ld", (long)t->bone_id);
    if (t->has_bone_hash)
        jprintf(out, ",\"hash\":%lu", (unsigned long)t->bone_hash);
    jputs(out, ",\"weight\":");
    put_number(out, t->weight);
    if (t->props.count) {
        jputs(out, ",\"props\":");
        put_props(out, &t->props);
    }
    for (int c = 0; c < AK_CHANNELS; c++)
        if (t->channel[c].count)
            put_channel(out, &t->channel[c], (ak_channel_kind)c, flags);
    jputs(out, "}");
}

static void put_clip(jout *out, const ak_clip *clip, unsigned flags)
{
    jputs(out, "  {\"name\":");
    put_string(out, clip->name);
    jputs(out, ",\"duration\":");
    put_number(out, clip->duration);
    if (clip->frame_rate != 0) { /* also negative or NaN, as read from a file */
        jputs(out, ",\"frame_rate\":");
        put_number(out, clip->frame_rate);
    }
    if (clip->tick_rate != 0) {
        jputs(out, ",\"tick_rate\":");
        put_number(out, clip->tick_rate);
    }
    if (clip->props.count) {
        jputs(out, ",\"props\":");
        put_props(out, &clip->props);
    }
    jputs(out, ",\n   \"tracks\":[\n");
    for (size_t i = 0; i < clip->track_count; i++) {
        put_track(out, clip->tracks[i], flags);
        jputs(out, i + 1 < clip->track_count ? ",\n" : "\n");
    }
    jputs(out, "   ],\n   \"events\":[");
    for (size_t i = 0; i < clip->event_count; i++) {
        const ak_event *e = &clip->events[i];
        jputs(out, i ? ",{\"time\":" : "{\"time\":");
        put_number(out, e->time);
        jputs(out, ",\"type\":");
        put_string(out, e->type);
        jputs(out, ",\"info\":");
        put_string(out, e->info);
        if (e->props.count) {
            jputs(out, ",\"props\":");
            put_props(out, &e->props);
        }
        jputs(out, "}");
    }
    jputs(out, "]}");
}

static void put_vector(jout *out, const char *field, const double *v, int n)
{
    jprintf(out, ",\"%s\":[", field);
    for (int i = 0; i < n; i++) {
        if (i)
            jputc(out, ',');
        put_number(out, v[i]);
    }
    jputc(out, ']');
}

/* The skeleton in bone order; id and hash only when the bone has them. */
static void put_skeleton(jout *out, const ak_skeleton *sk)
{
    jputs(out, ",\n \"skeleton\":[\n");
    for (size_t i = 0; i < sk->bone_count; i++) {
        const ak_bone *b = &sk->bones[i];
        jputs(out, "  {\"name\":");
        put_string(out, b->name);
        if (b->has_id)
            jprintf(out, ",\"id\":%ld", (long)b->id);
        if (b->has_hash)
            jprintf(out, ",\"hash\":%lu", (unsigned long)b->hash);
        jprintf(out, ",\"parent\":%ld", (long)b->parent);
        put_vector(out, "translation", b->translation, 3);
        put_vector(out, "rotation", b->rotation, 4);
        put_vector(out, "scale", b->scale, 3);
        if (b->props.count) {
            jputs(out, ",\"props\":");
            put_props(out, &b->props);
        }
        jputs(out, i + 1 < sk->bone_count ? "},\n" : "}\n");
    }
    jputs(out, " ]");
}

static void put_doc(jout *out, const ak_doc *doc, const char *clip, unsigned flags)
{
    jputs(out, "{\"animkit\":1,\"format\":");
    put_string(out, doc->format);
    jputs(out, ",\"variant\":");
    put_string(out, doc->variant);
    if (doc->props.count) {
        jputs(out, ",\"props\":");
        put_props(out, &doc->props);
    }
    if (doc->skeleton.bone_count)
        put_skeleton(out, &doc->skeleton);
    jputs(out, ",\n \"clips\":[\n");
    int first = 1;
    for (size_t i = 0; i < doc->clip_count; i++) {
        if (clip && !ak_str_ieq(doc->clips[i]->name, clip))
            continue;
        if (!first)
            jputs(out, ",\n");
        first = 0;
        put_clip(out, doc->clips[i], flags);
    }
    jputs(out, "\n]}\n");
}

ak_status ak_doc_write_json(const ak_doc *doc, const char *clip, unsigned flags, FILE *file)
{
    jout out; /* 16 KiB on the stack; the one allocation may fail */
    out.file = file;
    out.used = 0;
    out.seen = out.big = NULL;
    out.lookups = 0;
    out.allocator = &doc->private_->heap.allocator;
    put_doc(&out, doc, clip, flags);
    jflush(&out);
    if (out.big)
        out.allocator->free(out.allocator->user, out.big);
    return ferror(file) ? AK_E_IO : AK_OK;
}
