/* edit.c - the edit commands: replace, merge, split, rename, remove, bones,
 * retime and diff. Each reads any readable format, edits through the
 * library's editing calls and writes atomically: to -o OUT (never over an
 * existing file without --force) or, with --in-place, over the input. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sysexits.h>

static int usage(const char *text)
{
    fprintf(stderr, "animkit: usage: animkit %s\n", text);
    return EX_USAGE;
}

static int fail(int rc, const char *path, const char *what)
{
    fprintf(stderr, "animkit: %s: %s\n", path, what);
    return rc;
}

/* -o OUT, or the input itself with --in-place. */
static int destination(cli *c, const char *in, const char **out, unsigned *flags)
{
    if (c->output && c->in_place)
        return usage("give either -o OUT or --in-place, not both");
    if (!c->output && !c->in_place)
        return usage("edits write to -o OUT, or over the input with --in-place");
    if (c->in_place && cli_is_stdio(in))
        return usage("--in-place cannot replace standard input; write to -o OUT (or -o -)");
    *out = c->output ? c->output : in;
    *flags = c->in_place || c->force ? AK_WRITE_OVERWRITE : 0;
    return 0;
}

static int write_doc(cli *c, const ak_doc *doc, const char *out, unsigned flags)
{
    ak_report rep = { 0 };
    rep.on_message = cli_print_message;
    ak_options o = { sizeof o, c->to, out, c->params, 0, 0 };
    if (cli_is_stdio(out))
        return cli_write_stdout(c, doc, &o);
    return ak_status_exit(ak_write_file(c->reg, doc, out, &o, flags, &rep));
}

/* Writes the edited document where -o / --in-place say, then frees it. */
static int finish(cli *c, ak_doc *doc, const char *in, int rc)
{
    const char *out;
    unsigned flags;
    if (!rc)
        rc = destination(c, in, &out, &flags);
    if (!rc)
        rc = write_doc(c, doc, out, flags);
    ak_doc_free(doc);
    return rc;
}

static int status_rc(ak_status st, const char *path)
{
    if (st == AK_OK)
        return 0;
    fprintf(stderr, "animkit: %s: %s\n", path, ak_status_name(st));
    return ak_status_exit(st);
}

int cmd_replace(cli *c)
{
    static const char use[] = "replace X Y --clip B [--as A] (-o OUT | --in-place)";
    if (c->arg_count != 2 || c->clip_count != 1)
        return usage(use);
    ak_doc *x, *y;
    int rc = cli_read(c, c->args[0], &x, c->verbose);
    if (rc)
        return rc;
    rc = cli_read(c, c->args[1], &y, c->verbose);
    if (rc) {
        ak_doc_free(x);
        return rc;
    }
    const ak_clip *donor = ak_doc_find_clip(y, c->clips[0]);
    if (!donor)
        rc = fail(EX_DATAERR, c->args[1], "no clip of that name (see animkit info)");
    else
        rc = status_rc(ak_doc_put_clip(x, donor, c->as, NULL), c->args[0]);
    rc = finish(c, x, c->args[0], rc);
    ak_doc_free(y);
    return rc;
}

int cmd_merge(cli *c)
{
    if (c->arg_count < 1 || !c->output)
        return usage("merge A B... -o OUT");
    ak_doc *all = ak_doc_new();
    if (!all)
        return EX_OSERR;
    int rc = 0;
    for (int i = 0; i < c->arg_count && !rc; i++) {
        ak_doc *one;
        rc = cli_read(c, c->args[i], &one, c->verbose);
        if (!rc) {
            rc = status_rc(ak_doc_merge(all, one), c->args[i]);
            ak_doc_free(one);
        }
    }
    return finish(c, all, c->args[0], rc);
}

