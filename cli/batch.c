/* batch.c - many files and folders in one call: the inputs are expanded
 * (folders give the files a plugin claims by extension, -r descends),
 * -j worker threads read and write them sharing the one registry, and the
 * main thread prints each file's result in input order, with a progress
 * bar on stderr when that is a terminal. */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

typedef struct item {
    char *path;   /* input */
    char *rel;    /* convert: the output path below -o */
    size_t bytes; /* input size, for the progress bar */
    ak_doc *doc;  /* info, dump: kept until printed */
    int rc;       /* this file's exit code */
    unsigned errors, warnings;
    char *log;    /* the file's messages, printed in order */
    size_t log_size;
    FILE *logf;
    int done;
    const char *clash; /* convert: an earlier input with the same output */
} item;

typedef struct batch batch;
typedef struct batch_ops {
    const char *verb; /* summary: "converted", "valid"... */
    void (*work)(batch *b, item *it); /* in a worker thread */
    void (*emit)(batch *b, item *it); /* in the main thread, in input order */
    int (*plan)(batch *b);            /* optional, once the inputs are known */
} batch_ops;

struct batch {
    cli *c;
    const batch_ops *ops;
    item *items;
    size_t count, capacity;
    pthread_mutex_t lock;
    pthread_cond_t ready; /* the item to print next is done */
    pthread_cond_t room;  /* printing made room in the read-ahead window */
    int waiting;          /* workers waiting for room */
    size_t next, printed, done;
    double total_bytes, done_bytes;
    size_t ok, failed, warned;
    int progress, bar_shown, first;
    double started, last_draw;
    const char *ext; /* convert: the target's extension */
};

/* ---- inputs ------------------------------------------------------------ */

static char *join(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *p = malloc(na + nb + 2);
    if (!p)
        return NULL;
    memcpy(p, a, na);
    size_t n = na;
    if (na && a[na - 1] != '/')
        p[n++] = '/';
    memcpy(p + n, b, nb + 1);
    return p;
}

static int add_input(batch *b, char *path, char *rel)
{
    if (!path || !rel) {
        free(path);
        free(rel);
        return EX_OSERR;
    }
    if (b->count == b->capacity) {
        size_t cap = b->capacity ? b->capacity * 2 : 64;
        item *p = realloc(b->items, cap * sizeof *p);
        if (!p) {
            free(path);
            free(rel);
            return EX_OSERR;
        }
        b->items = p;
        b->capacity = cap;
    }
    item *it = &b->items[b->count++];
    memset(it, 0, sizeof *it);
    it->path = path;
    it->rel = rel;
    struct stat st;
    if (stat(path, &st) == 0)
        it->bytes = (size_t)st.st_size;
    b->total_bytes += (double)it->bytes;
    return 0;
}

/* 1 if a loaded plugin claims the file's extension. */
static int claimed(const ak_registry *reg, const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot || dot == name)
        return 0;
    size_t n = ak_registry_count(reg);
    for (size_t i = 0; i < n; i++) {
        const char *e = ak_registry_plugin(reg, i)->codec->extensions;
        size_t len = strlen(dot + 1);
        for (const char *p = e; *p;) {
            size_t w = strcspn(p, ",");
            if (w == len && !strncasecmp(p, dot + 1, len))
                return 1;
            p += w + (p[w] == ',');
        }
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folder's files, sorted, then (with -r) its subfolders' in turn. */
static int walk(batch *b, const char *dir, const char *rel, int depth)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "animkit: %s: cannot read the folder: %s\n", dir, strerror(errno));
        return EX_NOINPUT;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) && !rc) {
        if (e->d_name[0] == '.')
            continue; /* ., .., hidden files and our own temporary files */
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **p = realloc(names, cap * sizeof *p);
            if (!p) {
                rc = EX_OSERR;
                break;
            }
            names = p;
        }
        if (!(names[n] = strdup(e->d_name)))
            rc = EX_OSERR;
        else
            n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    for (int pass = 0; pass < 2 && !rc; pass++)
        for (size_t i = 0; i < n && !rc; i++) {
            char *path = join(dir, names[i]);
            struct stat st;
            if (!path || lstat(path, &st) != 0) {
                free(path);
                continue;
            }
            int is_dir = S_ISDIR(st.st_mode); /* symlinked folders are not followed: no loops */
            if (pass == 0 && !is_dir && claimed(b->c->reg, names[i]))
                rc = add_input(b, path, join(rel, names[i]));
            else if (pass == 1 && is_dir && b->c->recursive && depth < 64) {
                char *sub = join(rel, names[i]);
                rc = sub ? walk(b, path, sub, depth + 1) : EX_OSERR;
                free(sub);
                free(path);
            } else
                free(path);
        }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int expand_inputs(batch *b)
{
    for (int i = 0; i < b->c->arg_count; i++) {
        const char *a = b->c->args[i];
        struct stat st;
        int rc;
        const unsigned char *bytes;
        size_t size;
        if (cli_is_stdio(a)) {
            /* Taken here, before the threads: each "-" reads the same bytes. */
            if ((rc = cli_stdin_bytes(&bytes, &size)) != 0)
                return rc;
            rc = add_input(b, strdup(a), strdup(a));
        } else if (stat(a, &st) == 0 && S_ISDIR(st.st_mode))
            rc = walk(b, a, "", 0);
        else {
            const char *base = strrchr(a, '/');
            rc = add_input(b, strdup(a), strdup(base ? base + 1 : a));
        }
        if (rc) {
            if (rc == EX_OSERR)
                fprintf(stderr, "animkit: out of memory\n");
            return rc;
        }
    }
    return 0;
}

