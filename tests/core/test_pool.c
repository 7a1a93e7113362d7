/* test_pool.c - the memory a registry keeps from freed documents for later
 * reads (ABI 1.3): it is reused, zeroed scratch stays zeroed when it comes
 * from a reused block, it is bounded, it can be trimmed or turned off, and
 * documents may outlive their registry. Also the 1.3 fill calls that skip
 * clearing (ak_keys_append_uninit, ak_job_alloc_uninit). */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define SCRATCH (256u << 10) /* above the pool's smallest block */

/* "BULK" + u32 n: one track of n rotation keys, v = (i, 2i, 3i, 1), each
 * with 4 stored bytes. Before building it, takes zeroed scratch twice in a
 * row (the second time from the block the first gave back) and fails with
 * AK_E_DATA if it is not all zero; and fills scratch from
 * ak_job_alloc_uninit. */
static ak_status bulk_read(ak_job *job, const unsigned char *b, size_t n, ak_doc *doc)
{
    if (n < 8)
        return ak_fail(job, AK_E_DATA, 0, "short");
    size_t count = ak_load_u32(b + 4);
    for (int round = 0; round < 2; round++) {
        unsigned char *s = ak_job_alloc(job, SCRATCH, 1);
        if (!s)
            return AK_E_NOMEM;
        for (size_t i = 0; i < SCRATCH; i++)
            if (s[i])
                return ak_fail(job, AK_E_DATA, -1, "ak_job_alloc gave a nonzero byte at %zu", i);
        memset(s, 0xAB, SCRATCH);
        ak_job_free(job, s);
    }
    double *tmp = ak_job_alloc_uninit(job, count ? count : 1, sizeof *tmp);
    if (!tmp)
        return AK_E_NOMEM;
    for (size_t i = 0; i < count; i++)
        tmp[i] = (double)i;
    ak_clip *clip = ak_clip_add(doc, "bulk");
    ak_track *t = clip ? ak_track_add(clip, "root") : NULL;
    ak_key *k = t && count ? ak_keys_append_uninit(t, AK_ROTATION, count) : NULL;
    if (count && !k)
        return ak_fail(job, AK_E_NOMEM, -1, "out of memory");
    for (size_t i = 0; i < count; i++) {
        if (k[i].raw || k[i].raw_size || !ak_key_changed(&k[i]))
            return ak_fail(job, AK_E_DATA, -1, "key %zu was not left unattached", i);
        k[i].time = tmp[i];
        k[i].tick = (int64_t)i;
        k[i].v[0] = tmp[i];
        k[i].v[1] = 2 * tmp[i];
        k[i].v[2] = 3 * tmp[i];
        k[i].v[3] = 1.0;
    }
    unsigned char *stored = count ? ak_doc_store(doc, NULL, 4 * count) : NULL;
    if (count && !stored)
        return AK_E_NOMEM;
    return count ? ak_keys_set_raw(k, count, stored, 4, 4) : AK_OK;
}

/* Four bytes per rotation key of the first track. */
static ak_status bulk_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    (void)job;
    const ak_channel *ch = &doc->clips[0]->tracks[0]->channel[AK_ROTATION];
    for (size_t i = 0; i < ch->count; i++)
        ak_put_u32(out, (uint32_t)ch->keys[i].tick);
    return AK_OK;
}

static int bulk_probe(const unsigned char *b, size_t n, const char *f)
{
    (void)f;
    return n >= 4 && memcmp(b, "BULK", 4) == 0 ? AK_PROBE_MAGIC : 0;
}

static const ak_codec bulk = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "bulk", "1", "test",
                               "MIT", "bulk", bulk_probe, bulk_read, bulk_write, NULL };

static ak_registry *open_with(uint32_t flags, const ak_allocator *allocator)
{
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_PLUGINS | flags, NULL, allocator, NULL, NULL, NULL };
    ak_registry *reg = NULL;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_OK);
    ck_assert_int_eq(ak_registry_add_codec(reg, &bulk, 0, &rep), AK_OK);
    return reg;
}

