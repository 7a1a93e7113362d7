/* scratch.c - a job's scratch memory. Plugins need working space (sort
 * orders, decoded tables) beside the document; taking it from the same
 * heap keeps it under the read's limit and the host's allocator (so fault
 * injection reaches it too), and the job frees what a plugin forgot. */
#include "internal.h"

#include <stddef.h>
#include <string.h>

/* Each block starts with its header; the union keeps what follows aligned
 * for any type. */
typedef union ak_scratch {
    struct {
        union ak_scratch *prev, *next;
        size_t size; /* of the whole block, header included */
        int reservation; /* only the header is allocated (ak_job_reserve) */
    } h;
    max_align_t align_;
} ak_scratch;

static ak_scratch *header_of(void *ptr) { return (ak_scratch *)ptr - 1; }

static void link_block(ak_job *job, ak_scratch *b, size_t size)
{
    b->h.size = size;
    b->h.prev = NULL;
    b->h.next = job->scratch;
    if (job->scratch)
        job->scratch->h.prev = b;
    job->scratch = b;
}

static void unlink_block(ak_job *job, ak_scratch *b)
{
    if (b->h.prev)
        b->h.prev->h.next = b->h.next;
    else
        job->scratch = b->h.next;
    if (b->h.next)
        b->h.next->h.prev = b->h.prev;
}

/* The whole block for `count` items of `size` bytes, or 0 (job failed). */
static int block_size(ak_job *job, size_t count, size_t size, size_t *total)
{
    if (size && count > (SIZE_MAX - sizeof(ak_scratch)) / size) {
        ak_fail(job, AK_E_LIMIT, -1, "a scratch buffer of %zu x %zu bytes cannot be allocated", count, size);
        return 0;
    }
    *total = sizeof(ak_scratch) + count * size;
    return 1;
}

void *ak_job_alloc_uninit(ak_job *job, size_t count, size_t size)
{
    size_t total;
    if (!job->heap) {
        ak_fail(job, AK_E_NOMEM, -1, "no scratch memory outside a read or write");
        return NULL;
    }
    if (!block_size(job, count, size, &total))
        return NULL;
    ak_scratch *b = ak_heap_alloc_pooled(job->heap, total);
    if (!b)
        return NULL;
    b->h.reservation = 0;
    link_block(job, b, total);
    return b + 1;
}

void *ak_job_alloc(ak_job *job, size_t count, size_t size)
{
    void *p = ak_job_alloc_uninit(job, count, size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

void *ak_job_realloc(ak_job *job, void *ptr, size_t count, size_t size)
{
    if (!ptr)
        return ak_job_alloc(job, count, size);
    size_t total;
    if (!block_size(job, count, size, &total))
        return NULL;
    ak_scratch *old = header_of(ptr);
    size_t old_total = old->h.size;
    unlink_block(job, old);
    ak_scratch *b = ak_heap_realloc(job->heap, old, old_total, total);
    if (!b) {
        link_block(job, old, old_total); /* still the caller's, still counted */
        return NULL;
    }
    if (total > old_total)
        memset((unsigned char *)b + old_total, 0, total - old_total);
    b->h.reservation = 0;
    link_block(job, b, total);
    return b + 1;
}

void *ak_job_reserve(ak_job *job, size_t bytes, const char *what)
{
    if (!job->heap) {
        ak_fail(job, AK_E_NOMEM, -1, "no memory can be reserved outside a read or write");
        return NULL;
    }
    ak_heap *heap = job->heap;
    if (!ak_heap_grant(heap, bytes, what))
        return NULL;
    if (heap->limit && (bytes > heap->limit || heap->used > heap->limit - bytes)) {
        ak_fail(job, AK_E_LIMIT, -1, "%s would need about %zu bytes of memory, more than the %zu bytes "
                "this read may use", what, bytes, heap->limit);
        return NULL;
    }
    /* Only the header is allocated (through the host's allocator, so fault
     * injection reaches a reservation too); `bytes` are only counted. */
    ak_scratch *b = ak_heap_alloc(heap, sizeof *b);
    if (!b)
        return NULL;
    heap->used += bytes;
    link_block(job, b, sizeof *b + bytes);
    b->h.reservation = 1;
    return b + 1;
}

void ak_job_free(ak_job *job, void *ptr)
{
    if (!ptr)
        return;
    ak_scratch *b = header_of(ptr);
    unlink_block(job, b);
    if (b->h.reservation)
        ak_heap_free(job->heap, b, b->h.size);
    else
        ak_heap_free_pooled(job->heap, b, b->h.size);
}

void ak_job_release_scratch(ak_job *job)
{
    while (job->scratch)
        ak_job_free(job, job->scratch + 1);
}