/* ---- progress ------------------------------------------------------------ */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void clear_bar(batch *b)
{
    if (b->bar_shown) {
        fputs("\r\033[K", stderr);
        b->bar_shown = 0;
    }
}

/* files done / total, MB/s and the time left, at most ten times a second. */
static void draw_bar(batch *b, int force)
{
    double t = now();
    if (!b->progress || (!force && t - b->last_draw < 0.1))
        return;
    b->last_draw = t;
    pthread_mutex_lock(&b->lock);
    size_t done = b->done;
    double bytes = b->done_bytes;
    pthread_mutex_unlock(&b->lock);
    double elapsed = t - b->started, rate = elapsed > 0 ? bytes / elapsed : 0;
    double left = rate > 0 ? (b->total_bytes - bytes) / rate : 0;
    char bar[21];
    size_t fill = b->count ? done * 20 / b->count : 20;
    for (size_t i = 0; i < 20; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[20] = '\0';
    unsigned eta = left > 0 && left < 1e7 ? (unsigned)(left + 0.5) : 0;
    fprintf(stderr, "\r[%s] %zu/%zu files  %.1f MB/s  ETA %u:%02u\033[K", bar, done, b->count, rate / 1e6,
            eta / 60, eta % 60);
    fflush(stderr);
    b->bar_shown = 1;
}

/* ---- one file ------------------------------------------------------------- */

typedef struct logger {
    item *it;
    int show_warnings;
} logger;

static void log_message(void *user, const ak_message *msg)
{
    logger *lg = user;
    if (msg->severity == AK_ERROR)
        lg->it->errors++;
    else if (msg->severity == AK_WARNING && lg->show_warnings)
        lg->it->warnings++; /* "with warnings" counts what the user was shown */
    if (msg->severity == AK_ERROR || lg->show_warnings) {
        char line[1200];
        ak_message named = *msg;
        if (!named.file && cli_is_stdio(lg->it->path))
            named.file = "-"; /* a read of standard input has no file name */
        ak_message_format(&named, line, sizeof line);
        if (lg->it->logf) {
            fprintf(lg->it->logf, "animkit: ");
            cli_put_text(lg->it->logf, line); /* messages quote names from the file */
            fputc('\n', lg->it->logf);
        }
    }
}

static void open_log(item *it) { it->logf = open_memstream(&it->log, &it->log_size); }

/* Adds a line to the file's messages (lost only if the log could not be
 * opened, when memory is out anyway). */
static void note(item *it, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(item *it, const char *fmt, ...)
{
    if (!it->logf)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("animkit: ", it->logf);
    vfprintf(it->logf, fmt, ap);
    fputc('\n', it->logf);
    va_end(ap);
}

static ak_status read_item(cli *c, item *it, int show_warnings)
{
    logger lg = { it, show_warnings };
    ak_report rep = { 0 };
    rep.on_message = log_message;
    rep.user = &lg;
    ak_options o = { sizeof o, c->format, it->path, c->params, 0,
                     (c->strict ? AK_READ_STRICT : 0) | (c->outline ? AK_READ_OUTLINE : 0) };
    ak_status st;
    if (cli_is_stdio(it->path)) {
        it->rc = cli_read_stdin(c, &o, &it->doc, &rep);
        if (it->rc && rep.status != AK_OK && !it->errors)
            note(it, "-: %s", rep.message);
        if (it->rc)
            return rep.status != AK_OK ? rep.status : AK_E_NOINPUT;
        st = AK_OK;
    } else {
        st = ak_read_file(c->reg, it->path, &o, &it->doc, &rep);
    }
    if (st != AK_OK) {
        it->rc = ak_status_exit(st);
        if (!it->errors) /* a failure reported without a message */
            note(it, "%s", rep.message);
        return st;
    }
    if (c->bone_name_count)
        ak_doc_name_bones(it->doc, (const char *const *)c->bone_names, c->bone_name_count);
    if (c->skeleton_doc && (st = ak_doc_attach_skeleton(it->doc, c->skeleton_doc)) != AK_OK) {
        note(it, "attaching the skeleton of %s: %s", c->skeleton, ak_status_name(st));
        it->rc = ak_status_exit(st);
        ak_doc_free(it->doc);
        it->doc = NULL;
        return st;
    }
    return AK_OK;
}

static void close_log(item *it)
{
    if (it->logf) {
        fclose(it->logf);
        it->logf = NULL;
    }
}

/* Prints the file's messages once. */
static void emit_log(batch *b, item *it)
{
    close_log(it);
    if (it->log && it->log_size) {
        clear_bar(b);
        fwrite(it->log, 1, it->log_size, stderr);
    }
    free(it->log);
    it->log = NULL;
    it->log_size = 0;
}

static void json_str(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

/* The first line of the file's log, without "animkit: " and the newline. */
static void json_log_line(const item *it)
{
    char line[1200] = "";
    if (it->log && it->log_size) {
        const char *s = it->log + (strncmp(it->log, "animkit: ", 9) ? 0 : 9);
        size_t n = strcspn(s, "\n");
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, s, n);
        line[n] = '\0';
    }
    json_str(line);
}

/* ---- convert ---------------------------------------------------------------- */

static int make_parents(char *path)
{
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        int r = mkdir(path, 0777);
        int e = errno;
        *p = '/';
        if (r != 0 && e != EEXIST)
            return -1;
    }
    return 0;
}

/* OUT/REL with REL's extension replaced by the target's. */
static char *output_path(const batch *b, const item *it)
{
    char *rel = strdup(it->rel);
    if (!rel)
        return NULL;
    char *slash = strrchr(rel, '/'), *dot = strrchr(rel, '.');
    if (dot && (!slash || dot > slash) && dot != rel && (!slash || dot > slash + 1))
        *dot = '\0';
    size_t n = strlen(b->c->output) + strlen(rel) + strlen(b->ext) + 3;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s/%s.%s", b->c->output, rel, b->ext);
    free(rel);
    return out;
}

/* Items of one array by output path, then by position. */
static int by_output(const void *x, const void *y)
{
    const item *a = *(item *const *)x, *b = *(item *const *)y;
    int c = strcmp(a->rel, b->rel);
    return c ? c : (a > b) - (a < b);
}

/* Every input's output path; two inputs that would write the same file
 * (walk.ifp and walk.ani to walk.json) are not left to overwrite each
 * other: the later one is refused. */
static int plan_outputs(batch *b)
{
    for (size_t i = 0; i < b->count; i++) {
        char *out = output_path(b, &b->items[i]);
        if (!out)
            return EX_OSERR;
        free(b->items[i].rel);
        b->items[i].rel = out;
    }
    item **order = malloc((b->count + 1) * sizeof *order);
    if (!order)
        return EX_OSERR;
    for (size_t i = 0; i < b->count; i++)
        order[i] = &b->items[i];
    qsort(order, b->count, sizeof *order, by_output);
    for (size_t i = 1; i < b->count; i++) {
        item *prev = order[i - 1], *it = order[i];
        if (!strcmp(prev->rel, it->rel))
            it->clash = prev->clash ? prev->clash : prev->path;
    }
    free(order);
    return 0;
}

static void convert_work(batch *b, item *it)
{
    cli *c = b->c;
    char *out = it->rel;
    if (it->clash) {
        note(it, "%s: not converted: its output %s is also the output of %s", it->path, out, it->clash);
        it->rc = EX_CANTCREAT;
        return;
    }
    if (read_item(c, it, c->verbose) == AK_OK) {
        logger lg = { it, 1 };
        ak_report rep = { 0 };
        rep.on_message = log_message;
        rep.user = &lg;
        ak_options o = { sizeof o, c->to, out, c->params, 0, 0 };
        if (make_parents(out) != 0) {
            char why[128];
            if (strerror_r(errno, why, sizeof why) != 0) /* the XSI form: strerror is not thread-safe */
                snprintf(why, sizeof why, "error %d", errno);
            note(it, "%s: cannot create its folder: %s", out, why);
            it->rc = EX_CANTCREAT;
        } else {
            ak_status st = ak_write_file(c->reg, it->doc, out, &o, c->force ? AK_WRITE_OVERWRITE : 0, &rep);
            it->rc = ak_status_exit(st);
        }
        ak_doc_free(it->doc);
        it->doc = NULL;
    }
}

static void convert_emit(batch *b, item *it)
{
    close_log(it);
    if (!b->c->json)
        return;
    printf("{\"input\":");
    json_str(it->path);
    printf(",\"output\":");
    json_str(it->rel ? it->rel : "");
    printf(",\"status\":\"%s\",\"exit\":%d,\"warnings\":%u,\"message\":",
           it->rc ? "failed" : it->warnings ? "warnings" : "ok", it->rc, it->warnings);
    json_log_line(it);
    printf("}\n");
    emit_log(b, it);
}

/* ---- info, dump, validate ----------------------------------------------------- */

static void read_work(batch *b, item *it) { read_item(b->c, it, b->c->verbose); }

static void info_emit(batch *b, item *it)
{
    close_log(it);
    if (!it->doc && b->c->json) { /* scripts see every file, also those that failed */
        printf("%s{\"file\":", b->first ? "" : ",\n ");
        json_str(it->path);
        printf(",\"exit\":%d,\"error\":", it->rc);
        json_log_line(it);
        printf("}");
        b->first = 0;
    }
    emit_log(b, it);
    if (!it->doc)
        return;
    if (b->c->json)
        info_json(it->path, it->doc, b->first);
    else
        info_text(it->path, it->doc, b->c->verbose);
    b->first = 0;
}

static void dump_emit(batch *b, item *it)
{
    emit_log(b, it);
    if (!it->doc)
        return;
    cli *c = b->c;
    const char *clip = c->clip_count ? c->clips[0] : NULL;
    if (clip && !ak_doc_find_clip(it->doc, clip)) {
        clear_bar(b);
        fprintf(stderr, "animkit: ");
        cli_put_text(stderr, it->path);
        fprintf(stderr, ": no clip named '");
        cli_put_text(stderr, clip);
        fprintf(stderr, "'\n");
        it->rc = EX_DATAERR;
        return;
    }
    if (b->count > 1 && !c->json) {
        printf("file ");
        cli_put_text(stdout, it->path);
        printf("\n");
    }
    if (c->json) {
        unsigned flags = (c->raw ? AK_JSON_RAW : 0) | (c->ticks ? AK_JSON_TICKS : 0);
        /* Only the first clip of that name, as lookups do. */
        if (ak_doc_write_json(it->doc, clip ? ak_doc_find_clip(it->doc, clip)->name : NULL, flags, stdout) != AK_OK)
            it->rc = EX_IOERR;
    } else {
        it->rc = dump_text(it->doc, clip, c->ticks);
    }
}

static void validate_work(batch *b, item *it)
{
    if (read_item(b->c, it, 1) != AK_OK)
        return;
    logger lg = { it, 1 };
    ak_report rep = { 0 };
    rep.on_message = log_message;
    rep.user = &lg;
    ak_doc_validate(it->doc, it->path, &rep);
    ak_doc_free(it->doc);
    it->doc = NULL;
    if (it->errors)
        it->rc = EX_DATAERR;
}

static void validate_emit(batch *b, item *it)
{
    if (b->c->json) {
        close_log(it);
        printf("{\"file\":");
        json_str(it->path);
        printf(",\"valid\":%s,\"errors\":%u,\"warnings\":%u,\"exit\":%d,\"message\":", it->errors ? "false" : "true",
               it->errors, it->warnings, it->rc);
        json_log_line(it);
        printf("}\n");
        emit_log(b, it);
        return;
    }
    emit_log(b, it);
    clear_bar(b);
    cli_put_text(stdout, it->path);
    printf(": %s, %u error%s, %u warning%s\n", it->errors ? "INVALID" : "valid", it->errors,
           it->errors == 1 ? "" : "s", it->warnings, it->warnings == 1 ? "" : "s");
}

/* ---- the engine --------------------------------------------------------------- */

static void finish_item(batch *b, item *it)
{
    pthread_mutex_lock(&b->lock);
    it->done = 1;
    b->done++;
    b->done_bytes += (double)it->bytes;
    if ((size_t)(it - b->items) == b->printed)
        pthread_cond_signal(&b->ready);
    pthread_mutex_unlock(&b->lock);
}

static void run_item(batch *b, item *it)
{
    open_log(it);
    b->ops->work(b, it);
    finish_item(b, it);
}

/* At most this many files are read ahead of the one being printed, so
 * memory stays bounded whatever one slow file holds up. */
static size_t window(const batch *b) { return (size_t)b->c->jobs * 4 + 16; }

static void *worker(void *arg)
{
    batch *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        while (b->next < b->count && b->next - b->printed >= window(b)) {
            b->waiting++;
            pthread_cond_wait(&b->room, &b->lock);
            b->waiting--;
        }
        size_t i = b->next < b->count ? b->next++ : b->count;
        pthread_mutex_unlock(&b->lock);
        if (i == b->count)
            return NULL;
        run_item(b, &b->items[i]);
    }
}