static ak_doc *read_bulk(const ak_registry *reg, uint32_t count)
{
    unsigned char in[8] = { 'B', 'U', 'L', 'K', (unsigned char)count, (unsigned char)(count >> 8),
                            (unsigned char)(count >> 16), (unsigned char)(count >> 24) };
    return ak_test_read(reg, in, sizeof in, "x.bulk");
}

static const ak_channel *rotations(const ak_doc *doc) { return &doc->clips[0]->tracks[0]->channel[AK_ROTATION]; }

static void check_values(const ak_doc *doc, uint32_t count)
{
    const ak_channel *ch = rotations(doc);
    ck_assert_uint_eq(ch->count, count);
    for (uint32_t i = 0; i < count; i += 997) {
        ck_assert(ch->keys[i].v[2] == 3.0 * i && ch->keys[i].tick == (int64_t)i);
        ck_assert_int_eq(ak_key_changed(&ch->keys[i]), 0);
    }
}

START_TEST(a_freed_documents_blocks_serve_the_next_read)
{
    ak_registry *reg = open_with(0, NULL);
    ak_doc *a = read_bulk(reg, 50000); /* 3.6 MB of keys */
    check_values(a, 50000);
    const ak_key *where = rotations(a)->keys;
    ak_doc_free(a);
    ak_doc *b = read_bulk(reg, 50000);
    check_values(b, 50000);
    /* The same allocations in the same order: the keys land where the
     * first document's were, in its block taken back from the pool. */
    ck_assert_ptr_eq(rotations(b)->keys, where);
    ak_doc_free(b);
    size_t kept = ak_registry_trim(reg);
    ck_assert_uint_ge(kept, 50000 * sizeof(ak_key));
    ck_assert_uint_eq(ak_registry_trim(reg), 0);
    ak_doc *c = read_bulk(reg, 50000); /* still works after a trim */
    check_values(c, 50000);
    ak_doc_free(c);
    ak_registry_free(reg);
}
END_TEST

START_TEST(zeroed_scratch_from_a_reused_block_is_zero)
{
    /* bulk_read fails unless its second ak_job_alloc, served by the block
     * its first one dirtied and gave back, is all zero; the next read gets
     * that block again from the pool. */
    ak_registry *reg = open_with(0, NULL);
    for (int i = 0; i < 3; i++) {
        ak_doc *d = read_bulk(reg, 10);
        check_values(d, 10);
        ak_doc_free(d);
    }
    ck_assert_uint_ge(ak_registry_trim(reg), SCRATCH);
    ak_registry_free(reg);
}
END_TEST

START_TEST(the_pool_is_bounded)
{
    ak_registry *reg = open_with(0, NULL);
    enum { DOCS = 24 };
    ak_doc *docs[DOCS];
    for (int i = 0; i < DOCS; i++)
        docs[i] = read_bulk(reg, 40000 + 1000 * (uint32_t)i); /* about 3 MB each */
    for (int i = 0; i < DOCS; i++)
        ak_doc_free(docs[i]);
    size_t kept = ak_registry_trim(reg);
    ck_assert_uint_gt(kept, 0);
    ck_assert_uint_le(kept, (size_t)64 << 20);
    ak_registry_free(reg);
}
END_TEST

START_TEST(recent_sizes_push_out_old_ones)
{
    ak_registry *reg = open_with(0, NULL);
    ak_doc *small[12];
    for (int i = 0; i < 12; i++) /* more small documents than the pool has places */
        small[i] = read_bulk(reg, 2000 + 100 * (uint32_t)i);
    for (int i = 0; i < 12; i++)
        ak_doc_free(small[i]);
    ak_doc *a = read_bulk(reg, 50000);
    const ak_key *where = rotations(a)->keys;
    ak_doc_free(a); /* its blocks displace the oldest kept ones */
    ak_doc *b = read_bulk(reg, 50000);
    ck_assert_ptr_eq(rotations(b)->keys, where);
    check_values(b, 50000);
    ak_doc_free(b);
    ak_registry_free(reg);
}
END_TEST

