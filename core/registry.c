/* registry.c - the set of codecs: checking descriptors, loading shared
 * objects, and the probe/read/write calls that pick a codec. */
#include "registry.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const ak_allocator *ak_registry_allocator(const ak_registry *reg) { return &reg->allocator; }

char *ak_registry_strdup(ak_registry *reg, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = reg->allocator.alloc(reg->allocator.user, n);
    if (p)
        memcpy(p, s, n);
    return p;
}

void ak_registry_warn(ak_registry *reg, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ak_report_emitv(&reg->log, AK_WARNING, AK_OK, file, NULL, -1, fmt, ap);
    va_end(ap);
}

ak_registry *ak_registry_new(const ak_allocator *allocator)
{
    if (!allocator)
        allocator = &ak_default_allocator;
    ak_registry *reg = allocator->alloc(allocator->user, sizeof *reg);
    if (!reg)
        return NULL;
    memset(reg, 0, sizeof *reg);
    reg->allocator = *allocator;
    return reg;
}

static void *reg_grow(ak_registry *reg, void *items, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return items;
    size_t n = *cap ? *cap * 2 : 8;
    void *p = reg->allocator.realloc(reg->allocator.user, items, n * elem);
    if (p)
        *cap = n;
    return p;
}

void ak_registry_refuse(ak_registry *reg, const char *name, const char *path, const char *fmt, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    ak_report_emit(&reg->log, AK_WARNING, AK_OK, path, NULL, -1, "plugin '%s' refused: %s", name, reason);
    void *p = reg_grow(reg, reg->refused, &reg->refused_cap, reg->refused_count + 1,
                       sizeof(ak_refused_plugin));
    if (!p)
        return;
    reg->refused = p;
    ak_refused_plugin *r = &reg->refused[reg->refused_count];
    r->name = ak_registry_strdup(reg, name);
    r->path = ak_registry_strdup(reg, path);
    r->reason = ak_registry_strdup(reg, reason);
    if (r->name && r->path && r->reason) {
        reg->refused_count++;
        return;
    }
    /* Out of memory: the warning went out, the record is dropped whole. */
    reg->allocator.free(reg->allocator.user, (void *)r->name);
    reg->allocator.free(reg->allocator.user, (void *)r->path);
    reg->allocator.free(reg->allocator.user, (void *)r->reason);
}

static int valid_name(const char *name)
{
    if (!name || !*name || strlen(name) > 31)
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return 0;
    return 1;
}

/* Why a plugin built for this ABI and descriptor size cannot be used, or NULL. */
static const char *abi_problem(uint32_t major, uint32_t minor, uint32_t struct_size, char *buf, size_t n)
{
    if (major != AK_ABI_MAJOR || minor > AK_ABI_MINOR) {
        snprintf(buf, n, "built for animkit ABI %u.%u, but this animkit has ABI %u.%u", major, minor,
                 AK_ABI_MAJOR, AK_ABI_MINOR);
        return buf;
    }
    size_t need = offsetof(ak_codec, write) + sizeof(((ak_codec *)0)->write);
    if (struct_size < need) {
        snprintf(buf, n, "descriptor is %u bytes, smaller than the %zu bytes of ABI %u.0", struct_size, need,
                 AK_ABI_MAJOR);
        return buf;
    }
    return NULL;
}

/* Why a descriptor cannot be used, or NULL; `check_dup` also refuses a
 * name already taken. */
static const char *codec_problem(const ak_registry *reg, const ak_codec *c, char *buf, size_t n, int check_dup)
{
    if (!c)
        return "its entry function returned no descriptor";
    const char *abi = abi_problem(c->abi_major, c->abi_minor, c->struct_size, buf, n);
    if (abi)
        return abi;
    if (!valid_name(c->name))
        return "its name is empty, longer than 31 bytes, or not made of [a-z0-9_]";
    if (!c->version || !c->description || !c->license || !c->extensions)
        return "its descriptor lacks a version, description, licence or extension list";
    if (!c->read && !c->write)
        return "it can neither read nor write";
    const char *bad_params = ak_params_problem(c, buf, n);
    if (bad_params)
        return bad_params;
    const ak_plugin_info *dup = check_dup ? ak_registry_find(reg, c->name) : NULL;
    if (dup) {
        snprintf(buf, n, "the name '%s' is already taken by %s", c->name, dup->path);
        return buf;
    }
    return NULL;
}

