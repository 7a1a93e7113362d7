/* animkit.c - the command line: options, the registry, dispatch. */
#include "cli.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: animkit [OPTIONS] COMMAND [ARGS]\n"
    "\n"
    "Read, write and convert skeletal-animation files of games.\n"
    "\n"
    "Commands:\n"
    "  formats [--json] [-v] [NAME]     list the plugins (-v: and their parameters), and\n"
    "                                   those refused with why\n"
    "  probe FILE...                    tell each file's format and probe score\n"
    "  info FILE... [--json]            summarise clips, tracks, keys and events\n"
    "  dump FILE [--json] [--clip NAME] print every key and event\n"
    "  convert IN OUT [--to FORMAT] [--clip NAME]... [--force]\n"
    "                                   convert (or rewrite) a file, atomically\n"
    "  validate FILE...                 strict structural checks\n"
    "  convert FILE|FOLDER... -o FOLDER --to FORMAT [-r] [-j N]\n"
    "                                   convert many files, mirroring folders\n"
    "  replace X Y --clip B [--as A]    put clip B of Y into X (as A)\n"
    "  merge A B...                     all clips of the files in one\n"
    "  split X -o FOLDER                one file per clip\n"
    "  rename X OLD NEW                 rename a clip\n"
    "  remove X NAME...                 remove clips\n"
    "  bones X OLD=NEW... [--map FILE] [--skeleton FILE]\n"
    "                                   rename bones, take bone ids from a skeleton\n"
    "  retime X [--trim T0:T1] [--reverse] [--speed S] [--fps N] [--clip NAME]...\n"
    "  diff A B [--tol T]               what differs; exit 0 equal, 1 not\n"
    "  (edits write to -o OUT, or over X with --in-place)\n"
    "  (a FILE, IN, OUT or X of - is standard input or output)\n"
    "\n"
    "Options:\n"
    "  -c, --config FILE   use this config file (see animkit(1))\n"
    "  -f, --format NAME   read the input with this plugin instead of probing\n"
    "  -t, --to NAME       write the output with this plugin (default: OUT's extension)\n"
    "  -C, --clip NAME     only this clip (repeatable; case-insensitive, first match)\n"
    "      --force         replace an existing output file\n"
    "      --variant V     output variant, e.g. ANP3, ANPK, 4001, 6.0 (same as -p variant=V)\n"
    "      --fps N         frames per second for formats that do not store it (-p fps=N)\n"
    "  -b, --bones FILE    bone-name dictionary, one name per line, for hashed bones\n"
    "  -s, --skeleton FILE attach the skeleton of FILE (a model, a JSON dump) to each input\n"
    "  -p, --param K=V     pass a parameter to the plugins\n"
    "      --json          JSON output (formats, info, dump)\n"
    "      --raw           dump: add each key's stored bytes\n"
    "      --ticks         dump: add each key's native tick\n"
    "      --strict        fail a read whose document breaks the model's rules\n"
    "                      (ak_doc_validate errors, non-unit quaternions)\n"
    "  -o, --output PATH   output file (edits, merge) or folder (batch convert, split)\n"
    "      --in-place      edits: replace the input file (atomically)\n"
    "  -r, --recursive     folders: also their subfolders\n"
    "  -j, --jobs N        threads for many files (default: the number of CPUs)\n"
    "      --as, --map, --skeleton, --trim, --reverse, --speed, --tol: see COMMAND --help\n"
    "  -v, --verbose       also print warnings raised while reading\n"
    "  -h, --help          this help (or COMMAND --help)\n"
    "  -V, --version       print the version\n"
    "\n"
    "Exit codes (sysexits.h): 0 ok, 64 usage, 65 bad data, 66 no input, 69 format cannot\n"
    "write, 71 out of memory, 73 cannot create output, 74 I/O error, 78 config error.\n";