START_TEST(output_buffers_go_back_to_the_pool)
{
    ak_registry *reg = open_with(0, NULL);
    ak_doc *d = read_bulk(reg, 60000);
    ak_registry_trim(reg);
    unsigned char *out[12];
    size_t size[12];
    ak_report rep = { 0 };
    ak_options o = { sizeof o, "bulk", NULL, NULL, 0, 0 };
    ck_assert_int_eq(ak_write(reg, d, &o, &out[0], &size[0], &rep), AK_OK);
    ck_assert_uint_eq(size[0], 240000);
    ck_assert_uint_eq(ak_load_u32(out[0] + 4 * 59999), 59999);
    ck_assert_uint_eq(ak_registry_trim(reg), 0); /* the pool was empty: it grew by realloc */
    ak_buffer_free(reg, out[0]);
    ck_assert_uint_ge(ak_registry_trim(reg), 240000); /* the buffer came back to the pool */
    /* More buffers out at once than the registry remembers: the oldest are
     * simply freed (the sanitizer run checks nothing leaks or is freed twice). */
    for (int i = 0; i < 12; i++) {
        ck_assert_int_eq(ak_write(reg, d, &o, &out[i], &size[i], &rep), AK_OK);
        ck_assert_uint_eq(size[i], 240000);
    }
    for (int i = 0; i < 12; i++) {
        ck_assert_uint_eq(ak_load_u32(out[i] + 4 * 1234), 1234);
        ak_buffer_free(reg, out[i]);
    }
    ck_assert_uint_gt(ak_registry_trim(reg), 0);
    ak_doc_free(d);
    ak_registry_free(reg);
}
END_TEST

START_TEST(no_pool_flag_keeps_nothing)
{
    ak_registry *reg = open_with(AK_REG_NO_POOL, NULL);
    ak_doc *d = read_bulk(reg, 50000);
    check_values(d, 50000);
    ak_doc_free(d);
    ck_assert_uint_eq(ak_registry_trim(reg), 0);
    ak_registry_free(reg);
}
END_TEST

START_TEST(a_host_allocator_gets_everything_back)
{
    long live = 0;
    ak_allocator a = ak_test_counting_allocator(&live);
    ak_registry *reg = open_with(0, &a);
    long base = live;
    ak_doc *d = read_bulk(reg, 50000);
    check_values(d, 50000);
    ak_doc_free(d);
    ck_assert_int_eq(live, base); /* nothing kept behind the host's back */
    ck_assert_uint_eq(ak_registry_trim(reg), 0);
    ak_registry_free(reg);
    ck_assert_int_eq(live, 0);
}
END_TEST

/* "ECHO" and any bytes: the document keeps them as a property, and the
 * writer puts them back one byte a call, then `echo_extra` bytes more. */
static size_t echo_extra;

static ak_status echo_read(ak_job *job, const unsigned char *b, size_t n, ak_doc *doc)
{
    (void)job;
    ak_clip *clip = ak_clip_add(doc, "echo");
    if (!clip)
        return AK_E_NOMEM;
    return ak_prop_set_bytes(doc, &clip->props, "echo.bytes", b, n);
}

static ak_status echo_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    (void)job;
    const ak_prop *p = ak_prop_get(&doc->clips[0]->props, "echo.bytes");
    for (size_t i = 0; i < p->size; i++)
        ak_put_u8(out, p->data[i]);
    for (size_t i = 0; i < echo_extra; i++)
        ak_put_u8(out, (unsigned char)i);
    return AK_OK;
}

static int echo_probe(const unsigned char *b, size_t n, const char *f)
{
    (void)f;
    return n >= 4 && memcmp(b, "ECHO", 4) == 0 ? AK_PROBE_MAGIC : 0;
}

static const ak_codec echo = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "echo", "1", "test",
                               "MIT", "echo", echo_probe, echo_read, echo_write, NULL };

/* A host allocator that remembers what it was asked. */
typedef struct asked {
    size_t allocs, reallocs, last_size;
} asked;

static void *asked_alloc(void *user, size_t size)
{
    asked *a = user;
    a->allocs++;
    a->last_size = size;
    return malloc(size);
}

static void *asked_realloc(void *user, void *ptr, size_t size)
{
    asked *a = user;
    if (ptr)
        a->reallocs++;
    else
        a->allocs++;
    a->last_size = size;
    return realloc(ptr, size);
}