static ak_status add_checked(ak_registry *reg, const ak_codec *codec, const char *path, int priority,
                             void *handle, int standing)
{
    void *st = reg_grow(reg, reg->standing, &reg->standing_cap, reg->count + 1, sizeof(int));
    if (!st)
        return AK_E_NOMEM;
    reg->standing = st;
    void *p = reg_grow(reg, reg->plugins, &reg->plugin_cap, reg->count + 1, sizeof(ak_plugin_info));
    if (!p)
        return AK_E_NOMEM;
    reg->plugins = p;
    p = reg_grow(reg, reg->handles, &reg->handle_cap, reg->count + 1, sizeof(void *));
    if (!p)
        return AK_E_NOMEM;
    reg->handles = p;
    char *path_copy = ak_registry_strdup(reg, path);
    if (!path_copy)
        return AK_E_NOMEM;
    reg->plugins[reg->count] = (ak_plugin_info){ codec, path_copy, priority };
    reg->handles[reg->count] = handle;
    reg->standing[reg->count] = standing;
    reg->count++;
    return AK_OK;
}

ak_status ak_registry_add_codec(ak_registry *reg, const ak_codec *codec, int priority, ak_report *report)
{
    char buf[256];
    const char *why = codec_problem(reg, codec, buf, sizeof buf, 1);
    if (why) {
        ak_report_emit(report, AK_ERROR, AK_E_USAGE, NULL, codec && codec->name ? codec->name : NULL, -1,
                       "codec refused: %s", why);
        return AK_E_USAGE;
    }
    return add_checked(reg, codec, "(built-in)", priority, NULL, AK_STANDING_BUILTIN);
}

static const char *standing_text(int standing)
{
    switch (standing) {
    case AK_STANDING_BUILTIN: return "built in";
    case AK_STANDING_CONFIG: return "named in the config";
    case AK_STANDING_AUTOLOAD: return "autoloaded as its own name";
    default: return "autoloaded from a file named otherwise";
    }
}

static void remove_plugin(ak_registry *reg, size_t i)
{
    reg->allocator.free(reg->allocator.user, (void *)reg->plugins[i].path);
    if (reg->handles[i])
        dlclose(reg->handles[i]);
    size_t tail = reg->count - i - 1;
    memmove(&reg->plugins[i], &reg->plugins[i + 1], tail * sizeof reg->plugins[0]);
    memmove(&reg->handles[i], &reg->handles[i + 1], tail * sizeof reg->handles[0]);
    memmove(&reg->standing[i], &reg->standing[i + 1], tail * sizeof reg->standing[0]);
    reg->count--;
}

/* Two plugins calling themselves the same: 1 when the new one (at `path`,
 * of `standing`) is to be used, after recording the refusal of the loser. */
static int wins_name(ak_registry *reg, const char *name, const char *path, const char *codec_name, int standing)
{
    const ak_plugin_info *dup = ak_registry_find(reg, codec_name);
    if (!dup)
        return 1;
    size_t i = (size_t)(dup - reg->plugins);
    if (reg->standing[i] >= standing) {
        ak_registry_refuse(reg, name, path, "the name '%s' is already taken by %s (%s), which is used; %s",
                           codec_name, dup->path, standing_text(reg->standing[i]),
                           reg->standing[i] == standing ? "both have equal standing: rename or disable one"
                                                        : "disable one of them to silence this");
        return 0;
    }
    ak_registry_refuse(reg, codec_name, dup->path, "the name '%s' is also taken by %s (%s), which is used "
                       "instead of this file (%s)", codec_name, path, standing_text(standing),
                       standing_text(reg->standing[i]));
    remove_plugin(reg, i);
    return 1;
}

/* Why the entry symbol may be missing: a mangled or hidden look-alike. */
static void refuse_no_entry(ak_registry *reg, const char *name, const char *path, int fd)
{
    char found[256];
    int hidden = 0;
    if (!ak_elf_find_symbol_like(fd, AK_CODEC_ENTRY, found, sizeof found, &hidden))
        ak_registry_refuse(reg, name, path, "no entry symbol '%s' (declare it with AK_PLUGIN_ENTRY(), which "
                           "gives it C linkage and default visibility)", AK_CODEC_ENTRY);
    else if (hidden)
        ak_registry_refuse(reg, name, path, "no entry symbol '%s': it exists but is hidden (local or not "
                           "default visibility); declare it with AK_PLUGIN_ENTRY()", AK_CODEC_ENTRY);
    else
        ak_registry_refuse(reg, name, path, "no entry symbol '%s': found '%s' instead, a C++-mangled name? "
                           "Declare it with AK_PLUGIN_ENTRY(), which gives it C linkage", AK_CODEC_ENTRY, found);
}

/* Checks the file and its note; the open descriptor, or -1 after a refusal. */
static int open_checked(ak_registry *reg, const char *name, const char *path, int *has_note)
{
    char why[PATH_MAX + 256];
    int fd = ak_trust_open(path, "plugin", reg->unsafe, why, sizeof why);
    if (fd < 0) {
        ak_registry_refuse(reg, name, path, "%s", why);
        return -1;
    }
    ak_plugin_note note;
    int found = ak_elf_read_note(fd, &note, why, sizeof why);
    const char *abi = found == 1 ? abi_problem(note.abi_major, note.abi_minor, note.struct_size, why, sizeof why)
                                 : NULL;
    if (found < 0 || abi) {
        ak_registry_refuse(reg, name, path, "%s%s", why, abi ? " (from its ELF note; none of its code was run)" : "");
        close(fd);
        return -1;
    }
    *has_note = found;
    return fd;
}

