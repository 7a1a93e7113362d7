/* registry.c - the set of codecs: checking descriptors, loading shared
 * objects, and the probe/read/write calls that pick a codec. */
#include "registry.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* Why a descriptor cannot be used, or NULL. */
static const char *codec_problem(const ak_registry *reg, const ak_codec *c, char *buf, size_t n)
{
    if (!c)
        return "its entry function returned no descriptor";
    if (c->abi_major != AK_ABI_MAJOR || c->abi_minor > AK_ABI_MINOR) {
        snprintf(buf, n, "built for animkit ABI %u.%u, but this animkit has ABI %u.%u",
                 c->abi_major, c->abi_minor, AK_ABI_MAJOR, AK_ABI_MINOR);
        return buf;
    }
    size_t need = offsetof(ak_codec, write) + sizeof c->write;
    if (c->struct_size < need) {
        snprintf(buf, n, "descriptor is %u bytes, smaller than the %zu bytes of ABI %u.0",
                 c->struct_size, need, AK_ABI_MAJOR);
        return buf;
    }
    if (!valid_name(c->name))
        return "its name is empty, longer than 31 bytes, or not made of [a-z0-9_]";
    if (!c->version || !c->description || !c->license || !c->extensions)
        return "its descriptor lacks a version, description, licence or extension list";
    if (!c->read && !c->write)
        return "it can neither read nor write";
    const char *bad_params = ak_params_problem(c, buf, n);
    if (bad_params)
        return bad_params;
    const ak_plugin_info *dup = ak_registry_find(reg, c->name);
    if (dup) {
        snprintf(buf, n, "the name '%s' is already taken by %s", c->name, dup->path);
        return buf;
    }
    return NULL;
}

static ak_status add_checked(ak_registry *reg, const ak_codec *codec, const char *path, int priority,
                             void *handle)
{
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
    reg->count++;
    return AK_OK;
}

ak_status ak_registry_add_codec(ak_registry *reg, const ak_codec *codec, int priority, ak_report *report)
{
    char buf[256];
    const char *why = codec_problem(reg, codec, buf, sizeof buf);
    if (why) {
        ak_report_emit(report, AK_ERROR, AK_E_USAGE, NULL, codec && codec->name ? codec->name : NULL, -1,
                       "codec refused: %s", why);
        return AK_E_USAGE;
    }
    return add_checked(reg, codec, "(built-in)", priority, NULL);
}

int ak_registry_load(ak_registry *reg, const char *name, const char *path, int priority)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        ak_registry_refuse(reg, name, path, "file not found");
        return 0;
    }
    if (!S_ISREG(st.st_mode)) {
        ak_registry_refuse(reg, name, path, "not a regular file");
        return 0;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        ak_registry_refuse(reg, name, path, "writable by other users (mode %03o); fix with chmod go-w",
                           (unsigned)(st.st_mode & 0777));
        return 0;
    }
    for (size_t i = 0; i < reg->count; i++)
        if (strcmp(reg->plugins[i].path, path) == 0)
            return 1; /* the same file named twice: load once */
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *err = dlerror();
        ak_registry_refuse(reg, name, path, "cannot be loaded as a shared object: %s", err ? err : "?");
        return 0;
    }
    ak_codec_entry_fn entry;
    void *sym = dlsym(handle, AK_CODEC_ENTRY);
    memcpy(&entry, &sym, sizeof entry);
    if (!sym) {
        ak_registry_refuse(reg, name, path, "no entry symbol '%s'", AK_CODEC_ENTRY);
        dlclose(handle);
        return 0;
    }
    const ak_codec *codec = entry();
    char buf[256];
    const char *why = codec_problem(reg, codec, buf, sizeof buf);
    if (why) {
        ak_registry_refuse(reg, name, path, "%s", why);
        dlclose(handle);
        return 0;
    }
    if (add_checked(reg, codec, path, priority, handle) != AK_OK) {
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
        if (reg->handles[i])
            dlclose(reg->handles[i]);
    }
    for (size_t i = 0; i < reg->refused_count; i++) {
        a.free(a.user, (void *)reg->refused[i].name);
        a.free(a.user, (void *)reg->refused[i].path);
        a.free(a.user, (void *)reg->refused[i].reason);
    }
    a.free(a.user, reg->plugins);
    a.free(a.user, reg->handles);
    a.free(a.user, reg->refused);
    a.free(a.user, reg->config_path);
    a.free(a.user, reg->bone_names);
    a.free(a.user, reg);
}

size_t ak_registry_count(const ak_registry *reg) { return reg->count; }

const ak_plugin_info *ak_registry_plugin(const ak_registry *reg, size_t index)
{
    return index < reg->count ? &reg->plugins[index] : NULL;
}

const ak_plugin_info *ak_registry_find(const ak_registry *reg, const char *name)
{
    for (size_t i = 0; i < reg->count; i++)
        if (strcmp(reg->plugins[i].codec->name, name) == 0)
            return &reg->plugins[i];
    return NULL;
}

size_t ak_registry_refused_count(const ak_registry *reg) { return reg->refused_count; }

const ak_refused_plugin *ak_registry_refused(const ak_registry *reg, size_t index)
{
    return index < reg->refused_count ? &reg->refused[index] : NULL;
}

const char *ak_registry_config_path(const ak_registry *reg) { return reg->config_path; }
const char *ak_registry_bone_names(const ak_registry *reg) { return reg->bone_names; }
