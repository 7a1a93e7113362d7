/* fuzz_config.c - the INI config loader: the input becomes a config file
 * in a private temporary folder, and ak_registry_open() parses it and
 * "loads" the plugins it names.
 *
 * Safety: run.sh compiles core/registry.c with -Ddlopen=ak_fuzz_dlopen, so
 * the loader's one dlopen() call lands here and never maps a file: paths
 * from the fuzz input are stat()ed and listed, nothing is executed. The
 * default plugin folder and the system config folder are compiled in as
 * paths that do not exist, and the search order is off (AK_REG_NO_SEARCH
 * with an explicit config_file), so neither the environment nor the
 * user's config plays a part. */
#include "fuzz_common.h"

#include <stdint.h>
#include <unistd.h>

void *ak_fuzz_dlopen(const char *path, int flags);

void *ak_fuzz_dlopen(const char *path, int flags)
{
    (void)path;
    (void)flags;
    return NULL; /* "cannot be loaded as a shared object" */
}

static char dir[64];
static char path[96];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/akfuzz-config-XXXXXX", tmp && *tmp && strlen(tmp) < 30 ? tmp : "/tmp");
    if (!mkdtemp(dir))
        abort();
    snprintf(path, sizeof path, "%s/animkit.ini", dir);
    return 0;
}

static void count_message(void *user, const ak_message *msg)
{
    (void)msg;
    ++*(unsigned *)user;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        abort();
    if (size && fwrite(data, 1, size, fp) != size)
        abort();
    fclose(fp);
    unsigned messages = 0;
    /* The config lives below /tmp, which the trust rule refuses: the escape
     * hatch lets the parser itself be fuzzed. */
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_SEARCH | AK_REG_UNSAFE_PLUGINS, path, NULL, count_message, &messages,
                               "/nonexistent/animkit-fuzz/plugins" };
    ak_registry *reg = NULL;
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    ak_status st = ak_registry_open(&cfg, &reg, &rep);
    FUZZ_CHECK(st == AK_OK || st == AK_E_CONFIG, "registry open ended in %s: %s", ak_status_name(st), rep.message);
    if (st != AK_OK) {
        FUZZ_CHECK(reg == NULL && rep.text[0], "a failed open left a registry or no message");
        return 0;
    }
    FUZZ_CHECK(ak_registry_count(reg) == 0, "a plugin was loaded although dlopen always fails");
    for (size_t i = 0; i < ak_registry_refused_count(reg); i++) {
        const ak_refused_plugin *r = ak_registry_refused(reg, i);
        FUZZ_CHECK(r->name && r->path && r->reason, "refusal %zu incomplete", i);
    }
    const char *bones = ak_registry_bone_names(reg);
    FUZZ_CHECK(!bones || strlen(bones) < 8192, "bone_names too long");
    FUZZ_CHECK(ak_registry_config_path(reg) && strcmp(ak_registry_config_path(reg), path) == 0,
               "config path not kept");
    ak_registry_free(reg);
    return 0;
}
