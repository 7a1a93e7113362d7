/* config.c - finding and reading the INI config (with inih), then loading
 * the plugins it names. */
#include "registry.h"

#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SECTIONS 64

typedef struct plugin_section {
    char name[64];
    char path[PATH_MAX];
    int enabled;
    int priority;
    int line;
    int path_too_long; /* the path key did not fit: never fall back to NAME.so */
    int path_line;
} plugin_section;

typedef struct config {
    const char *file;
    char dir[PATH_MAX];          /* folder of the config file, for relative paths */
    char plugin_dir[4096];       /* colon-separated */
    int autoload;
    char bone_names[PATH_MAX];
    plugin_section sections[MAX_SECTIONS];
    int section_count;
    int line;                    /* line inih is parsing (counted by line_reader) */
    int long_line;               /* a line longer than inih's buffer, or 0 */
    int plugin_dir_set;          /* this file set plugin_dir: later lines append */
    ak_registry *reg;
    ak_report *report;
    int broken;
} config;

typedef struct line_stream {
    FILE *fp;
    config *cfg;
    int at_line_start;
} line_stream;

/* inih gives no line numbers to handlers, so the reader counts them. */
static char *line_reader(char *str, int num, void *stream)
{
    line_stream *ls = stream;
    char *s = fgets(str, num, ls->fp);
    if (!s)
        return NULL;
    if (ls->at_line_start)
        ls->cfg->line++;
    ls->at_line_start = strchr(s, '\n') != NULL;
    if (!ls->at_line_start && !feof(ls->fp) && !ls->cfg->long_line)
        ls->cfg->long_line = ls->cfg->line;
    return s;
}

static int parse_bool(const char *v, int *out)
{
    if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "on"))
        *out = 1;
    else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "off"))
        *out = 0;
    else
        return 0;
    return 1;
}

/* snprintf that says whether everything fit; a cut path must not be used. */
static int format_fits(int written, size_t size) { return written >= 0 && (size_t)written < size; }

static int resolve_relative(const config *cfg, const char *value, char *out, size_t n)
{
    int fits = value[0] == '/' || !cfg->dir[0] ? format_fits(snprintf(out, n, "%s", value), n)
                                                 : format_fits(snprintf(out, n, "%s/%s", cfg->dir, value), n);
    if (!fits)
        out[0] = '\0';
    return fits;
}

static void config_error(config *cfg, const char *fmt, const char *a, const char *b)
{
    char text[512];
    snprintf(text, sizeof text, fmt, a, b);
    ak_report_emit(cfg->report, AK_ERROR, AK_E_CONFIG, NULL, NULL, -1, "%s:%d: %s", cfg->file, cfg->line,
                   text);
    cfg->broken = 1;
}

static void config_warning(config *cfg, const char *fmt, const char *a, const char *b)
{
    char text[512];
    snprintf(text, sizeof text, fmt, a, b);
    ak_registry_warn(cfg->reg, NULL, "%s:%d: %s", cfg->file, cfg->line, text);
}

static plugin_section *section_for(config *cfg, const char *name)
{
    for (int i = 0; i < cfg->section_count; i++)
        if (strcmp(cfg->sections[i].name, name) == 0)
            return &cfg->sections[i];
    if (cfg->section_count == MAX_SECTIONS || strlen(name) >= sizeof cfg->sections[0].name) {
        config_error(cfg, "too many plugin sections, or name too long: '%s'%s", name, "");
        return NULL;
    }
    plugin_section *s = &cfg->sections[cfg->section_count++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->enabled = 1;
    s->line = cfg->line;
    return s;
}

static void main_key(config *cfg, const char *key, const char *value)
{
    if (!strcmp(key, "plugin_dir")) {
        /* Relative folders are taken from the config file's folder. The
         * first plugin_dir replaces the default; more lines append, since
         * inih cannot read one very long line. */
        char joined[4096] = "";
        if (cfg->plugin_dir_set)
            snprintf(joined, sizeof joined, "%s", cfg->plugin_dir);
        cfg->plugin_dir_set = 1;
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", value);
        for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
            char abs[PATH_MAX];
            if (!resolve_relative(cfg, dir, abs, sizeof abs)) {
                config_error(cfg, "plugin_dir folder '%.200s' is too long%s", dir, "");
                continue;
            }
            size_t used = strlen(joined);
            if (!format_fits(snprintf(joined + used, sizeof joined - used, "%s%s", used ? ":" : "", abs),
                             sizeof joined - used))
                config_error(cfg, "plugin_dir is too long%s%s", "", "");
        }
        snprintf(cfg->plugin_dir, sizeof cfg->plugin_dir, "%s", joined);
    } else if (!strcmp(key, "autoload")) {
        if (!parse_bool(value, &cfg->autoload))
            config_error(cfg, "autoload must be yes or no, not '%s'%s", value, "");
    } else if (!strcmp(key, "bone_names")) {
        if (!resolve_relative(cfg, value, cfg->bone_names, sizeof cfg->bone_names))
            config_error(cfg, "bone_names path is too long%s%s", "", "");
    } else {
        config_warning(cfg, "unknown key '%s' in [animkit]%s", key, "");
    }
}

