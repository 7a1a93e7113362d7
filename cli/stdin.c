/* stdin.c - "-" as a file name: the input from standard input, the output
 * to standard output, as pipes in a modding toolchain expect. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

/* More than any animation file we know by orders of magnitude; a pipe
 * that never ends (`yes | animkit info -`) stops here instead of taking
 * all memory. */
#define STDIN_LIMIT ((size_t)1 << 30)

int cli_is_stdio(const char *path) { return path[0] == '-' && path[1] == '\0'; }

/* Standard input is read once: a command that names "-" twice (diff - -)
 * sees the same bytes twice. */
static unsigned char *stdin_data;
static size_t stdin_size;
static int stdin_read;

static void free_stdin(void) { free(stdin_data); }

static int read_stdin(void)
{
    if (isatty(STDIN_FILENO)) {
        fprintf(stderr, "animkit: -: standard input is a terminal; pipe or redirect a file into it\n");
        return EX_NOINPUT;
    }
    size_t cap = 0;
    for (;;) {
        if (stdin_size == cap) {
            if (cap == STDIN_LIMIT) {
                fprintf(stderr, "animkit: -: standard input holds more than %zu MiB\n", STDIN_LIMIT >> 20);
                return EX_DATAERR;
            }
            cap = cap ? cap * 2 : 1 << 16;
            unsigned char *p = realloc(stdin_data, cap);
            if (!p) {
                fprintf(stderr, "animkit: -: out of memory reading standard input\n");
                return EX_OSERR;
            }
            stdin_data = p;
        }
        ssize_t got = read(STDIN_FILENO, stdin_data + stdin_size, cap - stdin_size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            fprintf(stderr, "animkit: -: cannot read standard input: %s\n", strerror(errno));
            return EX_IOERR;
        }
        if (got == 0)
            return 0;
        stdin_size += (size_t)got;
    }
}

int cli_stdin_bytes(const unsigned char **bytes, size_t *size)
{
    if (!stdin_read) {
        stdin_read = 1;
        atexit(free_stdin);
        int rc = read_stdin();
        if (rc) {
            free(stdin_data);
            stdin_data = NULL;
            stdin_size = 0;
            stdin_read = -rc; /* the same failure for a second "-" */
        }
    }
    if (stdin_read < 0)
        return -stdin_read;
    *bytes = stdin_data ? stdin_data : (const unsigned char *)"";
    *size = stdin_size;
    return 0;
}

/* Messages about standard input carry no file name: they get "-". */
void cli_print_stdin_message(void *user, const ak_message *msg)
{
    ak_message named = *msg;
    if (!named.file)
        named.file = "-";
    cli_print_message(user, &named);
}

int cli_read_stdin(cli *c, const ak_options *options, ak_doc **doc, ak_report *report)
{
    const unsigned char *bytes;
    size_t size;
    int rc = cli_stdin_bytes(&bytes, &size);
    if (rc)
        return rc;
    /* No file name: probes go by the bytes alone, and a format whose data
     * lies in files beside its input (.gltf) says it has none to look in. */
    ak_options o = *options;
    o.filename = NULL;
    return ak_status_exit(ak_read(c->reg, bytes, size, &o, doc, report));
}

int cli_write_stdout(cli *c, const ak_doc *doc, const ak_options *options)
{
    /* A game file's bytes would drive the terminal (escape sequences), as
     * gzip and xz refuse to let theirs. */
    if (isatty(STDOUT_FILENO)) {
        fprintf(stderr, "animkit: -: standard output is a terminal; redirect it to a file or a pipe "
                        "(animkit dump shows a file as text)\n");
        return EX_USAGE;
    }
    /* No file name: without --to, the core writes the document's own format. */
    ak_options o = *options;
    o.filename = NULL;
    ak_report rep = { 0 };
    rep.on_message = cli_print_stdin_message;
    unsigned char *bytes;
    size_t size;
    ak_status st = ak_write(c->reg, doc, &o, &bytes, &size, &rep);
    if (st != AK_OK)
        return ak_status_exit(st);
    /* A failed write shows at exit (stdout.c) as 74. */
    fwrite(bytes, 1, size, stdout);
    ak_buffer_free(c->reg, bytes);
    return 0;
}
