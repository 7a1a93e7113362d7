/*
 * bench.c - how fast animkit reads and writes real files. Prints, per
 * file: size, keys, read and same-format write throughput (best of N
 * rounds), how fast the same document is built through the plugin API
 * alone (rebuild.c: the floor under the read) and whether that copy writes
 * the file again, whether the write is byte-identical, the floor under
 * the write (rebuild.c: the document checked as any writer must, the
 * file's bytes put in one call), the calls alone under both (rebuild.c:
 * a read that adds nothing, a write that only puts the bytes), how fast the document
 * dumps as JSON and how fast that JSON reads back (the json plugin), how
 * fast it writes and reads back as .glb (the gltf plugin; MB/s of the
 * .glb) and whether that way back writes the original bytes again, and
 * each figure beside its goal (issue 13) and as a
 * fraction of the memcpy bandwidth measured in the same run. Then the
 * document memory of the largest file: peak bytes and bytes per key.
 *
 *     animkit-bench [-n ROUNDS] [-t ROUND_MS] [--json] [--no-dump] [--no-gltf] [--no-pool] FILE...
 *
 * A round reads (writes, dumps) the file as many times as fit in ROUND_MS
 * (default 20), each operation timed alone, freeing not counted; the
 * figures are the fastest operation of all rounds. -t 0 times a single
 * operation per round.
 * --json prints one JSON object per line instead of the table; --no-dump
 * and --no-gltf skip the JSON dump and the glTF way (for profiling reads
 * and writes alone). By default the registry keeps freed documents' memory
 * for the next round, as it does for a host that reads file after file;
 * --no-pool (AK_REG_NO_POOL) makes every read take fresh memory from the
 * kernel, as the one read of a short-lived process does.
 */
#include "rebuild.h"

#include <animkit/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const ak_codec *ifp_codec(void);
const ak_codec *ani_codec(void);
const ak_codec *anm_codec(void);
const ak_codec *mab_codec(void);
const ak_codec *json_codec(void);
const ak_codec *gltf_codec(void);

/* Goals in MB/s from issue 13's table (0 = none stated). */
typedef struct goal {
    const char *format;
    double read, write;
} goal;

static const goal goals[] = {
    { "ifp", 1000, 1000 }, { "ani", 1000, 1000 }, { "anm", 1000, 1000 },
    { "mab", 300, 0 },     { "json", 0, 0 },
};
#define JSON_GOAL_MB_S 250.0

static const goal *goal_of(const char *format)
{
    for (size_t i = 0; i < sizeof goals / sizeof goals[0]; i++)
        if (!strcmp(goals[i].format, format))
            return &goals[i];
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What one clock read costs, in ns: each timed operation includes one
 * (tens of ns, a few per cent of the smallest files' reads). The fastest
 * of many back-to-back pairs. */
static double clock_ns(void)
{
    double best = 1e30;
    for (int i = 0; i < 100000; i++) {
        double t0 = now(), t = now() - t0;
        if (t < best)
            best = t;
    }
    return best * 1e9;
}

/* The processor's name as the kernel gives it (/proc/cpuinfo), so that
 * figures from different machines are not compared as if from one: the
 * same code has read five files 14-17 % slower, and written them 4-23 %
 * slower, on one machine of a kind than on another (bench/HISTORY.md,
 * thirty-ninth round). Only printable ASCII
 * other than quotes and backslashes is kept, so it prints as it is in
 * JSON. "unknown" when there is no such file or line. */
static void cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    FILE *fp = fopen("/proc/cpuinfo", "r");
    if (!fp)
        return;
    char line[512];
    while (fgets(line, sizeof line, fp)) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon)
            continue;
        size_t n = 0;
        for (const char *c = colon + 1; *c && n + 1 < size; c++)
            if ((*c >= ' ' && *c <= '~' && *c != '"' && *c != '\\') && (n || *c != ' '))
                buf[n++] = *c;
        while (n && buf[n - 1] == ' ')
            n--;
        buf[n] = '\0';
        if (!n)
            snprintf(buf, size, "unknown");
        break;
    }
    fclose(fp);
}