static void asked_free(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

/* Written back in the format it was read in, a document's output takes
 * one block of the size of the file it came from: no 4 KiB block for a
 * small file, no copy through every doubling for a large one. A write
 * that outgrows it still grows; other sizes start at 4 KiB as before. */
START_TEST(a_same_format_write_takes_one_block_of_the_files_size)
{
    asked a = { 0, 0, 0 };
    ak_allocator alloc = { asked_alloc, asked_realloc, asked_free, &a };
    ak_registry *reg = open_with(0, &alloc);
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_add_codec(reg, &echo, 0, &rep), AK_OK);
    size_t sizes[] = { 4, 299, 4096, 100000 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        unsigned char *file = malloc(n);
        ck_assert_ptr_nonnull(file);
        memcpy(file, "ECHO", 4);
        for (size_t j = 4; j < n; j++)
            file[j] = (unsigned char)(j * 31);
        ak_doc *d = ak_test_read(reg, file, n, "x.echo");
        for (size_t extra = 0; extra <= 300; extra += 300) {
            echo_extra = extra;
            a.allocs = a.reallocs = 0;
            unsigned char *out;
            size_t size;
            ck_assert_int_eq(ak_write(reg, d, NULL, &out, &size, &rep), AK_OK);
            ck_assert_uint_eq(size, n + extra);
            ck_assert_int_eq(memcmp(out, file, n), 0);
            for (size_t j = 0; j < extra; j++)
                ck_assert_uint_eq(out[n + j], (unsigned char)j);
            size_t first = n < 256 ? 256 : n; /* a small file's edit may grow it */
            if (n + extra <= first) {
                ck_assert_uint_eq(a.allocs, 1);
                ck_assert_uint_eq(a.reallocs, 0);
                ck_assert_uint_eq(a.last_size, first);
            } else { /* outgrown: doubled from there */
                size_t want = first;
                while (want < n + extra)
                    want *= 2;
                ck_assert_uint_ge(a.reallocs, 1);
                ck_assert_uint_eq(a.last_size, want);
            }
            ak_buffer_free(reg, out);
        }
        /* A document built by hand has no such size: 4 KiB first, as before. */
        ak_doc *copy = ak_doc_clone(d);
        ck_assert_ptr_nonnull(copy);
        echo_extra = 0;
        a.allocs = a.reallocs = 0;
        unsigned char *out;
        size_t size;
        ck_assert_int_eq(ak_write(reg, copy, NULL, &out, &size, &rep), AK_OK);
        ck_assert_uint_eq(size, n);
        ck_assert_uint_eq(a.allocs, 1);
        ck_assert_uint_eq(a.last_size, n <= 4096 ? 4096 : 131072);
        ak_buffer_free(reg, out);
        ak_doc_free(copy);
        ak_doc_free(d);
        free(file);
    }
    ak_registry_free(reg);
}
END_TEST

START_TEST(documents_outlive_their_registry)
{
    ak_registry *reg = open_with(0, NULL);
    ak_doc *warm = read_bulk(reg, 30000);
    ak_doc_free(warm); /* the pool now holds blocks */
    ak_doc *a = read_bulk(reg, 30000);
    ak_doc *b = read_bulk(reg, 20000);
    ak_registry_free(reg);
    check_values(a, 30000);
    ak_doc_free(a); /* gives its blocks to a pool whose registry is gone */
    check_values(b, 20000);
    ak_doc_free(b); /* the last reference: the pool goes (the sanitizer run checks nothing leaks) */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pool");
    TCase *tc = tcase_create("pool");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_freed_documents_blocks_serve_the_next_read);
    tcase_add_test(tc, zeroed_scratch_from_a_reused_block_is_zero);
    tcase_add_test(tc, the_pool_is_bounded);
    tcase_add_test(tc, recent_sizes_push_out_old_ones);
    tcase_add_test(tc, output_buffers_go_back_to_the_pool);
    tcase_add_test(tc, no_pool_flag_keeps_nothing);
    tcase_add_test(tc, a_host_allocator_gets_everything_back);
    tcase_add_test(tc, documents_outlive_their_registry);
    tcase_add_test(tc, a_same_format_write_takes_one_block_of_the_files_size);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