static const struct { const char *name, *help; } command_help[] = {
    { "formats", "usage: animkit formats [--json] [-v] [NAME]\n"
                 "List every loaded plugin (or only NAME): name, version, ABI, extensions,\n"
                 "read/write, file; with -v also its description and declared parameters.\n"
                 "Then the plugins that were refused, with the reason.\n" },
    { "probe", "usage: animkit probe FILE...\n"
               "Print the format that wins the probe for each file and its score (0-100),\n"
               "or why none matched. Exit 65 if any file is not recognised.\n" },
    { "info", "usage: animkit info FILE|FOLDER... [--json] [-v] [-r] [-j N]\n"
              "Print format and variant, the clips, and per clip its duration, track\n"
              "count, key counts per channel, events and format notes. With --skeleton,\n"
              "per clip how many tracks matched a bone (-v: which did not); a file with\n"
              "a skeleton and no clips prints its bone tree.\n" },
    { "dump", "usage: animkit dump FILE [--json] [--clip NAME] [--raw] [--ticks]\n"
              "Print every key and event. The JSON schema is documented in README.md.\n" },
    { "convert", "usage: animkit convert IN OUT [--to FORMAT] [--clip NAME]... [--force]\n"
                 "                       [--variant V] [--fps N] [-p KEY=VALUE]\n"
                 "       animkit convert FILE|FOLDER... -o FOLDER --to FORMAT [-r] [-j N] [--json]\n"
                 "The second form converts many files: folders give the files a plugin\n"
                 "claims by extension (-r: with subfolders), outputs mirror the folders\n"
                 "below -o with the stem kept; a failed file does not stop the others.\n"
                 "Convert IN to OUT. The output format comes from --to or OUT's extension.\n"
                 "OUT is written to a temporary file and renamed into place; an existing\n"
                 "OUT is replaced only with --force. What the target cannot hold is listed\n"
                 "as warnings. An untouched same-format conversion is byte-identical.\n" },
    { "replace", "usage: animkit replace X Y --clip B [--as A] (-o OUT | --in-place) [--force]\n"
                 "Put a copy of clip B of file Y into X as clip A (default: B's name): in place\n"
                 "of X's first clip of that name (keeping its spelling), else appended. Every\n"
                 "other clip is written back byte for byte; the copy keeps Y's stored bytes\n"
                 "when X and Y have the same format and variant, else it is encoded afresh.\n" },
    { "merge", "usage: animkit merge A B... -o OUT [--to FORMAT] [--force]\n"
               "Write every clip of the files, in order, into one file. The first file's\n"
               "header data (package name...) is kept.\n" },
    { "split", "usage: animkit split X -o FOLDER [--to FORMAT] [--force]\n"
               "Write each clip into FOLDER/CLIP.EXT (X's format unless --to). Names that\n"
               "are not file names are made so; repeated names get ~2, ~3...\n" },
    { "rename", "usage: animkit rename X OLD NEW (-o OUT | --in-place)\n"
                "Rename the first clip named OLD (case-insensitive).\n" },
    { "remove", "usage: animkit remove X NAME... (-o OUT | --in-place)\n"
                "Remove the first clip of each name.\n" },
    { "bones", "usage: animkit bones X [OLD=NEW...] [--map FILE] [--skeleton FILE] (-o OUT | --in-place)\n"
               "Rename the bones of every track (exact names; a map file holds OLD=NEW per\n"
               "line, '#' comments). With --skeleton, every track matched to a bone of the\n"
               "file's skeleton (by id, name, loose name or hash) gets the bone's id.\n" },
    { "retime", "usage: animkit retime X [--clip NAME]... [--trim T0:T1] [--reverse] [--speed S]\n"
                "                      [--fps N] (-o OUT | --in-place)\n"
                "Change the timing of the named clips (default all), in this order: keep\n"
                "[T0, T1] seconds, play backwards, play S times as fast (0.5 = half speed),\n"
                "resample at N frames per second (slerp for rotations). Keys that do not\n"
                "change keep their stored bytes.\n" },
    { "diff", "usage: animkit diff A B [--tol T]\n"
              "Compare two files of any formats: clips by name, tracks by bone, keys by\n"
              "position, within tolerance T (default 1e-9). Lists what was added, removed\n"
              "or changed (the largest difference per channel). Exit 0 equal, 1 not.\n" },
    { "validate", "usage: animkit validate FILE...\n"
                  "Read each file strictly: the reader's warnings (stale sizes, junk tails...)\n"
                  "and structural checks (ordered times, unit quaternions, finite values).\n"
                  "Exit 65 if any file has errors.\n" },
};