/* Best-of-rounds memcpy bandwidth over 64 MB, in GB/s: the ceiling any
 * decoder that touches each input byte once can be compared with. */
static double memcpy_gb_s(int rounds)
{
    size_t n = 64u << 20;
    unsigned char *a = malloc(n), *b = malloc(n);
    if (!a || !b) {
        free(a);
        free(b);
        return 0;
    }
    memset(a, 1, n);
    memset(b, 2, n);
    double best = 1e30;
    for (int r = 0; r < rounds + 1; r++) {
        double t0 = now();
        memcpy(b, a, n);
        double t = now() - t0;
        a[r % n] ^= b[(r * 7919) % n]; /* keep the copies observable */
        if (t < best)
            best = t;
    }
    free(a);
    free(b);
    return n / best / 1e9;
}

/* An allocator that counts live and peak bytes, for the memory figures. */
typedef struct counting {
    size_t live, peak;
} counting;

typedef struct hdr {
    size_t size;
    size_t pad_;
} hdr;

static void *c_alloc(void *user, size_t size)
{
    counting *c = user;
    hdr *h = malloc(sizeof *h + size);
    if (!h)
        return NULL;
    h->size = size;
    c->live += size;
    if (c->live > c->peak)
        c->peak = c->live;
    return h + 1;
}

static void c_free(void *user, void *ptr)
{
    if (!ptr)
        return;
    counting *c = user;
    hdr *h = (hdr *)ptr - 1;
    c->live -= h->size;
    free(h);
}

static void *c_realloc(void *user, void *ptr, size_t size)
{
    if (!ptr)
        return c_alloc(user, size);
    counting *c = user;
    hdr *h = (hdr *)ptr - 1;
    size_t old = h->size;
    hdr *n = realloc(h, sizeof *n + size);
    if (!n)
        return NULL;
    n->size = size;
    c->live = c->live - old + size;
    if (c->live > c->peak)
        c->peak = c->live;
    return n + 1;
}

typedef struct result {
    const char *path;
    const char *format;
    size_t bytes, keys, json_bytes;
    double read_s, write_s, json_s; /* best times; 0 = not measured */
    double json_read_s;             /* reading the dump back */
    int identical;                  /* -1 = read-only format */
    size_t glb_bytes;               /* 0 = no glTF figures */
    double glb_write_s, glb_read_s; /* best times */
    int glb_identical;              /* the way back: -1 = not written */
    double build_s;                 /* best rebuild through the plugin API (rebuild.c) */
    int build_identical;            /* the rebuilt document writes the file: -1 = not written */
    double floor_write_s;           /* best write floor (rebuild.c); 0 = not measured */
    double call_read_s, call_write_s; /* best calls alone (rebuild.c, "call"); 0 = not measured */
} result;

static size_t doc_keys(const ak_doc *doc)
{
    ak_doc_stats s;
    ak_doc_stats_get(doc, &s);
    return s.keys[0] + s.keys[1] + s.keys[2] + s.keys[3];
}

/* Reads (or writes) of one file during one round: each timed alone, the
 * freeing between them not counted, until the round has lasted
 * `round_s`; the round's figure is its fastest read. A round of one
 * microsecond-long read, right after the JSON and glTF steps have filled
 * the caches, measures cold caches more than the decoder, and on a
 * shared machine (other tenants take the cores in bursts) five such
 * samples are often all disturbed. round_s = 0: one read per round. */
static double round_s = 0.02;

/* The JSON dump of `doc` into memory, timed (the fastest of a round, as
 * for reads); then, if `reg` is given, the time the json plugin takes to
 * read it back. Returns the dump's size, or 0. The timed dumps go into a
 * buffer of the dump's size made once (fmemopen), as a dump to a file
 * goes through stdio's fixed buffer: into a growing memory stream they
 * timed glibc's realloc, whose copies after a large file had been freed
 * (malloc's threshold for mapping moves up) made vice.ifp's dump 155
 * MB/s in a run over every file and 490 alone. */
