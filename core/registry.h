/* registry.h - the registry's insides, shared by registry.c, config.c and
 * codec.c; not installed. */
#ifndef ANIMKIT_REGISTRY_H
#define ANIMKIT_REGISTRY_H

#include "internal.h"

#include <stdio.h>

struct ak_registry {
    ak_allocator allocator;
    ak_plugin_info *plugins;
    void **handles; /* dlopen handles, parallel to plugins; NULL for built-ins */
    int *standing;  /* parallel to plugins: AK_STANDING_*, for name collisions */
    int unsafe;     /* trust checks off (AK_REG_UNSAFE_PLUGINS) */
    int keep_loaded; /* no dlclose when freed (AK_REG_KEEP_LOADED) */
    size_t count, plugin_cap, handle_cap, standing_cap;
    ak_refused_plugin *refused;
    size_t refused_count, refused_cap;
    char *config_path;
    char *bone_names;
    ak_report log; /* where loading warnings go */
    ak_pool *pool; /* blocks of freed documents for later reads; NULL = none */
    unsigned loads; /* plugins this registry has loaded: each under a name of its own (ak_load_fd) */
};

ak_registry *ak_registry_new(const ak_allocator *allocator);
char *ak_registry_strdup(ak_registry *reg, const char *s);
void ak_registry_warn(ak_registry *reg, const char *file, const char *fmt, ...) AK_PRINTF(3, 4);
/* Records a plugin that cannot be used, and says so once. */
void ak_registry_refuse(ak_registry *reg, const char *name, const char *path, const char *fmt, ...)
    AK_PRINTF(4, 5);
/* How a plugin came to be loaded: when two take the same name, the higher
 * standing wins; of equal standing the first stays and both are named. */
enum {
    AK_STANDING_AUTOLOAD_OTHER = 0, /* autoloaded, file named unlike the plugin */
    AK_STANDING_AUTOLOAD = 1,       /* autoloaded as NAME.so */
    AK_STANDING_CONFIG = 2,         /* named by a [plugin NAME] section */
    AK_STANDING_BUILTIN = 3
};
/* Loads `path` (after the trust and ABI-note checks) and adds its codec;
 * 0 (and a refusal) when it cannot. `name` is the config section's name
 * or the file's stem. */
int ak_registry_load(ak_registry *reg, const char *name, const char *path, int priority, int standing);

/* loadfd.c: dlopen()s the file open as *fd through /proc/self/fd, making
 * sure the object is that file (*fd may be moved to another number).
 * `serial` counts the registry's earlier loads. */
void *ak_load_fd(int *fd, unsigned serial);
/* loadfd.c: the device and inode of the /proc/self/maps mapping (read
 * from `maps`) that holds address `at`; 0 when none does. */
int ak_maps_find(FILE *maps, uintptr_t at, unsigned *maj, unsigned *min, unsigned long *ino);

/* trust.c: opens `path` (a plugin or config; `what` names it in messages)
 * and checks the trust rule on the open file; -1 with `why` when it fails.
 * `unsafe` skips the owner and folder checks. */
int ak_trust_open(const char *path, const char *what, int unsafe, char *why, size_t n);
/* 1 when ANIMKIT_UNSAFE_PLUGINS=1 is set. */
int ak_trust_unsafe_env(void);

/* elfscan.c: 1 and the note when the ELF file `fd` carries the animkit
 * note, 0 when it has none, -1 with `why` when it is no ELF file for this
 * machine. */
int ak_elf_read_note(int fd, ak_plugin_note *note, char *why, size_t n);
/* 1 when a symbol resembling `want` exists but is mangled or hidden: its
 * name in `found`, *hidden set when it is `want` itself, not exported. */
int ak_elf_find_symbol_like(int fd, const char *want, char *found, size_t fn, int *hidden);

/* Checks a call's parameters against what `codec` declares for `use`
 * (params.c); reports and returns AK_E_USAGE on the first bad one. */
ak_status ak_params_check(const ak_registry *reg, const ak_codec *codec, unsigned use,
                          const char *const *params, const char *file, ak_report *report);

#endif
