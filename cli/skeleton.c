/* skeleton.c - the CLI's --skeleton FILE: loading a model's skeleton,
 * attaching it to every document read, and what info prints about it. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

/* Deeper levels are not indented further: a hostile chain of a million
 * bones must not print a million spaces per line. */
#define MAX_INDENT 32

int cli_skeleton_load(cli *c)
{
    if (!c->skeleton)
        return 0;
    ak_report rep = { 0 };
    ak_options o = { sizeof o, NULL, c->skeleton, NULL, 0, 0 }; /* probed, whatever --format says */
    ak_status st = ak_read_file(c->reg, c->skeleton, &o, &c->skeleton_doc, &rep);
    if (st != AK_OK) {
        fprintf(stderr, "animkit: --skeleton: ");
        cli_put_text(stderr, rep.message); /* may quote names from the file */
        fputc('\n', stderr);
        return ak_status_exit(st);
    }
    if (!c->skeleton_doc->skeleton.bone_count) {
        fprintf(stderr, "animkit: --skeleton: %s: the %s file holds no skeleton\n", c->skeleton,
                c->skeleton_doc->format);
        return EX_DATAERR;
    }
    return 0;
}

void cli_skeleton_free(cli *c)
{
    ak_doc_free(c->skeleton_doc);
    c->skeleton_doc = NULL;
}

int cli_skeleton_attach(cli *c, ak_doc *doc, const char *path)
{
    if (!c->skeleton_doc)
        return 0;
    ak_status st = ak_doc_attach_skeleton(doc, c->skeleton_doc);
    if (st != AK_OK) {
        fprintf(stderr, "animkit: %s: attaching the skeleton of %s: %s\n", path, c->skeleton, ak_status_name(st));
        return ak_status_exit(st);
    }
    return 0;
}

/* A track as a person finds it: its name, else its id or hash. */
static void track_label(const ak_track *t, char *buf, size_t size)
{
    if (t->bone[0])
        snprintf(buf, size, "%s", t->bone);
    else if (t->has_bone_id)
        snprintf(buf, size, "id %ld", (long)t->bone_id);
    else if (t->has_bone_hash)
        snprintf(buf, size, "hash 0x%08lx", (unsigned long)t->bone_hash);
    else
        snprintf(buf, size, "(unnamed)");
}

/* The bones of `doc` that no track of `clip` drives, listed with -v. */
static void print_unmatched_bones(const ak_doc *doc, const ak_clip *clip)
{
    size_t n = doc->skeleton.bone_count;
    unsigned char *used = calloc(n, 1);
    if (!used) {
        printf("      (out of memory listing the unmatched bones)\n");
        return;
    }
    for (size_t i = 0; i < clip->track_count; i++) {
        int32_t b = clip->tracks[i]->skeleton_bone;
        if (b >= 0 && (size_t)b < n)
            used[b] = 1;
    }
    for (size_t b = 0; b < n; b++)
        if (!used[b]) {
            printf("      bone without a track: \"");
            cli_put_text(stdout, doc->skeleton.bones[b].name);
            printf("\"\n");
        }
    free(used);
}

void cli_skeleton_info_clip(const ak_doc *doc, const ak_clip *clip, int verbose)
{
    if (!doc->skeleton.bone_count)
        return;
    printf("    skeleton: %zu bones, %zu of %zu tracks matched\n", doc->skeleton.bone_count,
           ak_clip_skeleton_matched(clip), clip->track_count);
    if (!verbose)
        return;
    for (size_t i = 0; i < clip->track_count; i++) {
        if (clip->tracks[i]->skeleton_bone >= 0)
            continue;
        char label[300];
        track_label(clip->tracks[i], label, sizeof label);
        printf("      unmatched track: \"");
        cli_put_text(stdout, label);
        printf("\"\n");
    }
    print_unmatched_bones(doc, clip);
}

void cli_skeleton_info_json_clip(const ak_doc *doc, const ak_clip *clip)
{
    if (!doc->skeleton.bone_count)
        return;
    printf(",\"skeleton\":{\"bones\":%zu,\"tracks_matched\":%zu,\"tracks_unmatched\":[", doc->skeleton.bone_count,
           ak_clip_skeleton_matched(clip));
    int first = 1;
    for (size_t i = 0; i < clip->track_count; i++) {
        if (clip->tracks[i]->skeleton_bone >= 0)
            continue;
        char label[300];
        track_label(clip->tracks[i], label, sizeof label);
        printf("%s", first ? "" : ",");
        cli_json_string(label);
        first = 0;
    }
    printf("]}");
}

static void print_bone(const ak_bone *b, size_t depth)
{
    printf("    %*s\"", (int)(2 * (depth < MAX_INDENT ? depth : MAX_INDENT)), "");
    cli_put_text(stdout, b->name);
    printf("\"");
    if (b->has_id)
        printf(" id %ld", (long)b->id);
    if (b->has_hash)
        printf(" hash 0x%08lx", (unsigned long)b->hash);
    printf(": at (%.6g, %.6g, %.6g) rotation (%.6g, %.6g, %.6g, %.6g)", b->translation[0], b->translation[1],
           b->translation[2], b->rotation[0], b->rotation[1], b->rotation[2], b->rotation[3]);
    if (b->scale[0] != 1 || b->scale[1] != 1 || b->scale[2] != 1)
        printf(" scale (%.6g, %.6g, %.6g)", b->scale[0], b->scale[1], b->scale[2]);
    printf("\n");
}

/* Children lists threaded through two arrays, then a depth-first walk with
 * an explicit stack, so each child prints under its parent. A parent that
 * is out of range or not before its child (ak_doc_validate reports those)
 * makes the bone a root here, which also keeps cycles from looping. */
void cli_skeleton_tree(const ak_doc *doc)
{
    const ak_skeleton *sk = &doc->skeleton;
    size_t n = sk->bone_count;
    if (!n)
        return;
    printf("  skeleton: %zu bones\n", n);
    size_t *first_child = malloc(n * sizeof *first_child), *next = malloc(n * sizeof *next);
    size_t *stack = malloc(n * sizeof *stack), *depth = malloc(n * sizeof *depth);
    if (!first_child || !next || !stack || !depth) {
        printf("    (out of memory printing the bone tree)\n");
    } else {
        const size_t none = (size_t)-1;
        size_t top = 0;
        for (size_t i = 0; i < n; i++)
            first_child[i] = none;
        for (size_t i = n; i-- > 0;) { /* backwards, so that lists keep the bones' order */
            int32_t p = sk->bones[i].parent;
            int root = p < 0 || (size_t)p >= i;
            next[i] = root ? none : first_child[p];
            if (!root)
                first_child[p] = i;
        }
        for (size_t i = n; i-- > 0;) {
            int32_t p = sk->bones[i].parent;
            if (p < 0 || (size_t)p >= i) {
                stack[top] = i;
                depth[top++] = 0;
            }
        }
        while (top) {
            top--;
            size_t b = stack[top], d = depth[top];
            print_bone(&sk->bones[b], d);
            /* Push the children last-first so the first prints first. */
            size_t from = top;
            for (size_t ch = first_child[b]; ch != none; ch = next[ch]) {
                stack[top] = ch;
                depth[top++] = d + 1;
            }
            for (size_t lo = from, hi = top; hi > lo + 1; lo++, hi--) {
                size_t t = stack[lo];
                stack[lo] = stack[hi - 1];
                stack[hi - 1] = t;
            }
        }
    }
    free(first_child);
    free(next);
    free(stack);
    free(depth);
}