/* A clip name as a file name: no folders, no hidden files, no controls. */
static void safe_name(const char *name, char *buf, size_t size)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p && n + 1 < size; p++) {
        int bad = *p < 0x20 || *p == 0x7f || *p == '/' || *p == '\\' || (n == 0 && *p == '.');
        buf[n] = bad ? '_' : (char)*p;
        n++;
    }
    if (n == 0)
        buf[n++] = '_';
    buf[n] = '\0';
}

/* The plugin's first extension: "ifp" of "ifp". */
static int format_extension(cli *c, const char *format, char *ext, size_t size)
{
    const ak_plugin_info *p = format && format[0] ? ak_registry_find(c->reg, format) : NULL;
    if (!p || !p->codec->write)
        return 0;
    size_t n = strcspn(p->codec->extensions, ",");
    if (n >= size)
        n = size - 1;
    memcpy(ext, p->codec->extensions, n);
    ext[n] = '\0';
    return 1;
}

/* DIR/NAME.EXT, unique among the `used` names of this split. */
static char *split_path(const char *dir, const char *clip, const char *ext, char **used, size_t count)
{
    char base[256];
    safe_name(clip, base, sizeof base - 16);
    char name[300];
    snprintf(name, sizeof name, "%s", base);
    for (int n = 2;; n++) {
        size_t i = 0;
        while (i < count && strcasecmp(used[i], name))
            i++;
        if (i == count)
            break;
        snprintf(name, sizeof name, "%s~%d", base, n);
    }
    size_t len = strlen(dir) + strlen(name) + strlen(ext) + 3;
    char *path = malloc(len);
    if (path)
        snprintf(path, len, "%s/%s.%s", dir, name, ext);
    return path;
}

int cmd_split(cli *c)
{
    if (c->arg_count != 1 || !c->output)
        return usage("split X -o FOLDER [--to FORMAT] [--force]");
    if (cli_is_stdio(c->output))
        return usage("split writes a file per clip into a folder; standard output holds one file");
    ak_doc *doc;
    int rc = cli_read(c, c->args[0], &doc, c->verbose);
    if (rc)
        return rc;
    char ext[32];
    if (!format_extension(c, c->to ? c->to : doc->format, ext, sizeof ext)) {
        ak_doc_free(doc);
        return fail(EX_USAGE, c->args[0], "name a format that can be written with --to");
    }
    if (mkdir(c->output, 0777) != 0 && errno != EEXIST) {
        ak_doc_free(doc);
        return fail(EX_CANTCREAT, c->output, "cannot create the folder");
    }
    char **used = calloc(doc->clip_count + 1, sizeof *used);
    if (!used) {
        ak_doc_free(doc);
        return EX_OSERR;
    }
    for (size_t i = 0; i < doc->clip_count; i++) {
        char *path = split_path(c->output, doc->clips[i]->name, ext, used, i);
        ak_doc *one = path ? ak_doc_extract_clip(doc, i) : NULL;
        if (!one) {
            free(path);
            rc = cli_worse(rc, EX_OSERR);
            break;
        }
        rc = cli_worse(rc, write_doc(c, one, path, c->force ? AK_WRITE_OVERWRITE : 0));
        ak_doc_free(one);
        /* Remember the name part (after the folder) for the uniqueness test. */
        char *slash = strrchr(path, '/');
        memmove(path, slash + 1, strlen(slash + 1) + 1);
        *strrchr(path, '.') = '\0';
        used[i] = path;
    }
    for (size_t i = 0; i < doc->clip_count; i++)
        free(used[i]);
    free(used);
    ak_doc_free(doc);
    return rc;
}

int cmd_rename(cli *c)
{
    if (c->arg_count != 3)
        return usage("rename X OLD NEW (-o OUT | --in-place)");
    ak_doc *doc;
    int rc = cli_read(c, c->args[0], &doc, c->verbose);
    if (rc)
        return rc;
    long i = ak_doc_clip_index(doc, c->args[1]);
    if (i < 0)
        rc = fail(EX_DATAERR, c->args[0], "no clip of that name (see animkit info)");
    else
        rc = status_rc(ak_clip_set_name(doc->clips[i], c->args[2]), c->args[0]);
    return finish(c, doc, c->args[0], rc);
}