int cli_worse(int a, int b) { return a > b ? a : b; }

void cli_print_message(void *user, const ak_message *msg)
{
    (void)user;
    char line[1200];
    ak_message_format(msg, line, sizeof line);
    fprintf(stderr, "animkit: ");
    cli_put_text(stderr, line); /* messages quote names from the file */
    fputc('\n', stderr);
}

static int show_command_help(const char *name)
{
    for (size_t i = 0; i < sizeof command_help / sizeof command_help[0]; i++)
        if (!strcmp(command_help[i].name, name)) {
            fputs(command_help[i].help, stdout);
            return 0;
        }
    fputs(usage_text, stdout);
    return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "animkit: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'animkit --help'.\n");
    return EX_USAGE;
}

/* The CLI run from the build tree uses the build tree's plugins. */
static const char *build_tree_plugin_path(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    size_t len = strlen(exe);
    if (len >= 6 && !strcmp(exe + len - 6, "/.libs"))
        exe[len - 6] = '\0';
    char build[PATH_MAX];
    if (!realpath(AK_BUILD_EXE_DIR, build) || strcmp(build, exe) != 0)
        return NULL;
    return AK_BUILD_PLUGIN_PATH;
}

static int load_bone_names(cli *c, const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "animkit: %s: cannot open the bone-name dictionary\n", path);
        return EX_NOINPUT;
    }
    size_t cap = 0;
    char *line = NULL;
    size_t len = 0;
    ssize_t got;
    while ((got = getline(&line, &len, fp)) >= 0) {
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = '\0';
        if (got == 0)
            continue;
        if (c->bone_name_count == cap) {
            cap = cap ? cap * 2 : 256;
            char **p = realloc(c->bone_names, cap * sizeof *p);
            if (!p)
                break;
            c->bone_names = p;
        }
        c->bone_names[c->bone_name_count] = strdup(line);
        if (c->bone_names[c->bone_name_count])
            c->bone_name_count++;
    }
    free(line);
    fclose(fp);
    return 0;
}

/* What every read of the CLI does after the plugin's: bone names from the
 * dictionary, the skeleton of --skeleton. */
static int finish_read(cli *c, ak_doc **doc, const char *path)
{
    if (c->bone_name_count)
        ak_doc_name_bones(*doc, (const char *const *)c->bone_names, c->bone_name_count);
    int rc = cli_skeleton_attach(c, *doc, path);
    if (rc) {
        ak_doc_free(*doc);
        *doc = NULL;
    }
    return rc;
}

int cli_read(cli *c, const char *path, ak_doc **doc, int show_warnings)
{
    ak_report rep = { 0 };
    rep.on_message = show_warnings ? cli_print_message : NULL;
    ak_options o = { sizeof o, c->format, path, c->params, 0, c->strict ? AK_READ_STRICT : 0 };
    if (cli_is_stdio(path)) {
        rep.on_message = show_warnings ? cli_print_stdin_message : NULL;
        int rc = cli_read_stdin(c, &o, doc, &rep);
        if (rc && rep.status != AK_OK && !show_warnings) {
            fprintf(stderr, "animkit: -: ");
            cli_put_text(stderr, rep.message);
            fputc('\n', stderr);
        }
        return rc ? rc : finish_read(c, doc, path);
    }
    ak_status st = ak_read_file(c->reg, path, &o, doc, &rep);
    if (st != AK_OK) {
        if (!show_warnings) {
            fprintf(stderr, "animkit: ");
            cli_put_text(stderr, rep.message);
            fputc('\n', stderr);
        }
        return ak_status_exit(st);
    }
    return finish_read(c, doc, path);
}