static size_t dump_json(const ak_registry *reg, const ak_doc *doc, double *seconds, double *read_seconds)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return 0;
    ak_status st = ak_doc_write_json(doc, NULL, AK_JSON_RAW, f);
    fclose(f);
    char *room = st == AK_OK ? malloc(size + 1) : NULL;
    double start = now();
    *seconds = 1e30;
    while (room) {
        f = fmemopen(room, size + 1, "w");
        if (!f)
            break;
        double t0 = now();
        st = ak_doc_write_json(doc, NULL, AK_JSON_RAW, f);
        fflush(f);
        double t = now() - t0;
        long written = ftell(f);
        fclose(f);
        if (st != AK_OK || written != (long)size || memcmp(room, buf, size) != 0) {
            st = AK_E_IO; /* not the dump made first: no figure */
            break;
        }
        if (t < *seconds)
            *seconds = t;
        if (now() - start >= round_s)
            break;
    }
    if (st == AK_OK && *seconds == 1e30)
        st = AK_E_IO; /* no timed dump */
    free(room);
    *read_seconds = 0;
    if (st == AK_OK && reg) {
        ak_options o = { sizeof o, "json", "dump.json", NULL, 0, 0 };
        ak_doc *back;
        ak_report rep = { 0 };
        double t1 = now();
        if (ak_read(reg, (const unsigned char *)buf, size, &o, &back, &rep) == AK_OK) {
            *read_seconds = now() - t1;
            ak_doc_free(back);
        }
    }
    free(buf);
    return st == AK_OK ? size : 0;
}

static int skip_dump, skip_gltf;

/* `doc` -> .glb -> a document -> the file's own format, timing the first
 * two steps (best of the rounds so far in `res`); the last says whether
 * the way back is byte-identical to `f`. */
static void glb_round(const ak_registry *reg, const ak_doc *doc, const ak_mapped_file *f, result *res)
{
    ak_options g = { sizeof g, "gltf", "bench.glb", NULL, 0, 0 };
    unsigned char *glb = NULL;
    size_t glb_size;
    ak_doc *again = NULL;
    ak_report rr = { 0 };
    double t0 = now();
    if (ak_write(reg, doc, &g, &glb, &glb_size, &rr) != AK_OK)
        return;
    double t1 = now();
    ak_status st = ak_read(reg, glb, glb_size, &g, &again, &rr);
    double t2 = now();
    ak_buffer_free(reg, glb);
    if (st != AK_OK)
        return;
    if (!res->glb_bytes || t1 - t0 < res->glb_write_s)
        res->glb_write_s = t1 - t0;
    if (!res->glb_bytes || t2 - t1 < res->glb_read_s)
        res->glb_read_s = t2 - t1;
    res->glb_bytes = glb_size;
    ak_options w = { sizeof w, doc->format, NULL, NULL, 0, 0 };
    unsigned char *back;
    size_t back_size;
    if (res->identical >= 0 && ak_write(reg, again, &w, &back, &back_size, &rr) == AK_OK) {
        res->glb_identical = back_size == f->size && memcmp(back, f->data, f->size) == 0;
        ak_buffer_free(reg, back);
    }
    ak_doc_free(again);
}


/* One round of reads: the fastest read; *doc_out gets the last document.
 * Returns 0 on failure. */
static int read_round(const ak_registry *reg, const ak_mapped_file *f, const ak_options *o, double *best,
                      ak_doc **doc_out)
{
    double start = now();
    *best = 1e30;
    ak_doc *doc = NULL;
    do {
        ak_doc_free(doc);
        ak_report rr = { 0 };
        double t0 = now();
        if (ak_read(reg, f->data, f->size, o, &doc, &rr) != AK_OK) {
            fprintf(stderr, "%s\n", rr.message);
            return 0;
        }
        double t = now() - t0;
        if (t < *best)
            *best = t;
    } while (now() - start < round_s);
    *doc_out = doc;
    return 1;
}

/* One round of writes of `doc` as `format` (its own, or "rebuild" for the
 * floor): the fastest write, and whether every write gave `f`'s bytes.
 * Returns 0 when a write fails. */