int cmd_remove(cli *c)
{
    if (c->arg_count < 2)
        return usage("remove X NAME... (-o OUT | --in-place)");
    ak_doc *doc;
    int rc = cli_read(c, c->args[0], &doc, c->verbose);
    if (rc)
        return rc;
    for (int a = 1; a < c->arg_count && !rc; a++) {
        long i = ak_doc_clip_index(doc, c->args[a]);
        if (i < 0) {
            fprintf(stderr, "animkit: %s: no clip named '%s'\n", c->args[0], c->args[a]);
            rc = EX_DATAERR;
        } else
            ak_clip_remove(doc, (size_t)i);
    }
    return finish(c, doc, c->args[0], rc);
}

/* ---- bones ------------------------------------------------------------------- */

typedef struct pairs {
    char **from, **to;
    size_t count, capacity;
} pairs;

static int add_pair(pairs *p, const char *line)
{
    const char *eq = strchr(line, '=');
    if (!eq || eq == line)
        return 0;
    if (p->count == p->capacity) {
        size_t cap = p->capacity ? p->capacity * 2 : 32;
        char **f = realloc(p->from, cap * sizeof *f);
        if (f)
            p->from = f;
        char **t = f ? realloc(p->to, cap * sizeof *t) : NULL;
        if (!t)
            return -1;
        p->to = t;
        p->capacity = cap;
    }
    p->from[p->count] = strndup(line, (size_t)(eq - line));
    p->to[p->count] = strdup(eq + 1);
    if (!p->from[p->count] || !p->to[p->count]) {
        free(p->from[p->count]);
        free(p->to[p->count]);
        return -1;
    }
    p->count++;
    return 1;
}

/* A map file: OLD=NEW per line, split at the first '='; names are taken
 * as written (GTA's " Pelvis" keeps its space); '#' starts a comment line. */
static int read_map(const char *path, pairs *p)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return fail(EX_NOINPUT, path, "cannot open the bone map");
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int rc = 0;
    for (long n = 1; !rc && (got = getline(&line, &cap, fp)) >= 0; n++) {
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = '\0';
        if (got == 0 || line[0] == '#')
            continue;
        int r = add_pair(p, line);
        if (r < 0)
            rc = EX_OSERR;
        else if (r == 0) {
            fprintf(stderr, "animkit: %s:%ld: want OLD=NEW\n", path, n);
            rc = EX_DATAERR;
        }
    }
    free(line);
    fclose(fp);
    return rc;
}

static void free_pairs(pairs *p)
{
    for (size_t i = 0; i < p->count; i++) {
        free(p->from[i]);
        free(p->to[i]);
    }
    free(p->from);
    free(p->to);
}

static int assign_ids(cli *c, ak_doc *doc)
{
    size_t n = 0; /* c->skeleton_doc was read and checked for bones by cli_skeleton_load */
    int rc = status_rc(ak_doc_assign_bone_ids(doc, c->skeleton_doc, &n), c->args[0]);
    if (!rc)
        fprintf(stderr, "animkit: %s: %zu tracks given bone ids from %s\n", c->args[0], n, c->skeleton);
    return rc;
}

int cmd_bones(cli *c)
{
    static const char use[] = "bones X [OLD=NEW...] [--map FILE] [--skeleton FILE] (-o OUT | --in-place)";
    if (c->arg_count < 1 || (c->arg_count == 1 && !c->map && !c->skeleton))
        return usage(use);
    pairs p = { 0 };
    int rc = c->map ? read_map(c->map, &p) : 0;
    for (int i = 1; i < c->arg_count && !rc; i++) {
        int r = add_pair(&p, c->args[i]);
        rc = r < 0 ? EX_OSERR : r == 0 ? usage(use) : 0;
    }
    ak_doc *doc = NULL;
    if (!rc)
        rc = cli_read(c, c->args[0], &doc, c->verbose);
    if (!rc && p.count) {
        size_t n = ak_doc_rename_bones(doc, (const char *const *)p.from, (const char *const *)p.to, p.count);
        if (n == (size_t)-1)
            rc = EX_OSERR;
        else
            fprintf(stderr, "animkit: %s: %zu tracks renamed\n", c->args[0], n);
    }
    if (!rc && c->skeleton)
        rc = assign_ids(c, doc);
    free_pairs(&p);
    if (!doc)
        return rc;
    return finish(c, doc, c->args[0], rc);
}

