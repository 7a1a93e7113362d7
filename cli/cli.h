/* cli.h - what the CLI's files share. */
#ifndef ANIMKIT_CLI_H
#define ANIMKIT_CLI_H

#include <animkit/plugin.h>

#include <stdio.h>

/* A growing list of argument strings (owned by argv or c->owned). */
typedef struct cli_list {
    const char **items; /* NULL-terminated when count > 0 */
    int count, capacity;
} cli_list;

typedef struct cli {
    const char *command;
    const char *config_file;
    const char *format;   /* --format: force the input format */
    const char *to;       /* --to: output format */
    const char *bones;    /* --bones: bone-name dictionary */
    const char **clips;
    int clip_count;
    const char **params; /* -p key=value, --variant, --fps; NULL-terminated */
    int param_count;
    const char **args;   /* positional arguments after the command */
    int arg_count;
    int json, raw, ticks, force, verbose, strict;
    int outline; /* read outlines (AK_READ_OUTLINE): the command prints no keys */
    ak_registry *reg;
    char *owned[8];    /* params built by the CLI itself, freed at exit */
    int owned_count;
    char **bone_names;
    size_t bone_name_count;
    /* Batch and edit commands (cli/batch.c, cli/edit.c). */
    cli_list clip_list, param_list, arg_list; /* the storage behind clips, params, args */
    const char *output;   /* -o, --output: file or folder */
    const char *as;       /* --as NAME: replace */
    const char *map;      /* --map FILE: bones */
    const char *skeleton; /* --skeleton FILE: a file whose skeleton is attached */
    ak_doc *skeleton_doc; /* that file, read once */
    const char *speed, *trim, *fps, *tol; /* retime / diff values, checked by the command */
    int in_place, recursive, reverse;
    int jobs;             /* -j N; 0 = one per CPU */
} cli;

/* Prints a message the way every command does. */
void cli_print_message(void *user, const ak_message *msg);
/* Reads a file, naming bones from the dictionary; prints the error and
 * returns its exit code, or 0. */
int cli_read(cli *c, const char *path, ak_doc **doc, int show_warnings);
/* Prints text from an input file with control characters as \xNN
 * (textout.c). */
void cli_put_text(FILE *out, const char *s);
/* A number for JSON output; NaN and infinities as strings. */
void cli_json_double(double v);
/* Makes the exit status 74 when standard output could not be written
 * (stdout.c). */
void cli_check_stdout_at_exit(void);
/* "-" as a file name (stdin.c): whether `path` is it; the bytes of
 * standard input, read once (0, or the exit code after saying why); a
 * read of them with no file name (0 or the exit code; a failed read
 * leaves its message in the report, a failure to take standard input was
 * said already and leaves the report's status AK_OK); messages of such a
 * read named "-"; an encoding into standard output, in --to's format or
 * else the document's own (the core's choice for a write with no name). */
int cli_is_stdio(const char *path);
int cli_stdin_bytes(const unsigned char **bytes, size_t *size);
void cli_print_stdin_message(void *user, const ak_message *msg);
int cli_read_stdin(cli *c, const ak_options *options, ak_doc **doc, ak_report *report);
int cli_write_stdout(cli *c, const ak_doc *doc, const ak_options *options);
/* The larger (worse) of two exit codes. */
int cli_worse(int a, int b);

/* Lists the parameters a codec declares (cli/params.c); the JSON form is
 * a field ,"params":[...] (null when the codec declares none). */
void cli_print_params(const ak_codec *k);
void cli_print_params_json(const ak_codec *k);

/* A JSON string literal on stdout (name bytes outside ASCII as \u00XX). */
void cli_json_string(const char *s);

/* --skeleton (skeleton.c): read the file once; attach its skeleton to a
 * document read (prints the error and returns the exit code, or 0). */
int cli_skeleton_load(cli *c);
void cli_skeleton_free(cli *c);
int cli_skeleton_attach(cli *c, ak_doc *doc, const char *path);
/* info: per clip "skeleton: N bones, M of T tracks matched" (and with -v
 * the unmatched tracks and bones); the same as a JSON field; the bone tree. */
void cli_skeleton_info_clip(const ak_doc *doc, const ak_clip *clip, int verbose);
void cli_skeleton_info_json_clip(const ak_doc *doc, const ak_clip *clip);
void cli_skeleton_tree(const ak_doc *doc);

int cmd_formats(cli *c);
int cmd_probe(cli *c);
int cmd_info(cli *c);
int cmd_dump(cli *c);
int cmd_convert(cli *c);
int cmd_validate(cli *c);

/* commands.c: one file's info / text dump, printed to stdout. */
void info_text(const char *path, const ak_doc *doc, int verbose);
void info_json(const char *path, const ak_doc *doc, int first);
int dump_text(const ak_doc *doc, const char *clip_name, int ticks);

/* batch.c: many files and folders, in parallel, output in input order. */
int cmd_batch_convert(cli *c);
int batch_info(cli *c);
int batch_dump(cli *c);
int batch_validate(cli *c);

/* edit.c: the edit commands. */
int cmd_replace(cli *c);
int cmd_merge(cli *c);
int cmd_split(cli *c);
int cmd_rename(cli *c);
int cmd_remove(cli *c);
int cmd_bones(cli *c);
int cmd_retime(cli *c);
int cmd_diff(cli *c);

#endif