static int write_round(const ak_registry *reg, const ak_doc *doc, const char *format, const ak_mapped_file *f,
                       double *best, int *identical)
{
    ak_options w = { sizeof w, format, NULL, NULL, 0, 0 };
    double start = now();
    *best = 1e30;
    *identical = 1;
    do {
        unsigned char *out;
        size_t out_size;
        ak_report wr = { 0 };
        double t0 = now();
        if (ak_write(reg, doc, &w, &out, &out_size, &wr) != AK_OK)
            return 0;
        double t = now() - t0;
        if (t < *best)
            *best = t;
        *identical &= out_size == f->size && memcmp(out, f->data, f->size) == 0;
        ak_buffer_free(reg, out);
    } while (now() - start < round_s);
    return 1;
}

/* One round of writes of `doc` by a bench codec of rebuild.c that puts
 * `f`'s bytes (`bench`: "rebuild", the write floor, which first checks the
 * document as any writer must; "call", the call alone), through ak_write()
 * with the capabilities of `codec`. Returns 0 when a write fails. */
static int bytes_round(const ak_registry *reg, const ak_doc *doc, const ak_codec *codec, const char *bench,
                       const ak_mapped_file *f, double *best)
{
    int identical;
    bench_rebuild_like(codec);
    bench_rebuild_source(doc, f->data, f->size);
    int ok = write_round(reg, doc, bench, f, best, &identical);
    bench_rebuild_source(NULL, NULL, 0);
    return ok && identical;
}

/* One round of the calls alone (rebuild.c's "call" codec): the fastest
 * ak_read() that adds nothing to the document and, when `codec` writes,
 * the fastest ak_write() that puts `f`'s bytes in one call. Returns 0
 * when one fails. */
static int call_round(const ak_registry *reg, const ak_doc *doc, const ak_codec *codec, const ak_mapped_file *f,
                      const char *path, double *read_best, double *write_best)
{
    ak_options o = { sizeof o, "call", path, NULL, 0, 0 };
    ak_doc *empty;
    if (!read_round(reg, f, &o, read_best, &empty))
        return 0;
    ak_doc_free(empty);
    *write_best = 0;
    return !codec->write || bytes_round(reg, doc, codec, "call", f, write_best);
}

/* One round of reads through the "rebuild" codec (rebuild.c), which
 * builds a copy of `doc` through the plugin API, parsing nothing: the
 * fastest build, freeing not counted. The first round writes one copy
 * back to check that it is the same document (`*identical`). Returns 0
 * when a build fails. */
static int build_round(const ak_registry *reg, const ak_doc *doc, const ak_mapped_file *f, const char *path,
                       double *best, int *identical)
{
    ak_options o = { sizeof o, "rebuild", path, NULL, 0, 0 };
    bench_rebuild_source(doc, NULL, 0);
    double start = now();
    *best = 1e30;
    do {
        ak_doc *copy;
        ak_report rr = { 0 };
        double t0 = now();
        if (ak_read(reg, f->data, f->size, &o, &copy, &rr) != AK_OK) {
            fprintf(stderr, "%s\n", rr.message);
            return 0;
        }
        double t = now() - t0;
        if (t < *best)
            *best = t;
        if (*identical == -2) {
            ak_options w = { sizeof w, doc->format, NULL, NULL, 0, 0 };
            unsigned char *out;
            size_t out_size;
            ak_report wr = { 0 };
            *identical = -1;
            if (ak_write(reg, copy, &w, &out, &out_size, &wr) == AK_OK) {
                *identical = out_size == f->size && memcmp(out, f->data, f->size) == 0;
                ak_buffer_free(reg, out);
            }
        }
        ak_doc_free(copy);
    } while (now() - start < round_s);
    bench_rebuild_source(NULL, NULL, 0);
    return 1;
}