/* Appends to a list that keeps a NULL after its last item. */
static int add_item(cli_list *list, int *count, const char ***view, const char *value)
{
    if (list->count + 1 >= list->capacity) {
        int cap = list->capacity ? list->capacity * 2 : 16;
        const char **p = cap > list->capacity ? realloc(list->items, (size_t)cap * sizeof *p) : NULL;
        if (!p) {
            fprintf(stderr, "animkit: out of memory\n");
            return EX_OSERR;
        }
        list->items = p;
        list->capacity = cap;
    }
    list->items[list->count++] = value;
    list->items[list->count] = NULL;
    *count = list->count;
    *view = list->items;
    return 0;
}

static int add_param(cli *c, const char *key, const char *value)
{
    size_t n = strlen(key) + strlen(value) + 2;
    char *p = malloc(n);
    if (!p)
        return EX_OSERR;
    snprintf(p, n, "%s=%s", key, value);
    if (c->owned_count == (int)(sizeof c->owned / sizeof c->owned[0])) {
        free(p);
        return usage_error("%s given too often", key);
    }
    c->owned[c->owned_count++] = p;
    return add_item(&c->param_list, &c->param_count, &c->params, p);
}

enum { OPT_FORCE = 1000, OPT_JSON, OPT_RAW, OPT_TICKS, OPT_VARIANT, OPT_FPS,
       OPT_IN_PLACE, OPT_AS, OPT_MAP, OPT_SPEED, OPT_TRIM, OPT_REVERSE, OPT_TOL, OPT_STRICT };

static int parse_args(cli *c, int argc, char **argv, int *help)
{
    static const struct option longopts[] = {
        { "config", required_argument, NULL, 'c' }, { "format", required_argument, NULL, 'f' },
        { "to", required_argument, NULL, 't' },     { "clip", required_argument, NULL, 'C' },
        { "bones", required_argument, NULL, 'b' },  { "param", required_argument, NULL, 'p' },
        { "skeleton", required_argument, NULL, 's' },
        { "force", no_argument, NULL, OPT_FORCE },  { "json", no_argument, NULL, OPT_JSON },
        { "raw", no_argument, NULL, OPT_RAW },      { "ticks", no_argument, NULL, OPT_TICKS },
        { "variant", required_argument, NULL, OPT_VARIANT }, { "fps", required_argument, NULL, OPT_FPS },
        { "strict", no_argument, NULL, OPT_STRICT },
        { "verbose", no_argument, NULL, 'v' },      { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { "output", required_argument, NULL, 'o' }, { "recursive", no_argument, NULL, 'r' },
        { "jobs", required_argument, NULL, 'j' },   { "in-place", no_argument, NULL, OPT_IN_PLACE },
        { "as", required_argument, NULL, OPT_AS },  { "map", required_argument, NULL, OPT_MAP },
        { "speed", required_argument, NULL, OPT_SPEED }, { "trim", required_argument, NULL, OPT_TRIM },
        { "reverse", no_argument, NULL, OPT_REVERSE }, { "tol", required_argument, NULL, OPT_TOL },
        { NULL, 0, NULL, 0 },
    };
    int opt, rc;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":c:f:t:C:b:p:s:vhVo:rj:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'c': c->config_file = optarg; break;
        case 'f': c->format = optarg; break;
        case 't': c->to = optarg; break;
        case 'b': c->bones = optarg; break;
        case 's': c->skeleton = optarg; break;
        case 'C':
            if ((rc = add_item(&c->clip_list, &c->clip_count, &c->clips, optarg)))
                return rc;
            break;
        case 'p':
            if (!strchr(optarg, '='))
                return usage_error("-p wants KEY=VALUE, not '%s'", optarg);
            if ((rc = add_item(&c->param_list, &c->param_count, &c->params, optarg)))
                return rc;
            break;
        case OPT_VARIANT:
            if ((rc = add_param(c, "variant", optarg)))
                return rc;
            break;
        case OPT_FPS: {
            double fps = 0;
            size_t len = strlen(optarg);
            if (!len || ak_parse_number(optarg, len, &fps) != len || !(fps > 0 && fps < 1e6))
                return usage_error("--fps wants a positive number, not '%s'", optarg);
            if ((rc = add_param(c, "fps", optarg)))
                return rc;
            c->fps = optarg;
            break;
        }
        case 'j': {
            char *end;
            long j = strtol(optarg, &end, 10);
            if (end == optarg || *end || j < 1 || j > 1024)
                return usage_error("-j wants a number of threads from 1 to 1024, not '%s'", optarg);
            c->jobs = (int)j;
            break;
        }
        case 'o': c->output = optarg; break;
        case 'r': c->recursive = 1; break;
        case OPT_IN_PLACE: c->in_place = 1; break;
        case OPT_AS: c->as = optarg; break;
        case OPT_MAP: c->map = optarg; break;
        case OPT_SPEED: c->speed = optarg; break;
        case OPT_TRIM: c->trim = optarg; break;
        case OPT_REVERSE: c->reverse = 1; break;
        case OPT_TOL: c->tol = optarg; break;
        case OPT_FORCE: c->force = 1; break;
        case OPT_JSON: c->json = 1; break;
        case OPT_RAW: c->raw = 1; break;
        case OPT_TICKS: c->ticks = 1; break;
        case OPT_STRICT: c->strict = 1; break;
        case 'v': c->verbose = 1; break;
        case 'h': *help = 1; break;
        case 'V':
            printf("animkit %s (plugin ABI %d.%d)\n", ak_version(), AK_ABI_MAJOR, AK_ABI_MINOR);
            exit(0);
        case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (!c->command)
            c->command = argv[i];
        else if ((rc = add_item(&c->arg_list, &c->arg_count, &c->args, argv[i])))
            return rc;
    }
    return 0;
}

