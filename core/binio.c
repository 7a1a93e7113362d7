/* binio.c - bounds-checked little-endian reading and the growing output
 * sink, shared by every plugin so that no plugin parses bytes by hand. */
#include "internal.h"

#include <string.h>

/* The readers below call these static forms, not the exported ones: a
 * call between exported functions of a shared library goes through the
 * PLT, which cost more than the reading itself (issue 13); the loads are
 * plugin.h's inline ak_peek_*(). */
uint16_t ak_load_u16(const unsigned char *p) { return ak_peek_u16(p); }

uint32_t ak_load_u32(const unsigned char *p) { return ak_peek_u32(p); }

float ak_bits_f32(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint32_t ak_f32_bits(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

void ak_reader_init(ak_reader *r, ak_job *job, const unsigned char *data, size_t size)
{
    r->data = data;
    r->size = size;
    r->pos = 0;
    r->job = job;
    r->failed = 0;
}

static inline size_t left_of(const ak_reader *r) { return r->failed || r->pos > r->size ? 0 : r->size - r->pos; }

size_t ak_remaining(const ak_reader *r) { return left_of(r); }

static int overrun(ak_reader *r, size_t n, const char *what)
{
    if (!r->failed && r->job)
        ak_fail(r->job, AK_E_DATA, (int64_t)r->pos,
                "truncated %s: %zu bytes needed, %zu left before the end of %s",
                what ? what : "data", n, left_of(r),
                r->size == 0 || r->job == NULL ? "the input" : "its enclosing block");
    r->failed = 1;
    return 0;
}

static inline int need(ak_reader *r, size_t n, const char *what)
{
    if (r->failed)
        return 0;
    if (n > left_of(r))
        return overrun(r, n, what);
    return 1;
}

/* The next n bytes, consumed; NULL (and the job failed) past the end. */
static inline const unsigned char *take(ak_reader *r, size_t n, const char *what)
{
    if (!need(r, n, what))
        return NULL;
    const unsigned char *p = r->data + r->pos;
    r->pos += n;
    return p;
}

int ak_need(ak_reader *r, size_t n, const char *what) { return need(r, n, what); }

int ak_need_array(ak_reader *r, uint64_t count, size_t min_size, const char *what)
{
    if (r->failed)
        return 0;
    uint64_t left = left_of(r);
    if (min_size == 0)
        min_size = 1;
    if (count > left / min_size) {
        if (r->job)
            ak_fail(r->job, AK_E_DATA, (int64_t)r->pos,
                    "count of %s is %llu, but at %zu byte%s each they cannot fit in the %llu byte%s left",
                    what ? what : "elements", (unsigned long long)count, min_size, min_size == 1 ? "" : "s",
                    (unsigned long long)left, left == 1 ? "" : "s");
        r->failed = 1;
        return 0;
    }
    return 1;
}

int ak_skip(ak_reader *r, size_t n, const char *what) { return take(r, n, what) != NULL; }

int ak_seek(ak_reader *r, size_t pos, const char *what)
{
    if (r->failed)
        return 0;
    if (pos > r->size) {
        if (r->job)
            ak_fail(r->job, AK_E_DATA, (int64_t)r->pos,
                    "%s points to offset %zu, past the end (%zu)", what ? what : "offset", pos, r->size);
        r->failed = 1;
        return 0;
    }
    r->pos = pos;
    return 1;
}

ak_reader ak_sub(ak_reader *r, size_t n, const char *what)
{
    ak_reader sub = *r;
    if (!need(r, n, what)) {
        sub.failed = 1;
        return sub;
    }
    sub.size = r->pos + n;
    r->pos += n;
    return sub;
}

const unsigned char *ak_bytes(ak_reader *r, size_t n, const char *what) { return take(r, n, what); }

uint8_t ak_u8(ak_reader *r)
{
    const unsigned char *p = take(r, 1, "byte");
    return p ? p[0] : 0;
}

uint16_t ak_u16(ak_reader *r)
{
    const unsigned char *p = take(r, 2, "16-bit value");
    return p ? ak_peek_u16(p) : 0;
}

static inline uint32_t read32(ak_reader *r)
{
    const unsigned char *p = take(r, 4, "32-bit value");
    return p ? ak_peek_u32(p) : 0;
}

uint32_t ak_u32(ak_reader *r) { return read32(r); }

uint64_t ak_u64(ak_reader *r)
{
    const unsigned char *p = take(r, 8, "64-bit value");
    return p ? (uint64_t)ak_peek_u32(p) | (uint64_t)ak_peek_u32(p + 4) << 32 : 0;
}

int16_t ak_i16(ak_reader *r) { return (int16_t)ak_u16(r); }
int32_t ak_i32(ak_reader *r) { return (int32_t)read32(r); }

float ak_f32(ak_reader *r)
{
    uint32_t bits = read32(r);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* ---- sink ---- */

void ak_sink_init(ak_sink *s, const ak_allocator *allocator)
{
    memset(s, 0, sizeof *s);
    s->allocator = allocator ? allocator : &ak_default_allocator;
}

static int sink_grow(ak_sink *s, size_t more)
{
    size_t cap = s->capacity ? s->capacity : s->first ? s->first : 4096;
    while (cap - s->size < more) {
        if (cap > SIZE_MAX / 2) {
            s->failed = 1;
            return 0;
        }
        cap *= 2;
    }
    /* A large buffer from the pool instead of fresh pages, when it has one. */
    size_t got;
    unsigned char *p = ak_pool_move(s->pool, s->allocator, s->data, s->size, s->capacity, cap, &got);
    if (p) {
        s->data = p;
        s->capacity = got;
        return 1;
    }
    p = s->allocator->realloc(s->allocator->user, s->data, cap);
    if (!p) {
        s->failed = 1;
        return 0;
    }
    s->data = p;
    s->capacity = cap;
    return 1;
}

/* Room for `more` bytes; the common case (room enough) inline. */
static inline int sink_reserve(ak_sink *s, size_t more)
{
    if (s->failed)
        return 0;
    return more <= s->capacity - s->size || sink_grow(s, more);
}

static inline int put(ak_sink *s, const void *data, size_t size)
{
    if (!sink_reserve(s, size))
        return 0;
    if (size)
        memcpy(s->data + s->size, data, size);
    s->size += size;
    return 1;
}

int ak_put(ak_sink *s, const void *data, size_t size) { return put(s, data, size); }

int ak_put_zeros(ak_sink *s, size_t size)
{
    if (!sink_reserve(s, size))
        return 0;
    memset(s->data + s->size, 0, size);
    s->size += size;
    return 1;
}

int ak_put_u8(ak_sink *s, uint8_t v) { return put(s, &v, 1); }

int ak_put_u16(ak_sink *s, uint16_t v)
{
    unsigned char b[2] = { (unsigned char)v, (unsigned char)(v >> 8) };
    return put(s, b, 2);
}

static inline int put32(ak_sink *s, uint32_t v)
{
    unsigned char b[4];
    ak_poke_u32(b, v);
    return put(s, b, 4);
}

int ak_put_u32(ak_sink *s, uint32_t v) { return put32(s, v); }

int ak_put_u64(ak_sink *s, uint64_t v) { return put32(s, (uint32_t)v) && put32(s, (uint32_t)(v >> 32)); }

int ak_put_i16(ak_sink *s, int16_t v)
{
    uint16_t u = (uint16_t)v;
    unsigned char b[2] = { (unsigned char)u, (unsigned char)(u >> 8) };
    return put(s, b, 2);
}

int ak_put_i32(ak_sink *s, int32_t v) { return put32(s, (uint32_t)v); }

int ak_put_f32(ak_sink *s, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return put32(s, bits);
}

size_t ak_sink_size(const ak_sink *s) { return s->size; }
int ak_sink_failed(const ak_sink *s) { return s->failed; }

int ak_sink_patch_u32(ak_sink *s, size_t offset, uint32_t v)
{
    if (s->failed || offset > s->size || s->size - offset < 4)
        return 0;
    ak_poke_u32(s->data + offset, v);
    return 1;
}

unsigned char *ak_sink_take(ak_sink *s, size_t *size)
{
    unsigned char *p = s->data;
    *size = s->size;
    s->data = NULL;
    s->size = s->capacity = 0;
    return p;
}

void ak_sink_release(ak_sink *s)
{
    ak_pool_put(s->pool, s->allocator, s->data, s->capacity);
    s->data = NULL;
    s->size = s->capacity = 0;
}