static int bench_file(const ak_registry *reg, const char *path, int rounds, result *res)
{
    ak_mapped_file f;
    ak_report rep = { 0 };
    memset(res, 0, sizeof *res);
    res->path = path;
    res->identical = -1;
    res->glb_identical = -1;
    res->build_identical = -1;
    if (ak_file_map(path, &f, &rep) != AK_OK) {
        fprintf(stderr, "%s\n", rep.message);
        return 0;
    }
    ak_options o = { sizeof o, NULL, path, NULL, 0, 0 };
    res->bytes = f.size;
    res->format = "?";
    for (int r = 0; r < rounds; r++) {
        ak_doc *doc;
        double t;
        if (!read_round(reg, &f, &o, &t, &doc)) {
            ak_file_unmap(&f);
            return 0;
        }
        if (!r || t < res->read_s)
            res->read_s = t;
        res->keys = doc_keys(doc);
        const ak_codec *codec = ak_registry_find(reg, doc->format)->codec;
        res->format = codec->name;
        int built = r == 0 && codec->write ? -2 : res->build_identical;
        if (build_round(reg, doc, &f, path, &t, &built)) {
            if (!res->build_s || t < res->build_s)
                res->build_s = t;
            res->build_identical = built;
        }
        int identical;
        if (codec->write && write_round(reg, doc, doc->format, &f, &t, &identical)) {
            if (res->identical < 0 || t < res->write_s)
                res->write_s = t;
            res->identical = identical;
        }
        if (codec->write && bytes_round(reg, doc, codec, "rebuild", &f, &t) && (!res->floor_write_s || t < res->floor_write_s))
            res->floor_write_s = t;
        double tw;
        if (call_round(reg, doc, codec, &f, path, &t, &tw)) {
            if (!res->call_read_s || t < res->call_read_s)
                res->call_read_s = t;
            if (tw > 0 && (!res->call_write_s || tw < res->call_write_s))
                res->call_write_s = tw;
        }
        double tj = 0, tjr = 0;
        /* JSON is slow next to the binary forms: best of at most 3 rounds. */
        size_t jb = skip_dump || r >= 3 ? 0 : dump_json(r == 0 ? reg : NULL, doc, &tj, &tjr);
        if (jb && (!res->json_s || tj < res->json_s)) {
            res->json_s = tj;
            res->json_bytes = jb;
        }
        if (tjr > 0 && (!res->json_read_s || tjr < res->json_read_s))
            res->json_read_s = tjr;
        /* Like JSON, at most 3 rounds. */
        if (!skip_gltf && r < 3)
            glb_round(reg, doc, &f, res);
        ak_doc_free(doc);
    }
    ak_file_unmap(&f);
    return 1;
}

static double rate(size_t bytes, double s) { return s > 0 ? bytes / s / 1e6 : 0; }

static void print_json(const result *r, double mcpy)
{
    const goal *g = goal_of(r->format);
    double rd = rate(r->bytes, r->read_s), wr = rate(r->bytes, r->write_s), js = rate(r->json_bytes, r->json_s);
    printf("{\"file\":\"%s\",\"format\":\"%s\",\"bytes\":%zu,\"keys\":%zu,\"read_mb_s\":%.1f,", r->path,
           r->format, r->bytes, r->keys, rd);
    if (r->identical >= 0)
        printf("\"write_mb_s\":%.1f,", wr);
    else
        printf("\"write_mb_s\":null,");
    printf("\"read_mkeys_s\":%.2f,\"identical\":%s", r->read_s > 0 ? r->keys / r->read_s / 1e6 : 0,
           r->identical < 0 ? "null" : r->identical ? "true" : "false");
    printf(",\"build_mb_s\":%.1f,\"build_identical\":%s", rate(r->bytes, r->build_s),
           r->build_identical < 0 ? "null" : r->build_identical ? "true" : "false");
    if (r->floor_write_s > 0)
        printf(",\"floor_write_mb_s\":%.1f", rate(r->bytes, r->floor_write_s));
    else
        printf(",\"floor_write_mb_s\":null");
    printf(",\"call_read_mb_s\":%.1f", rate(r->bytes, r->call_read_s));
    if (r->call_write_s > 0)
        printf(",\"call_write_mb_s\":%.1f", rate(r->bytes, r->call_write_s));
    else
        printf(",\"call_write_mb_s\":null");
    printf(",\"read_goal_mb_s\":%.0f,\"write_goal_mb_s\":%.0f", g ? g->read : 0, g ? g->write : 0);
    printf(",\"read_of_memcpy\":%.4f,\"write_of_memcpy\":%.4f", rd / (mcpy * 1e3),
           r->identical >= 0 ? wr / (mcpy * 1e3) : 0.0);
    printf(",\"json_mb_s\":%.1f,\"json_goal_mb_s\":%.0f,\"json_bytes\":%zu,\"json_read_mb_s\":%.1f", js,
           JSON_GOAL_MB_S, r->json_bytes, rate(r->json_bytes, r->json_read_s));
    if (r->glb_bytes)
        printf(",\"glb_bytes\":%zu,\"glb_write_mb_s\":%.1f,\"glb_read_mb_s\":%.1f,\"glb_back_identical\":%s",
               r->glb_bytes, rate(r->glb_bytes, r->glb_write_s), rate(r->glb_bytes, r->glb_read_s),
               r->glb_identical < 0 ? "null" : r->glb_identical ? "true" : "false");
    printf("}\n");
}