/* ---- retime -------------------------------------------------------------------- */

static int number(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return end != s && !*end && isfinite(*v);
}

static int parse_retime(cli *c, ak_retime *how)
{
    memset(how, 0, sizeof *how);
    how->struct_size = sizeof *how;
    if (c->speed && (!number(c->speed, &how->speed) || !(how->speed > 0)))
        return usage("retime: --speed wants a factor above 0, e.g. 0.5 (half speed)");
    if (c->fps && (!number(c->fps, &how->fps) || !(how->fps > 0)))
        return usage("retime: --fps wants frames per second above 0");
    if (c->trim) {
        const char *colon = strchr(c->trim, ':');
        char t0[64];
        if (!colon || (size_t)(colon - c->trim) >= sizeof t0)
            return usage("retime: --trim wants T0:T1 in seconds, e.g. 0.5:1.25");
        memcpy(t0, c->trim, (size_t)(colon - c->trim));
        t0[colon - c->trim] = '\0';
        if (!number(t0, &how->t0) || !number(colon + 1, &how->t1) || !(how->t0 >= 0 && how->t1 > how->t0))
            return usage("retime: --trim wants T0:T1 with 0 <= T0 < T1");
        how->trim = 1;
    }
    how->reverse = c->reverse;
    if (!c->speed && !c->fps && !c->trim && !c->reverse)
        return usage("retime X [--clip NAME]... [--trim T0:T1] [--reverse] [--speed S] [--fps N] "
                     "(-o OUT | --in-place)");
    return 0;
}

/* In retime, --fps is the rate to resample to, not a hint for the reader. */
static void drop_fps_param(cli *c)
{
    int kept = 0;
    for (int i = 0; i < c->param_count; i++)
        if (strncmp(c->params[i], "fps=", 4) != 0 || strcmp(c->params[i] + 4, c->fps) != 0)
            c->params[kept++] = c->params[i];
    c->param_count = kept;
    if (c->params)
        c->params[kept] = NULL;
}

/* Keys of `clip` whose new time falls between the clip's native ticks:
 * a writer of a tick-based format rounds them. */
static size_t off_tick_keys(const ak_clip *clip)
{
    size_t n = 0;
    if (clip->tick_rate <= 0)
        return 0;
    for (size_t t = 0; t < clip->track_count; t++)
        for (int c = 0; c < AK_CHANNELS; c++) {
            const ak_channel *ch = &clip->tracks[t]->channel[c];
            for (size_t k = 0; k < ch->count; k++) {
                double ticks = ch->keys[k].time * clip->tick_rate;
                n += fabs(ticks - nearbyint(ticks)) > 1e-6;
            }
        }
    return n;
}

