/* pool.c - blocks that freed documents, scratch memory and output buffers
 * leave to the next read or write. A read into fresh memory spends more
 * time in the kernel's page faults than in decoding (ped_cretaceous.ifp:
 * 460 MB/s into fresh pages, 836 MB/s into reused ones; a 100 KB .anm file
 * 166 against 486), and malloc gives large blocks back to the kernel as
 * soon as they are freed. A host that reads file after file (a level load,
 * an editor re-reading on every change) keeps a few such blocks here
 * instead. One pool per registry, shared by the documents read through it;
 * it lives until the registry and the last of those documents are freed.
 * Only for the registry's default allocator: a host with its own allocator
 * keeps its own memory. */
#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define POOL_BLOCKS 16
#define POOL_BYTES ((size_t)64 << 20)

typedef struct pooled {
    void *ptr;
    size_t size;
} pooled;

struct ak_pool {
    ak_allocator allocator;
    atomic_size_t refs;
    pthread_mutex_t lock;
    pooled blocks[POOL_BLOCKS];
    size_t count, bytes;
    pooled lent[POOL_BLOCKS]; /* output buffers the host holds, newest last */
    size_t lent_count;
};

ak_pool *ak_pool_new(const ak_allocator *allocator)
{
    ak_pool *pool = allocator->alloc(allocator->user, sizeof *pool);
    if (!pool)
        return NULL;
    memset(pool, 0, sizeof *pool);
    if (pthread_mutex_init(&pool->lock, NULL) != 0) {
        allocator->free(allocator->user, pool);
        return NULL;
    }
    pool->allocator = *allocator;
    atomic_init(&pool->refs, 1);
    return pool;
}

void ak_pool_retain(ak_pool *pool)
{
    if (pool)
        atomic_fetch_add(&pool->refs, 1);
}

size_t ak_pool_trim(ak_pool *pool)
{
    if (!pool)
        return 0;
    pthread_mutex_lock(&pool->lock);
    size_t released = pool->bytes;
    for (size_t i = 0; i < pool->count; i++)
        pool->allocator.free(pool->allocator.user, pool->blocks[i].ptr);
    pool->count = 0;
    pool->bytes = 0;
    pthread_mutex_unlock(&pool->lock);
    return released;
}

void ak_pool_release(ak_pool *pool)
{
    if (!pool || atomic_fetch_sub(&pool->refs, 1) != 1)
        return;
    ak_pool_trim(pool);
    pthread_mutex_destroy(&pool->lock);
    pool->allocator.free(pool->allocator.user, pool);
}

/* Removes entry i of a list, keeping the order (oldest first). */
static void remove_at(pooled *items, size_t *count, size_t i)
{
    memmove(&items[i], &items[i + 1], (*count - i - 1) * sizeof items[0]);
    (*count)--;
}

static void drop(ak_pool *pool, size_t i)
{
    pool->bytes -= pool->blocks[i].size;
    remove_at(pool->blocks, &pool->count, i);
}

/* The smallest kept block of at least `size` bytes and at most twice that
 * (a small document should not sit on a large block), or NULL. */
void *ak_pool_take(ak_pool *pool, size_t size, size_t *got)
{
    if (!pool || size < AK_POOL_MIN)
        return NULL;
    pthread_mutex_lock(&pool->lock);
    size_t best = POOL_BLOCKS;
    for (size_t i = 0; i < pool->count; i++) {
        size_t s = pool->blocks[i].size;
        if (s >= size && s / 2 <= size && (best == POOL_BLOCKS || s < pool->blocks[best].size))
            best = i;
    }
    void *p = NULL;
    if (best < POOL_BLOCKS) {
        p = pool->blocks[best].ptr;
        *got = pool->blocks[best].size;
        drop(pool, best);
    }
    pthread_mutex_unlock(&pool->lock);
    return p;
}

/* Keeps the block, freeing the longest-kept ones when there is no room:
 * the sizes a host reads now matter more than those of a while ago. A
 * block the pool does not keep is freed with `allocator`. */
void ak_pool_put(ak_pool *pool, const ak_allocator *allocator, void *ptr, size_t size)
{
    if (!ptr)
        return;
    if (!pool || size < AK_POOL_MIN || size > POOL_BYTES) {
        allocator->free(allocator->user, ptr);
        return;
    }
    pthread_mutex_lock(&pool->lock);
    while (pool->count == POOL_BLOCKS || size > POOL_BYTES - pool->bytes) {
        pool->allocator.free(pool->allocator.user, pool->blocks[0].ptr);
        drop(pool, 0);
    }
    pool->blocks[pool->count++] = (pooled){ ptr, size };
    pool->bytes += size;
    pthread_mutex_unlock(&pool->lock);
}

void *ak_pool_move(ak_pool *pool, const ak_allocator *allocator, void *old, size_t keep, size_t old_size,
                   size_t size, size_t *got)
{
    void *p = size > old_size ? ak_pool_take(pool, size, got) : NULL;
    if (p) {
        if (keep)
            memcpy(p, old, keep);
        ak_pool_put(pool, allocator, old, old_size);
    }
    return p;
}

/* Forgets the lent buffer at `ptr`, if any; its size in *size. */
static int unlend(ak_pool *pool, void *ptr, size_t *size)
{
    for (size_t i = 0; i < pool->lent_count; i++)
        if (pool->lent[i].ptr == ptr) {
            *size = pool->lent[i].size;
            remove_at(pool->lent, &pool->lent_count, i);
            return 1;
        }
    return 0;
}

/* Every buffer ak_write() returns is recorded, large or not, so that an
 * address seen before never keeps a stale size; the oldest record goes
 * when there is no room (that buffer is then simply freed). */
void ak_pool_lend(ak_pool *pool, void *ptr, size_t size)
{
    if (!pool || !ptr)
        return;
    size_t old;
    pthread_mutex_lock(&pool->lock);
    unlend(pool, ptr, &old);
    if (pool->lent_count == POOL_BLOCKS)
        remove_at(pool->lent, &pool->lent_count, 0);
    pool->lent[pool->lent_count++] = (pooled){ ptr, size };
    pthread_mutex_unlock(&pool->lock);
}

int ak_pool_return(ak_pool *pool, void *ptr)
{
    if (!pool || !ptr)
        return 0;
    size_t size = 0;
    pthread_mutex_lock(&pool->lock);
    int lent = unlend(pool, ptr, &size);
    pthread_mutex_unlock(&pool->lock);
    if (lent)
        ak_pool_put(pool, &pool->allocator, ptr, size);
    return lent;
}