static const char *verdict(double figure, double goal_mb_s)
{
    if (goal_mb_s <= 0)
        return "    ";
    return figure >= goal_mb_s ? "ok  " : "MISS";
}

static void print_row(const result *r, double mcpy)
{
    const goal *g = goal_of(r->format);
    double rd = rate(r->bytes, r->read_s), wr = rate(r->bytes, r->write_s), js = rate(r->json_bytes, r->json_s);
    const char *base = strrchr(r->path, '/');
    base = base ? base + 1 : r->path;
    printf("%-40.40s %-4s %8zu B %7zu k | read %7.1f MB/s (goal %4.0f %s %5.3f of memcpy) %5.2f Mk/s", base,
           r->format, r->bytes, r->keys, rd, g ? g->read : 0, verdict(rd, g ? g->read : 0), rd / (mcpy * 1e3),
           r->read_s > 0 ? r->keys / r->read_s / 1e6 : 0);
    printf(" | build alone %7.1f MB/s%s", rate(r->bytes, r->build_s), r->build_identical == 0 ? " DIFFERS" : "");
    if (r->identical >= 0)
        printf(" | write %7.1f MB/s (goal %4.0f %s %5.3f) %s", wr, g ? g->write : 0,
               verdict(wr, g ? g->write : 0), wr / (mcpy * 1e3), r->identical ? "identical" : "DIFFERS");
    else
        printf(" | write -");
    if (r->floor_write_s > 0)
        printf(" | floor write %7.1f MB/s", rate(r->bytes, r->floor_write_s));
    printf(" | call alone: read %7.1f", rate(r->bytes, r->call_read_s));
    if (r->call_write_s > 0)
        printf(" write %7.1f", rate(r->bytes, r->call_write_s));
    printf(" MB/s");
    if (r->json_bytes)
        printf(" | json %6.1f MB/s (goal %.0f %s), read back %5.1f MB/s", js, JSON_GOAL_MB_S,
               verdict(js, JSON_GOAL_MB_S), rate(r->json_bytes, r->json_read_s));
    if (r->glb_bytes)
        printf(" | glb %8zu B write %7.1f read %7.1f MB/s, back %s", r->glb_bytes, rate(r->glb_bytes, r->glb_write_s),
               rate(r->glb_bytes, r->glb_read_s),
               r->glb_identical < 0 ? "-" : r->glb_identical ? "identical" : "DIFFERS");
    printf("\n");
}

static void add_codecs(ak_registry *reg, ak_report *rep)
{
    const ak_codec *codecs[] = { ifp_codec(),  ani_codec(),  anm_codec(),          mab_codec(),
                                 json_codec(), gltf_codec(), bench_rebuild_codec(), bench_call_codec() };
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        ak_registry_add_codec(reg, codecs[i], 0, rep);
}

