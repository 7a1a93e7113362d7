/* scratch.c - a job's scratch memory. Plugins need working space (sort
 * orders, decoded tables) beside the document; taking it from the same
 * heap keeps it under the read's limit and the host's allocator (so fault
 * injection reaches it too), and the job frees what a plugin forgot. The
 * first few KiB come from a buffer on the caller's stack instead: fixed in
 * size, they need no limit, and most small files need nothing more. */
#include "internal.h"

#include <stddef.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__) /* gcc */
#define AK_ASAN 1
#elif defined(__has_feature) /* clang */
#if __has_feature(address_sanitizer)
#define AK_ASAN 1
#endif
#endif

#ifdef AK_ASAN
#include <sanitizer/asan_interface.h>
/* Under AddressSanitizer the free part of the stack buffer is poisoned and
 * blocks keep a gap between them, so that an overrun of a block carved
 * there is caught as it would be on the heap. */
#define STACK_GAP 32u
#define poison(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define unpoison(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define STACK_GAP 0u
#define poison(p, n) ((void)(p), (void)(n))
#define unpoison(p, n) ((void)(p), (void)(n))
#endif

enum { FROM_HEAP, RESERVATION, FROM_STACK };

/* Each block starts with its header; the union keeps what follows aligned
 * for any type. Only heap blocks and reservations are linked: the stack
 * buffer needs nothing freed. */
typedef union ak_scratch {
    struct {
        union ak_scratch *prev, *next;
        size_t size; /* of the whole block, header included */
        int from; /* FROM_HEAP, RESERVATION (only the header is allocated), FROM_STACK */
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

void ak_job_use_stack(ak_job *job, void *buffer, size_t size)
{
    job->stack = buffer;
    job->stack_size = size - size % sizeof(ak_scratch);
    job->stack_used = 0;
    poison(job->stack, job->stack_size);
}

/* The part of the buffer a block of `total` bytes (header included) takes:
 * rounded to the header's alignment, plus the gap. `total` <= stack_size. */
static size_t stack_span(size_t total)
{
    return total + (sizeof(ak_scratch) - total % sizeof(ak_scratch)) % sizeof(ak_scratch) + STACK_GAP;
}

static int stack_fits(const ak_job *job, size_t used, size_t total)
{
    return job->stack && total <= job->stack_size && stack_span(total) <= job->stack_size - used;
}

/* A block of `total` bytes from the stack buffer, or NULL when it has no
 * room (the heap then serves). */
static ak_scratch *stack_block(ak_job *job, size_t total)
{
    if (!stack_fits(job, job->stack_used, total))
        return NULL;
    ak_scratch *b = (ak_scratch *)(job->stack + job->stack_used);
    unpoison(b, total);
    job->stack_used += stack_span(total);
    b->h.size = total;
    b->h.from = FROM_STACK;
    return b;
}

static int is_last_on_stack(const ak_job *job, const ak_scratch *b)
{
    return (const unsigned char *)b + stack_span(b->h.size) == job->stack + job->stack_used;
}

/* Only the last block's room comes back; the rest returns when the job ends. */
static void stack_free(ak_job *job, ak_scratch *b)
{
    size_t span = stack_span(b->h.size);
    if (is_last_on_stack(job, b))
        job->stack_used -= span;
    poison(b, span);
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

/* A new block of `total` bytes: from the stack buffer while it has room,
 * else from the heap (linked, so that the job frees it). */
static ak_scratch *new_block(ak_job *job, size_t total)
{
    ak_scratch *b = stack_block(job, total);
    if (b)
        return b;
    b = ak_heap_alloc_pooled(job->heap, total);
    if (!b)
        return NULL;
    b->h.from = FROM_HEAP;
    link_block(job, b, total);
    return b;
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
    ak_scratch *b = new_block(job, total);
    return b ? b + 1 : NULL;
}

void *ak_job_alloc(ak_job *job, size_t count, size_t size)
{
    void *p = ak_job_alloc_uninit(job, count, size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

/* A stack block resized: in place when it is the last one and the buffer
 * has room, else moved (to the stack or the heap); any new part zeroed. */
static void *stack_realloc(ak_job *job, ak_scratch *old, size_t total)
{
    size_t old_total = old->h.size;
    if (is_last_on_stack(job, old)) {
        size_t base = job->stack_used - stack_span(old_total);
        if (stack_fits(job, base, total)) {
            poison(old, stack_span(old_total));
            unpoison(old, total);
            if (total > old_total)
                memset((unsigned char *)old + old_total, 0, total - old_total);
            old->h.size = total;
            job->stack_used = base + stack_span(total);
            return old + 1;
        }
    }
    ak_scratch *b = new_block(job, total);
    if (!b)
        return NULL;
    size_t keep = old_total < total ? old_total : total;
    memcpy(b + 1, old + 1, keep - sizeof *old);
    if (total > keep)
        memset((unsigned char *)b + keep, 0, total - keep);
    stack_free(job, old);
    return b + 1;
}

void *ak_job_realloc(ak_job *job, void *ptr, size_t count, size_t size)
{
    if (!ptr)
        return ak_job_alloc(job, count, size);
    size_t total;
    if (!block_size(job, count, size, &total))
        return NULL;
    ak_scratch *old = header_of(ptr);
    if (old->h.from == FROM_STACK)
        return stack_realloc(job, old, total);
    size_t old_total = old->h.size;
    unlink_block(job, old);
    ak_scratch *b = ak_heap_realloc(job->heap, old, old_total, total);
    if (!b) {
        link_block(job, old, old_total); /* still the caller's, still counted */
        return NULL;
    }
    if (total > old_total)
        memset((unsigned char *)b + old_total, 0, total - old_total);
    b->h.from = FROM_HEAP;
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
    b->h.from = RESERVATION;
    return b + 1;
}

void ak_job_free(ak_job *job, void *ptr)
{
    if (!ptr)
        return;
    ak_scratch *b = header_of(ptr);
    if (b->h.from == FROM_STACK) {
        stack_free(job, b);
        return;
    }
    unlink_block(job, b);
    if (b->h.from == RESERVATION)
        ak_heap_free(job->heap, b, b->h.size);
    else
        ak_heap_free_pooled(job->heap, b, b->h.size);
}

void ak_job_release_scratch(ak_job *job)
{
    while (job->scratch)
        ak_job_free(job, job->scratch + 1);
    unpoison(job->stack, job->stack_size); /* the caller's stack again */
    job->stack = NULL;
    job->stack_size = job->stack_used = 0;
}