static void plugin_key(config *cfg, plugin_section *s, const char *key, const char *value)
{
    if (!strcmp(key, "path")) {
        /* a bare file name is looked up in plugin_dir later */
        int fits = strchr(value, '/') ? resolve_relative(cfg, value, s->path, sizeof s->path)
                                      : format_fits(snprintf(s->path, sizeof s->path, "%s", value), sizeof s->path);
        s->path_too_long = !fits;
        s->path_line = cfg->line;
        if (!fits)
            snprintf(s->path, sizeof s->path, "%.200s...", value);
    } else if (!strcmp(key, "enabled")) {
        if (!parse_bool(value, &s->enabled))
            config_error(cfg, "enabled must be yes or no, not '%s'%s", value, "");
    } else if (!strcmp(key, "priority")) {
        char *end;
        errno = 0;
        long p = strtol(value, &end, 10);
        if (end == value || *end || errno || p < INT_MIN / 2 || p > INT_MAX / 2)
            config_error(cfg, "priority must be an integer, not '%s'%s", value, "");
        else
            s->priority = (int)p;
    } else {
        config_warning(cfg, "unknown key '%s' in [plugin %s]", key, s->name);
    }
}

static int on_entry(void *user, const char *section, const char *key, const char *value)
{
    config *cfg = user;
    if (!strcmp(section, "animkit")) {
        main_key(cfg, key, value);
    } else if (!strncmp(section, "plugin ", 7) && section[7]) {
        plugin_section *s = section_for(cfg, section + 7);
        if (s)
            plugin_key(cfg, s, key, value);
    } else {
        config_warning(cfg, "key '%s' in unknown section [%s] ignored", key, section);
    }
    return 1; /* keep going: unknown keys only warn */
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Finds `file` (a bare file name) in the colon-separated folders. */
static int find_in_dirs(const char *dirs, const char *file, char *out, size_t n)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", dirs);
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        if (format_fits(snprintf(out, n, "%s/%s", dir, file), n) && file_exists(out))
            return 1;
    }
    return 0;
}

static int path_claimed(const config *cfg, const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return 0;
    for (int i = 0; i < cfg->section_count; i++) {
        char other[PATH_MAX];
        if (realpath(cfg->sections[i].path, other) && strcmp(real, other) == 0)
            return 1;
    }
    return 0;
}

static int is_disabled_name(const config *cfg, const char *stem)
{
    for (int i = 0; i < cfg->section_count; i++)
        if (!cfg->sections[i].enabled && strcmp(cfg->sections[i].name, stem) == 0)
            return 1;
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Loads every *.so of one folder that no section has claimed, in name order
 * so that registration (and so tie reports) is the same on every run. */
static void autoload_dir(config *cfg, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char **names = NULL;
    size_t count = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len <= 3 || strcmp(e->d_name + len - 3, ".so") != 0)
            continue;
        if (count == cap) {
            size_t n = cap ? cap * 2 : 64;
            char **p = realloc(names, n * sizeof *p);
            if (!p)
                break;
            names = p;
            cap = n;
        }
        if ((names[count] = strdup(e->d_name)) != NULL)
            count++;
    }
    closedir(d);
    if (count)
        qsort(names, count, sizeof names[0], compare_names);
    for (size_t i = 0; i < count; i++) {
        char path[PATH_MAX];
        char stem[256];
        int fits = format_fits(snprintf(path, sizeof path, "%s/%s", dir, names[i]), sizeof path) &&
                   format_fits(snprintf(stem, sizeof stem, "%.*s", (int)(strlen(names[i]) - 3), names[i]),
                               sizeof stem);
        if (!fits)
            ak_registry_refuse(cfg->reg, names[i], dir, "its path is too long to load");
        else if (!path_claimed(cfg, path) && !is_disabled_name(cfg, stem))
            ak_registry_load(cfg->reg, stem, path, 0, AK_STANDING_AUTOLOAD);
        free(names[i]);
    }
    free(names);
}

