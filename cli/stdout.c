/* stdout.c - a failed write to standard output is an error of every
 * command: `animkit info x >/dev/full` must not exit 0. Checked at exit,
 * so that no path (help, --version, errors) can miss it. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

static void close_stdout(void)
{
    int failed = ferror(stdout);
    if (fclose(stdout) != 0)
        failed = 1;
    if (failed) {
        fprintf(stderr, "animkit: cannot write to standard output: %s\n", errno ? strerror(errno) : "write error");
        _exit(EX_IOERR);
    }
}

/* Into a pipe or a file, stdio's default buffer is the device's block
 * size (4 KiB): a JSON dump of ped_cretaceous.ifp (7.3 MB) took 1782
 * write() calls, each a microsecond or more of kernel entry in a virtual
 * machine. A terminal keeps its line buffering. */
static char stdout_buffer[1 << 16];

void cli_check_stdout_at_exit(void)
{
    if (!isatty(STDOUT_FILENO))
        (void)setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
    atexit(close_stdout);
}