static void print_item(batch *b, item *it)
{
    close_log(it);
    int quiet = b->ops->emit == convert_emit && !b->c->json && !it->log_size;
    if (!quiet)
        clear_bar(b); /* stdout may be the same terminal */
    b->ops->emit(b, it);
    fflush(stdout);
    if (it->rc)
        b->failed++;
    else
        b->ok++;
    if (it->warnings && !it->rc)
        b->warned++;
    emit_log(b, it); /* whatever emit left */
    ak_doc_free(it->doc);
    it->doc = NULL;
}

static void wait_done(batch *b, item *it)
{
    pthread_mutex_lock(&b->lock);
    while (!it->done && !b->progress)
        pthread_cond_wait(&b->ready, &b->lock);
    while (!it->done) { /* wake up now and then to move the bar */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 200000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&b->ready, &b->lock, &ts);
        if (!it->done && b->progress) {
            pthread_mutex_unlock(&b->lock);
            draw_bar(b, 0);
            pthread_mutex_lock(&b->lock);
        }
    }
    pthread_mutex_unlock(&b->lock);
}

static int run_batch(batch *b)
{
    int rc = 0;
    if (b->c->jobs <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        b->c->jobs = n > 0 ? (n > 64 ? 64 : (int)n) : 1;
    }
    int threads = b->c->jobs < (int)b->count ? b->c->jobs : (int)b->count;
    pthread_t *tid = threads > 1 ? calloc((size_t)threads, sizeof *tid) : NULL;
    int started = 0;
    for (int i = 0; tid && i < threads; i++)
        if (pthread_create(&tid[started], NULL, worker, b) == 0)
            started++;
    b->started = now();
    draw_bar(b, 1);
    for (size_t i = 0; i < b->count; i++) {
        item *it = &b->items[i];
        if (!started) { /* -j 1, or no thread could start */
            pthread_mutex_lock(&b->lock);
            b->next = i + 1;
            pthread_mutex_unlock(&b->lock);
            run_item(b, it);
        } else
            wait_done(b, it);
        print_item(b, it);
        rc = cli_worse(rc, it->rc);
        pthread_mutex_lock(&b->lock);
        b->printed = i + 1;
        if (b->waiting)
            pthread_cond_broadcast(&b->room);
        pthread_mutex_unlock(&b->lock);
        draw_bar(b, i + 1 == b->count);
    }
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    free(tid);
    clear_bar(b);
    return rc;
}