static void load_plugins(config *cfg)
{
    for (int i = 0; i < cfg->section_count; i++) {
        plugin_section *s = &cfg->sections[i];
        if (!s->enabled)
            continue;
        if (s->path_too_long) {
            ak_registry_refuse(cfg->reg, s->name, s->path, "its path (line %d) is too long", s->path_line);
            continue;
        }
        if (!s->path[0])
            snprintf(s->path, sizeof s->path, "%s.so", s->name);
        if (!strchr(s->path, '/')) {
            char found[PATH_MAX];
            if (find_in_dirs(cfg->plugin_dir, s->path, found, sizeof found)) {
                snprintf(s->path, sizeof s->path, "%s", found);
            } else {
                ak_registry_refuse(cfg->reg, s->name, s->path, "not found in plugin_dir (%s)",
                                   cfg->plugin_dir);
                continue;
            }
        }
        ak_registry_load(cfg->reg, s->name, s->path, s->priority, AK_STANDING_CONFIG);
    }
    if (!cfg->autoload)
        return;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", cfg->plugin_dir);
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
        autoload_dir(cfg, dir);
}

static ak_status parse_file(config *cfg, const char *path)
{
    /* The config names code to load: it must be as trusted as the plugins. */
    char why[PATH_MAX + 256];
    int fd = ak_trust_open(path, "config file", cfg->reg->unsafe, why, sizeof why);
    FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!fp) {
        if (fd >= 0) {
            snprintf(why, sizeof why, "%s", strerror(errno));
            close(fd);
        }
        ak_report_emit(cfg->report, AK_ERROR, AK_E_CONFIG, path, NULL, -1, "cannot open config file: %s", why);
        return AK_E_CONFIG;
    }
    cfg->file = path;
    const char *slash = strrchr(path, '/');
    if (slash && !format_fits(snprintf(cfg->dir, sizeof cfg->dir, "%.*s", (int)(slash - path), path),
                              sizeof cfg->dir)) {
        ak_report_emit(cfg->report, AK_ERROR, AK_E_CONFIG, path, NULL, -1, "config path is too long");
        fclose(fp);
        return AK_E_CONFIG;
    }
    if (!slash && !getcwd(cfg->dir, sizeof cfg->dir))
        cfg->dir[0] = '\0';
    line_stream ls = { fp, cfg, 1 };
    int rc = ini_parse_stream(line_reader, &ls, on_entry, cfg);
    fclose(fp);
    /* inih cuts long lines in pieces, parses the rest as a line of its own
     * and counts it: name the real line instead. */
    if (cfg->long_line) {
        ak_report_emit(cfg->report, AK_ERROR, AK_E_CONFIG, NULL, NULL, -1,
                       "%s:%d: line longer than %d characters; split it (plugin_dir may be given on "
                       "several lines)", path, cfg->long_line, INI_MAX_LINE - 2);
        return AK_E_CONFIG;
    }
    if (rc > 0) {
        ak_report_emit(cfg->report, AK_ERROR, AK_E_CONFIG, NULL, NULL, -1, "%s:%d: syntax error", path, rc);
        return AK_E_CONFIG;
    }
    if (rc < 0) {
        ak_report_emit(cfg->report, AK_ERROR, AK_E_CONFIG, path, NULL, -1, "cannot read config file");
        return AK_E_CONFIG;
    }
    return cfg->broken ? AK_E_CONFIG : AK_OK;
}