/* Document memory of one read of `path`: peak bytes the library held. */
static void memory_of(const char *path, int json)
{
    counting cnt = { 0, 0 };
    ak_allocator a = { c_alloc, c_realloc, c_free, &cnt };
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_PLUGINS, NULL, &a, NULL, NULL, NULL };
    ak_registry *reg;
    ak_report rep = { 0 };
    if (ak_registry_open(&cfg, &reg, &rep) != AK_OK)
        return;
    add_codecs(reg, &rep);
    size_t base = cnt.live;
    cnt.peak = base;
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, NULL, path, NULL, 0, 0 };
    if (ak_read_file(reg, path, &o, &doc, &rep) == AK_OK) {
        size_t keys = doc_keys(doc), peak = cnt.peak - base, held = cnt.live - base;
        if (json)
            printf("{\"memory_file\":\"%s\",\"keys\":%zu,\"peak_bytes\":%zu,\"doc_bytes\":%zu,"
                   "\"bytes_per_key\":%.1f,\"key_struct_bytes\":%zu}\n",
                   path, keys, peak, held, keys ? (double)held / keys : 0.0, sizeof(ak_key));
        else
            printf("memory: %s: %zu keys, peak %zu bytes during the read, %zu held by the document "
                   "= %.1f bytes per key (ak_key itself is %zu; capacity asked of the allocator, with up to "
                   "2 MiB per block of 4 MiB or more that huge-page alignment reserves and never touches)\n",
                   path, keys, peak, held, keys ? (double)held / keys : 0.0, sizeof(ak_key));
        ak_doc_free(doc);
    }
    ak_registry_free(reg);
}

int main(int argc, char **argv)
{
    int rounds = 5, json = 0, first = 1;
    uint32_t pool_flag = 0;
    while (first < argc && argv[first][0] == '-') {
        if (!strcmp(argv[first], "-n") && first + 1 < argc) {
            rounds = atoi(argv[first + 1]);
            first += 2;
        } else if (!strcmp(argv[first], "-t") && first + 1 < argc) {
            round_s = atof(argv[first + 1]) / 1000;
            first += 2;
        } else if (!strcmp(argv[first], "--no-dump")) {
            skip_dump = 1;
            first++;
        } else if (!strcmp(argv[first], "--no-gltf")) {
            skip_gltf = 1;
            first++;
        } else if (!strcmp(argv[first], "--no-pool")) {
            pool_flag = AK_REG_NO_POOL;
            first++;
        } else if (!strcmp(argv[first], "--json")) {
            json = 1;
            first++;
        } else {
            break;
        }
    }
    if (first >= argc || rounds < 1 || !(round_s >= 0)) {
        fprintf(stderr,
                "usage: animkit-bench [-n ROUNDS] [-t ROUND_MS] [--json] [--no-dump] [--no-gltf] [--no-pool] FILE...\n");
        return 64;
    }
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_PLUGINS | pool_flag, NULL, NULL, NULL, NULL, NULL };
    ak_registry *reg;
    ak_report rep = { 0 };
    if (ak_registry_open(&cfg, &reg, &rep) != AK_OK)
        return 70;
    const char *memory = pool_flag ? "fresh from the kernel for every read (--no-pool)"
                                   : "kept by the registry between rounds, as for a host reading file after file";
    add_codecs(reg, &rep);
    double mcpy = memcpy_gb_s(rounds < 10 ? rounds : 10); /* 64 MB a round: 10 are plenty */
    double clk = clock_ns();
    char cpu[128];
    cpu_model(cpu, sizeof cpu);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (json)
        printf("{\"memcpy_gb_s\":%.2f,\"clock_ns\":%.1f,\"rounds\":%d,\"round_ms\":%g,\"version\":\"%s\","
               "\"pool\":%s,\"cpu\":\"%s\",\"cpus\":%ld}\n",
               mcpy, clk, rounds, round_s * 1000, ak_version(), pool_flag ? "false" : "true", cpu, cpus);
    else
        printf("animkit %s on %s (%ld CPUs online), best of %d rounds, a round as many reads (writes) as fit in "
               "%g ms; memcpy %.2f GB/s in this run; each figure's time includes one clock read (%.1f ns); "
               "document memory %s\n",
               ak_version(), cpu, cpus, rounds, round_s * 1000, mcpy, clk, memory);
    const char *largest = NULL;
    size_t largest_size = 0;
    for (int i = first; i < argc; i++) {
        result r;
        if (!bench_file(reg, argv[i], rounds, &r))
            continue;
        if (json)
            print_json(&r, mcpy);
        else
            print_row(&r, mcpy);
        if (r.bytes > largest_size && r.keys) {
            largest_size = r.bytes;
            largest = argv[i];
        }
    }
    ak_registry_free(reg);
    if (largest)
        memory_of(largest, json);
    return 0;
}