static int open_registry(cli *c)
{
    /* The process ends soon after the registry is freed. */
    ak_registry_config cfg = { sizeof cfg, AK_REG_KEEP_LOADED, c->config_file, NULL, cli_print_message, NULL,
                               build_tree_plugin_path() };
    ak_report rep = { 0 };
    rep.on_message = cli_print_message;
    ak_status st = ak_registry_open(&cfg, &c->reg, &rep);
    if (st != AK_OK)
        return ak_status_exit(st);
    const char *dict = c->bones ? c->bones : ak_registry_bone_names(c->reg);
    return dict ? load_bone_names(c, dict) : 0;
}

int main(int argc, char **argv)
{
    cli_check_stdout_at_exit();
    cli c;
    memset(&c, 0, sizeof c);
    int help = 0;
    int rc = parse_args(&c, argc, argv, &help);
    if (rc)
        return rc;
    if (help)
        return c.command ? show_command_help(c.command) : (fputs(usage_text, stdout), 0);
    if (!c.command)
        return usage_error("no command given%s", "");
    static const struct { const char *name; int (*run)(cli *); } commands[] = {
        { "formats", cmd_formats }, { "probe", cmd_probe },     { "info", cmd_info },
        { "dump", cmd_dump },       { "convert", cmd_convert }, { "validate", cmd_validate },
        { "replace", cmd_replace }, { "merge", cmd_merge },     { "split", cmd_split },
        { "rename", cmd_rename },   { "remove", cmd_remove },   { "bones", cmd_bones },
        { "retime", cmd_retime },   { "diff", cmd_diff },
    };
    int (*run)(cli *) = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(commands[i].name, c.command))
            run = commands[i].run;
    if (!run)
        return usage_error("unknown command '%s'", c.command);
    rc = open_registry(&c);
    if (rc == 0)
        rc = cli_skeleton_load(&c);
    if (rc == 0)
        rc = run(&c);
    cli_skeleton_free(&c);
    ak_registry_free(c.reg);
    for (size_t i = 0; i < c.bone_name_count; i++)
        free(c.bone_names[i]);
    free(c.bone_names);
    for (int i = 0; i < c.owned_count; i++)
        free(c.owned[i]);
    free(c.clip_list.items);
    free(c.param_list.items);
    free(c.arg_list.items);
    return rc;
}