/* The first config in the search order, or NULL for the built-in default.
 * An explicitly named file that does not exist is an error. */
static const char *find_config(const ak_registry_config *rc, char *buf, size_t n, int *explicit_file)
{
    *explicit_file = 1;
    if (rc && rc->config_file)
        return rc->config_file;
    if (rc && (rc->flags & AK_REG_NO_SEARCH))
        return NULL;
    const char *env = getenv("ANIMKIT_CONFIG");
    if (env && *env)
        return env;
    *explicit_file = 0;
    /* Relative locations are ignored (as the XDG spec says), so nothing is
     * ever read from the current folder; so is a path that does not fit. */
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    int fits = 0;
    if (xdg && xdg[0] == '/')
        fits = format_fits(snprintf(buf, n, "%s/animkit/animkit.ini", xdg), n);
    else if (home && home[0] == '/')
        fits = format_fits(snprintf(buf, n, "%s/.config/animkit/animkit.ini", home), n);
    if (fits && file_exists(buf))
        return buf;
    if (format_fits(snprintf(buf, n, "%s/animkit/animkit.ini", AK_SYSCONFDIR), n) && file_exists(buf))
        return buf;
    return NULL;
}

ak_status ak_registry_open(const ak_registry_config *rc, ak_registry **out, ak_report *report)
{
    *out = NULL;
    ak_registry_config defaults = { sizeof defaults, 0, NULL, NULL, NULL, NULL, NULL };
    if (!rc)
        rc = &defaults;
    size_t have = rc->struct_size;
    const char *default_path = have >= offsetof(ak_registry_config, default_plugin_path) + sizeof(char *)
                                   ? rc->default_plugin_path
                                   : NULL;
    ak_registry *reg = ak_registry_new(rc->allocator);
    if (!reg)
        return AK_E_NOMEM;
    if (!rc->allocator && !(rc->flags & AK_REG_NO_POOL))
        reg->pool = ak_pool_new(&reg->allocator); /* without one, reads just allocate */
    reg->log.on_message = rc->on_message;
    reg->log.user = rc->user;
    reg->unsafe = (rc->flags & AK_REG_UNSAFE_PLUGINS) || ak_trust_unsafe_env();
    reg->keep_loaded = (rc->flags & AK_REG_KEEP_LOADED) != 0;
    if (reg->unsafe && !(rc->flags & AK_REG_NO_PLUGINS))
        ak_registry_warn(reg, NULL, "plugin trust checks are off (ANIMKIT_UNSAFE_PLUGINS=1 or "
                         "AK_REG_UNSAFE_PLUGINS): plugins and configs are used whoever owns them and their "
                         "folders; for development only");
    if (rc->flags & AK_REG_NO_PLUGINS) {
        *out = reg;
        return AK_OK;
    }
    config *cfg = calloc(1, sizeof *cfg);
    if (!cfg) {
        ak_registry_free(reg);
        return AK_E_NOMEM;
    }
    cfg->reg = reg;
    cfg->report = report;
    cfg->autoload = 1;
    if (!format_fits(snprintf(cfg->plugin_dir, sizeof cfg->plugin_dir, "%s", default_path ? default_path : AK_PLUGINDIR),
                     sizeof cfg->plugin_dir))
        cfg->plugin_dir[0] = '\0'; /* a cut folder list must not be searched */
    char buf[PATH_MAX];
    int explicit_file;
    const char *path = find_config(rc, buf, sizeof buf, &explicit_file);
    ak_status st = AK_OK;
    if (path) {
        st = parse_file(cfg, path);
        if (st == AK_OK && !(reg->config_path = ak_registry_strdup(reg, path)))
            st = AK_E_NOMEM;
        if (st == AK_OK && cfg->bone_names[0] && !(reg->bone_names = ak_registry_strdup(reg, cfg->bone_names)))
            st = AK_E_NOMEM;
    }
    (void)explicit_file;
    if (st == AK_OK)
        load_plugins(cfg);
    free(cfg);
    if (st != AK_OK) {
        ak_registry_free(reg);
        return st;
    }
    *out = reg;
    return AK_OK;
}