int ak_registry_load(ak_registry *reg, const char *name, const char *path, int priority, int standing)
{
    for (size_t i = 0; i < reg->count; i++)
        if (strcmp(reg->plugins[i].path, path) == 0)
            return 1; /* the same file named twice: load once */
    int has_note = 0;
    int fd = open_checked(reg, name, path, &has_note);
    if (fd < 0)
        return 0;
    void *handle = ak_load_fd(&fd, reg->loads++);
    if (!handle) {
        const char *err = dlerror();
        ak_registry_refuse(reg, name, path, "cannot be loaded as a shared object: %s", err ? err : "?");
        close(fd);
        return 0;
    }
    ak_codec_entry_fn entry;
    void *sym = dlsym(handle, AK_CODEC_ENTRY);
    memcpy(&entry, &sym, sizeof entry);
    if (!sym) {
        refuse_no_entry(reg, name, path, fd);
        close(fd);
        dlclose(handle);
        return 0;
    }
    close(fd);
    const ak_codec *codec = entry();
    char buf[256];
    const char *why = codec_problem(reg, codec, buf, sizeof buf, 0);
    if (why) {
        ak_registry_refuse(reg, name, path, "%s", why);
        dlclose(handle);
        return 0;
    }
    if (!has_note)
        ak_registry_warn(reg, path, "plugin '%s' has no animkit ABI note, so its code ran before its ABI "
                         "could be checked; rebuild it with AK_PLUGIN_ENTRY()", codec->name);
    if (standing == AK_STANDING_CONFIG && strcmp(name, codec->name) != 0)
        ak_registry_warn(reg, path, "config section [plugin %s] loads a plugin that calls itself '%s'", name,
                         codec->name);
    if (standing == AK_STANDING_AUTOLOAD && strcmp(name, codec->name) != 0)
        standing = AK_STANDING_AUTOLOAD_OTHER;
    if (!wins_name(reg, name, path, codec->name, standing) ||
        add_checked(reg, codec, path, priority, handle, standing) != AK_OK) {
        dlclose(handle);
        return 0;
    }
    return 1;
}

void ak_registry_free(ak_registry *reg)
{
    if (!reg)
        return;
    ak_allocator a = reg->allocator;
    for (size_t i = 0; i < reg->count; i++) {
        a.free(a.user, (void *)reg->plugins[i].path);
        if (reg->handles[i] && !reg->keep_loaded)
            dlclose(reg->handles[i]);
    }
    for (size_t i = 0; i < reg->refused_count; i++) {
        a.free(a.user, (void *)reg->refused[i].name);
        a.free(a.user, (void *)reg->refused[i].path);
        a.free(a.user, (void *)reg->refused[i].reason);
    }
    a.free(a.user, reg->plugins);
    a.free(a.user, reg->handles);
    a.free(a.user, reg->standing);
    a.free(a.user, reg->refused);
    a.free(a.user, reg->config_path);
    a.free(a.user, reg->bone_names);
    ak_pool_release(reg->pool); /* documents still open hold it until freed */
    a.free(a.user, reg);
}

size_t ak_registry_trim(const ak_registry *reg) { return reg ? ak_pool_trim(reg->pool) : 0; }

size_t ak_registry_count(const ak_registry *reg) { return reg->count; }

const ak_plugin_info *ak_registry_plugin(const ak_registry *reg, size_t index)
{
    return index < reg->count ? &reg->plugins[index] : NULL;
}

const ak_plugin_info *ak_registry_find(const ak_registry *reg, const char *name)
{
    /* The first letters first: every write by name asks, and a strcmp
     * for each plugin up to the one named (three in the benchmark's
     * registry) was about 105 of the 530 instructions ak_write() spent
     * outside the plugin on a small anm file (callgrind). */
    for (size_t i = 0; i < reg->count; i++) {
        const char *n = reg->plugins[i].codec->name;
        if (n[0] == name[0] && strcmp(n, name) == 0)
            return &reg->plugins[i];
    }
    return NULL;
}

size_t ak_registry_refused_count(const ak_registry *reg) { return reg->refused_count; }

const ak_refused_plugin *ak_registry_refused(const ak_registry *reg, size_t index)
{
    return index < reg->refused_count ? &reg->refused[index] : NULL;
}

const char *ak_registry_config_path(const ak_registry *reg) { return reg->config_path; }
const char *ak_registry_bone_names(const ak_registry *reg) { return reg->bone_names; }