int cmd_retime(cli *c)
{
    ak_retime how;
    if (c->arg_count != 1)
        return usage("retime X [--clip NAME]... [--trim T0:T1] [--reverse] [--speed S] [--fps N] "
                     "(-o OUT | --in-place)");
    int rc = parse_retime(c, &how);
    if (rc)
        return rc;
    if (c->fps)
        drop_fps_param(c);
    ak_doc *doc;
    rc = cli_read(c, c->args[0], &doc, c->verbose);
    if (rc)
        return rc;
    for (int i = 0; i < c->clip_count && !rc; i++)
        if (!ak_doc_find_clip(doc, c->clips[i])) {
            fprintf(stderr, "animkit: %s: no clip named '%s'\n", c->args[0], c->clips[i]);
            rc = EX_DATAERR;
        }
    for (size_t k = 0; k < doc->clip_count && !rc; k++) {
        ak_clip *clip = doc->clips[k];
        int wanted = !c->clip_count;
        for (int i = 0; i < c->clip_count && !wanted; i++)
            wanted = ak_doc_find_clip(doc, c->clips[i]) == clip;
        if (!wanted)
            continue;
        ak_status st = ak_clip_retime(clip, &how);
        if (st != AK_OK) {
            fprintf(stderr, "animkit: %s: clip '%s': cannot retime it that way (%s; duration %g s)\n",
                    c->args[0], clip->name, ak_status_name(st), clip->duration);
            rc = ak_status_exit(st);
        }
        size_t rounded = st == AK_OK ? off_tick_keys(clip) : 0;
        if (rounded)
            fprintf(stderr, "animkit: %s: warning: clip '%s': %zu key time%s between its ticks (1/%g s), "
                            "rounded to the nearest tick when written\n",
                    c->args[0], clip->name, rounded, rounded == 1 ? " falls" : "s fall", clip->tick_rate);
    }
    return finish(c, doc, c->args[0], rc);
}

/* ---- diff ------------------------------------------------------------------------- */

/* A name in quotes; control bytes and quotes escaped so that a file's
 * names cannot drive the terminal. */
static void print_name(const char *what, const char *name)
{
    printf("%s \"", what);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
            printf("\\x%02x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void print_entry(const ak_diff_entry *e)
{
    static const char *const component[] = { "x", "y", "z", "w" };
    print_name("clip", e->clip);
    if (e->bone)
        print_name(" bone", e->bone);
    switch (e->kind) {
    case AK_DIFF_CLIP_ADDED: printf(": only in B\n"); break;
    case AK_DIFF_CLIP_REMOVED: printf(": only in A\n"); break;
    case AK_DIFF_DURATION: printf(": durations differ by %.9g s\n", e->max_diff); break;
    case AK_DIFF_TRACK_ADDED: printf(": track only in B\n"); break;
    case AK_DIFF_TRACK_REMOVED: printf(": track only in A\n"); break;
    case AK_DIFF_KEY_COUNT:
        printf(" %s: %zu keys in A, %zu in B\n", ak_channel_name(e->channel), e->count_a, e->count_b);
        break;
    case AK_DIFF_KEYS:
        printf(" %s: key %zu %s differs by %.9g (the largest difference of this channel)\n",
               ak_channel_name(e->channel), e->key,
               e->component < 0 ? "time" : e->channel == AK_VISIBILITY ? "value" : component[e->component & 3],
               e->max_diff);
        break;
    case AK_DIFF_EVENTS: printf(": events differ (%zu in A, %zu in B)\n", e->count_a, e->count_b); break;
    default: printf(": differs\n"); break;
    }
}

int cmd_diff(cli *c)
{
    if (c->arg_count != 2)
        return usage("diff A B [--tol T]");
    double tol = 1e-9;
    if (c->tol && (!number(c->tol, &tol) || tol < 0))
        return usage("diff: --tol wants a number >= 0");
    ak_doc *a, *b;
    int rc = cli_read(c, c->args[0], &a, c->verbose);
    if (rc)
        return rc;
    rc = cli_read(c, c->args[1], &b, c->verbose);
    if (rc) {
        ak_doc_free(a);
        return rc;
    }
    ak_diff *d = NULL;
    rc = status_rc(ak_doc_diff(a, b, tol, &d), c->args[0]);
    if (!rc) {
        for (size_t i = 0; i < d->count; i++)
            print_entry(&d->entries[i]);
        if (!d->count)
            printf("equal (tolerance %g)\n", tol);
        rc = d->count ? 1 : 0;
    }
    ak_diff_free(d);
    ak_doc_free(a);
    ak_doc_free(b);
    if (fflush(stdout) != 0)
        rc = EX_IOERR;
    return rc;
}
