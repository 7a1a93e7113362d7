/* registry.h - the registry's insides, shared by registry.c, config.c and
 * codec.c; not installed. */
#ifndef ANIMKIT_REGISTRY_H
#define ANIMKIT_REGISTRY_H

#include "internal.h"

struct ak_registry {
    ak_allocator allocator;
    ak_plugin_info *plugins;
    void **handles; /* dlopen handles, parallel to plugins; NULL for built-ins */
    size_t count, plugin_cap, handle_cap;
    ak_refused_plugin *refused;
    size_t refused_count, refused_cap;
    char *config_path;
    char *bone_names;
    ak_report log; /* where loading warnings go */
};

ak_registry *ak_registry_new(const ak_allocator *allocator);
char *ak_registry_strdup(ak_registry *reg, const char *s);
void ak_registry_warn(ak_registry *reg, const char *file, const char *fmt, ...) AK_PRINTF(3, 4);
/* Records a plugin that cannot be used, and says so once. */
void ak_registry_refuse(ak_registry *reg, const char *name, const char *path, const char *fmt, ...)
    AK_PRINTF(4, 5);
/* dlopens `path` and adds its codec; 0 (and a refusal) when it cannot. */
int ak_registry_load(ak_registry *reg, const char *name, const char *path, int priority);

/* Checks a call's parameters against what `codec` declares for `use`
 * (params.c); reports and returns AK_E_USAGE on the first bad one. */
ak_status ak_params_check(const ak_registry *reg, const ak_codec *codec, unsigned use,
                          const char *const *params, const char *file, ak_report *report);

#endif