static int batch_main(cli *c, const batch_ops *ops, int summary, const char *ext)
{
    batch b;
    memset(&b, 0, sizeof b);
    b.c = c;
    b.ops = ops;
    b.first = 1;
    b.ext = ext;

    pthread_mutex_init(&b.lock, NULL);
    pthread_cond_init(&b.ready, NULL);
    pthread_cond_init(&b.room, NULL);
    int rc = expand_inputs(&b);
    if (!rc && !b.count) {
        fprintf(stderr, "animkit: no input files (a folder gives the files a plugin claims by extension)\n");
        rc = EX_NOINPUT;
    }
    b.progress = b.count > 1 && isatty(STDERR_FILENO); /* one file needs no bar */
    if (!rc && ops->plan && (rc = ops->plan(&b)) == EX_OSERR)
        fprintf(stderr, "animkit: out of memory\n");
    if (!rc) {
        if (ops->emit == info_emit && c->json)
            printf("[");
        rc = run_batch(&b);
        if (ops->emit == info_emit && c->json)
            printf("]\n");
        if (summary || (b.failed && b.count > 1))
            fprintf(stderr, "%zu %s, %zu failed, %zu with warnings\n", b.ok, ops->verb, b.failed, b.warned);
    }
    for (size_t i = 0; i < b.count; i++) {
        free(b.items[i].path);
        free(b.items[i].rel);
    }
    free(b.items);
    pthread_mutex_destroy(&b.lock);
    pthread_cond_destroy(&b.ready);
    pthread_cond_destroy(&b.room);
    if (!rc && fflush(stdout) != 0)
        rc = EX_IOERR;
    return rc;
}

