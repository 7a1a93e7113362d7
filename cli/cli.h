/* cli.h - what the CLI's files share. */
#ifndef ANIMKIT_CLI_H
#define ANIMKIT_CLI_H

#include <animkit/plugin.h>

#include <stdio.h>

#define MAX_ITEMS 256

typedef struct cli {
    const char *command;
    const char *config_file;
    const char *format;   /* --format: force the input format */
    const char *to;       /* --to: output format */
    const char *bones;    /* --bones: bone-name dictionary */
    const char *clips[MAX_ITEMS];
    int clip_count;
    const char *params[MAX_ITEMS + 1]; /* -p key=value, --variant, --fps */
    int param_count;
    const char *args[MAX_ITEMS];       /* positional arguments after the command */
    int arg_count;
    int json, raw, ticks, force, verbose;
    ak_registry *reg;
    char *owned[8];    /* params built by the CLI itself, freed at exit */
    int owned_count;
    char **bone_names;
    size_t bone_name_count;
    const char *skeleton;  /* --skeleton: a file whose skeleton is attached */
    ak_doc *skeleton_doc;  /* that file, read once */
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
/* The larger (worse) of two exit codes. */
int cli_worse(int a, int b);

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

#endif
