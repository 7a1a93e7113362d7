/* validate_skeleton.c - checks of a document's bone hierarchy and rest pose.
 *
 * Everything here is linear (or n log n) in the bone count: a skeleton read
 * from a hostile file may hold millions of bones, and validation must not
 * turn that into a hang. */
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bone_checker {
    const ak_doc *doc;
    const char *file;
    ak_report *report;
    unsigned errors;
} bone_checker;

static void bone_error(bone_checker *ck, size_t index, const char *fmt, ...) AK_PRINTF(3, 4);

static void bone_error(bone_checker *ck, size_t index, const char *fmt, ...)
{
    char text[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    ak_report_emit(ck->report, AK_ERROR, AK_E_DATA, ck->file, NULL, -1, "skeleton: bone '%s' (index %zu): %s",
                   ck->doc->skeleton.bones[index].name, index, text);
    ck->errors++;
}

static int all_finite(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

static void check_rest_pose(bone_checker *ck, size_t i)
{
    const ak_bone *b = &ck->doc->skeleton.bones[i];
    if (!all_finite(b->translation, 3))
        bone_error(ck, i, "rest translation is not finite");
    if (!all_finite(b->scale, 3))
        bone_error(ck, i, "rest scale is not finite");
    const double *q = b->rotation;
    if (!all_finite(q, 4)) {
        bone_error(ck, i, "rest rotation is not finite");
        return;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (fabs(n - 1) > 0.01)
        bone_error(ck, i, "rest rotation is not a unit quaternion (norm %g)", n);
}

/* A parent must be a bone that comes earlier; that alone rules out cycles,
 * which are named as such when a parent chain returns to where it began. */
static void check_parent(bone_checker *ck, size_t i)
{
    const ak_skeleton *sk = &ck->doc->skeleton;
    int32_t p = sk->bones[i].parent;
    if (p == -1)
        return;
    if (p < -1 || (size_t)p >= sk->bone_count)
        bone_error(ck, i, "parent index %ld is out of range (%zu bones)", (long)p, sk->bone_count);
    else if ((size_t)p == i)
        bone_error(ck, i, "is its own parent");
    else if ((size_t)p > i)
        bone_error(ck, i, "parent '%s' (index %ld) comes after it; parents must come before their children",
                   sk->bones[p].name, (long)p);
}

/* Follows parent links from every bone, stamping each bone with the walk
 * that reached it first: a walk that meets its own stamp has gone round a
 * cycle. Each bone is visited once, so this is linear. */
static void check_cycles(bone_checker *ck, uint32_t *stamp)
{
    const ak_skeleton *sk = &ck->doc->skeleton;
    size_t n = sk->bone_count;
    for (size_t start = 0; start < n; start++) {
        size_t b = start;
        while (!stamp[b]) {
            stamp[b] = (uint32_t)start + 1;
            int32_t p = sk->bones[b].parent;
            if (p < 0 || (size_t)p >= n || (size_t)p == b)
                break; /* a root, or reported by check_parent */
            b = (size_t)p;
            if (stamp[b] == (uint32_t)start + 1) {
                size_t len = 1;
                for (int32_t q = sk->bones[b].parent; (size_t)q != b; q = sk->bones[q].parent)
                    len++;
                bone_error(ck, b, "is its own ancestor: a parent cycle of %zu bones", len);
                break;
            }
        }
    }
}

typedef struct bone_key {
    const char *name;
    int32_t id;
    uint32_t index;
} bone_key;

static int by_name(const void *a, const void *b)
{
    const bone_key *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static int by_id(const void *a, const void *b)
{
    const bone_key *x = a, *y = b;
    if (x->id != y->id)
        return (x->id > y->id) - (x->id < y->id);
    return (x->index > y->index) - (x->index < y->index);
}

/* Sorts the bones that have the key and reports each one that repeats the
 * key of an earlier bone, naming the first. */
static void check_duplicates(bone_checker *ck, bone_key *keys, int ids)
{
    const ak_skeleton *sk = &ck->doc->skeleton;
    size_t n = 0;
    for (size_t i = 0; i < sk->bone_count; i++) {
        const ak_bone *b = &sk->bones[i];
        if (ids ? !b->has_id : b->name[0] == '\0')
            continue; /* bones known only by hash or id have no name to repeat */
        keys[n].name = b->name;
        keys[n].id = b->id;
        keys[n].index = (uint32_t)i;
        n++;
    }
    qsort(keys, n, sizeof *keys, ids ? by_id : by_name);
    for (size_t i = 1, first = 0; i < n; i++) {
        int same = ids ? keys[i].id == keys[first].id : strcmp(keys[i].name, keys[first].name) == 0;
        if (!same) {
            first = i;
            continue;
        }
        if (ids)
            bone_error(ck, keys[i].index, "id %ld is also the id of bone '%s' (index %lu)", (long)keys[i].id,
                       sk->bones[keys[first].index].name, (unsigned long)keys[first].index);
        else
            bone_error(ck, keys[i].index, "the name is also that of bone index %lu", (unsigned long)keys[first].index);
    }
}

unsigned ak_validate_skeleton(const ak_doc *doc, const char *file, ak_report *report)
{
    bone_checker ck = { doc, file, report, 0 };
    const ak_skeleton *sk = &doc->skeleton;
    if (!sk->bone_count)
        return 0;
    for (size_t i = 0; i < sk->bone_count; i++) {
        check_parent(&ck, i);
        check_rest_pose(&ck, i);
    }
    const ak_allocator *a = &doc->private_->heap.allocator;
    size_t n = sk->bone_count;
    uint32_t *stamp = a->alloc(a->user, n * sizeof *stamp);
    bone_key *keys = a->alloc(a->user, n * sizeof *keys);
    if (stamp && keys) {
        memset(stamp, 0, n * sizeof *stamp);
        check_cycles(&ck, stamp);
        check_duplicates(&ck, keys, 0);
        check_duplicates(&ck, keys, 1);
    } else {
        ak_report_emit(report, AK_WARNING, AK_OK, file, NULL, -1,
                       "skeleton: out of memory: cycles and duplicate names/ids were not checked");
    }
    if (stamp)
        a->free(a->user, stamp);
    if (keys)
        a->free(a->user, keys);
    return ck.errors;
}