/* The first extension of the --to plugin (or of the one OUT names). */
static const char *target_extension(cli *c)
{
    const ak_plugin_info *p = c->to ? ak_registry_find(c->reg, c->to) : NULL;
    if (!p) {
        fprintf(stderr, "animkit: convert with -o FOLDER needs --to FORMAT (a loaded plugin%s%s)\n",
                c->to ? "; not " : "", c->to ? c->to : "");
        return NULL;
    }
    static char ext[32];
    size_t n = strcspn(p->codec->extensions, ",");
    if (n >= sizeof ext)
        n = sizeof ext - 1;
    memcpy(ext, p->codec->extensions, n);
    ext[n] = '\0';
    return ext;
}

int cmd_batch_convert(cli *c)
{
    static const batch_ops ops = { "converted", convert_work, convert_emit, plan_outputs };
    if (!c->output || c->arg_count < 1) {
        fprintf(stderr, "animkit: usage: animkit convert IN OUT | convert FILE|FOLDER... -o FOLDER --to FORMAT "
                        "[-r] [-j N] [--force] [--json]\n");
        return EX_USAGE;
    }
    if (c->clip_count) {
        fprintf(stderr, "animkit: --clip works with one input and one output (convert IN OUT)\n");
        return EX_USAGE;
    }
    int piped = cli_is_stdio(c->output);
    for (int i = 0; i < c->arg_count; i++)
        piped |= cli_is_stdio(c->args[i]);
    if (piped) {
        fprintf(stderr, "animkit: standard input and output hold one file: convert - OUT, or convert IN -\n");
        return EX_USAGE;
    }
    const char *ext = target_extension(c);
    if (!ext)
        return EX_USAGE;
    char *probe = malloc(strlen(c->output) + 3);
    int made = probe ? (sprintf(probe, "%s/x", c->output), make_parents(probe)) : -1;
    free(probe);
    if (made != 0) {
        fprintf(stderr, "animkit: %s: cannot create the folder: %s\n", c->output, strerror(errno));
        return EX_CANTCREAT;
    }
    return batch_main(c, &ops, 1, ext);
}

int batch_info(cli *c)
{
    static const batch_ops ops = { "read", read_work, info_emit, NULL };
    return batch_main(c, &ops, 0, NULL);
}

int batch_dump(cli *c)
{
    static const batch_ops ops = { "read", read_work, dump_emit, NULL };
    return batch_main(c, &ops, 0, NULL);
}

int batch_validate(cli *c)
{
    static const batch_ops ops = { "valid", validate_work, validate_emit, NULL };
    return batch_main(c, &ops, c->arg_count > 1, NULL);
}
