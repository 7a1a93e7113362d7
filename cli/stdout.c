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

void cli_check_stdout_at_exit(void) { atexit(close_stdout); }
