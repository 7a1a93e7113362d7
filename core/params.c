/* params.c - declared parameters: checking a call's "key=value" list
 * against what its codec declares, and the typed getters plugins use. */
#include "registry.h"

#include <string.h>

/* A list longer than this is taken for one missing its terminator. */
#define MAX_DECLS 64

const ak_param *ak_codec_params(const ak_codec *codec)
{
    if (codec->struct_size < offsetof(ak_codec, params) + sizeof codec->params)
        return NULL; /* built before ABI 1.2 declared parameters */
    return codec->params;
}

static int key_is(const char *name, const char *key, size_t key_len)
{
    return strncmp(name, key, key_len) == 0 && name[key_len] == '\0';
}

static const ak_param *find_decl(const ak_codec *codec, const char *key, size_t key_len, unsigned use)
{
    const ak_param *p = ak_codec_params(codec);
    for (int i = 0; p && p[i].name && i < MAX_DECLS; i++)
        if ((p[i].use & use) && key_is(p[i].name, key, key_len))
            return &p[i];
    return NULL;
}

const ak_param *ak_codec_param(const ak_codec *codec, const char *key, unsigned use)
{
    return find_decl(codec, key, strlen(key), use);
}

static int parse_bool(const char *v, int *out)
{
    static const char *const yes[] = { "yes", "true", "on", "1" }, *const no[] = { "no", "false", "off", "0" };
    for (size_t i = 0; i < 4; i++) {
        if (ak_str_ieq(v, yes[i]))
            return *out = 1, 1;
        if (ak_str_ieq(v, no[i]))
            return *out = 0, 1;
    }
    return 0;
}

static int parse_number_whole(const char *v, double *out)
{
    size_t n = strlen(v);
    return n && ak_parse_number(v, n, out) == n;
}

/* Whether `value` is one of the "|"-separated choices (without case). */
static int is_choice(const char *choices, const char *value)
{
    size_t n = strlen(value);
    for (const char *p = choices; *p;) {
        const char *end = strchr(p, '|');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n) {
            size_t i = 0;
            while (i < n && (p[i] | 0x20) == (value[i] | 0x20) &&
                   ((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= 'a' && p[i] <= 'z') || p[i] == value[i]))
                i++;
            if (i == n)
                return 1;
        }
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

int ak_param_value_ok(const ak_param *decl, const char *value, char *why, size_t size)
{
    int64_t i;
    double d;
    int b;
    switch (decl->type) {
    case AK_PARAM_STRING: return 1;
    case AK_PARAM_INT:
        if (ak_parse_int64(value, &i))
            return 1;
        snprintf(why, size, "an integer");
        return 0;
    case AK_PARAM_NUMBER:
        if (parse_number_whole(value, &d))
            return 1;
        snprintf(why, size, "a number written with '.' as the decimal point");
        return 0;
    case AK_PARAM_BOOL:
        if (parse_bool(value, &b))
            return 1;
        snprintf(why, size, "yes or no");
        return 0;
    case AK_PARAM_CHOICE:
        if (is_choice(decl->choices, value))
            return 1;
        snprintf(why, size, "one of %s", decl->choices);
        return 0;
    default:
        snprintf(why, size, "a value of a type this animkit does not know");
        return 0;
    }
}

static int valid_param_name(const char *name)
{
    size_t n = strlen(name);
    if (!n || n > 31)
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return 0;
    return 1;
}

const char *ak_params_problem(const ak_codec *codec, char *buf, size_t size)
{
    const ak_param *p = ak_codec_params(codec);
    for (int i = 0; p && p[i].name; i++) {
        const ak_param *d = &p[i];
        char why[160];
        if (i == MAX_DECLS)
            return "it declares more than 64 parameters (is the list's NULL entry missing?)";
        if (!valid_param_name(d->name))
            snprintf(buf, size, "declared parameter %d has a name not made of [a-z0-9_] (1-31 bytes)", i);
        else if ((unsigned)d->type > AK_PARAM_CHOICE)
            snprintf(buf, size, "declared parameter '%s' has an unknown type %d", d->name, (int)d->type);
        else if (!d->use || (d->use & ~(uint32_t)(AK_PARAM_READ | AK_PARAM_WRITE)))
            snprintf(buf, size, "declared parameter '%s' applies to neither read nor write", d->name);
        else if (d->type == AK_PARAM_CHOICE && (!d->choices || !*d->choices))
            snprintf(buf, size, "declared parameter '%s' has no choices", d->name);
        else if (!d->help)
            snprintf(buf, size, "declared parameter '%s' has no help line", d->name);
        else if (d->default_value && !ak_param_value_ok(d, d->default_value, why, sizeof why))
            snprintf(buf, size, "declared parameter '%s' has the default '%s', which is not %s", d->name,
                     d->default_value, why);
        else
            continue;
        return buf;
    }
    return NULL;
}

/* Edit distance of two short strings, a swap of neighbours counting as one
 * edit (optimal string alignment); longer strings count as far apart. */
static size_t distance(const char *a, size_t na, const char *b)
{
    size_t nb = strlen(b), d[64][64];
    if (na >= 64 || nb >= 64)
        return SIZE_MAX;
    for (size_t i = 0; i <= na; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= nb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= na; i++)
        for (size_t j = 1; j <= nb; j++) {
            size_t cost = (a[i - 1] | 0x20) == (b[j - 1] | 0x20) ? 0 : 1;
            size_t best = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[na][nb];
}

typedef struct closest {
    const char *name;
    size_t dist;
} closest;

static void consider(closest *c, const char *key, size_t key_len, const char *name, size_t name_len)
{
    char copy[64];
    if (name_len >= sizeof copy)
        return;
    memcpy(copy, name, name_len);
    copy[name_len] = '\0';
    size_t d = distance(key, key_len, copy);
    /* Close enough to be a typo: at most 2 edits, fewer than half the key. */
    if (d <= 2 && d * 2 <= key_len && d < c->dist) {
        c->dist = d;
        c->name = name;
    }
}

static int declared_anywhere(const ak_registry *reg, const char *key, size_t key_len, closest *near)
{
    int found = 0;
    for (size_t i = 0; i < reg->count; i++) {
        const ak_param *p = ak_codec_params(reg->plugins[i].codec);
        for (int k = 0; p && p[k].name && k < MAX_DECLS; k++) {
            if (key_is(p[k].name, key, key_len))
                found = 1;
            consider(near, key, key_len, p[k].name, strlen(p[k].name));
        }
    }
    return found;
}

static int listed_before(const ak_param *p, int i, unsigned use)
{
    for (int k = 0; k < i; k++)
        if ((p[k].use & use) && strcmp(p[k].name, p[i].name) == 0)
            return 1;
    return 0;
}

/* "fps, variant": the names the codec takes for `use`. */
static void list_names(const ak_codec *codec, unsigned use, char *buf, size_t size)
{
    const ak_param *p = ak_codec_params(codec);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; p && p[i].name && i < MAX_DECLS && used < size; i++)
        if ((p[i].use & use) && !listed_before(p, i, use))
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", p[i].name);
}

static ak_status unknown(const ak_registry *reg, const ak_codec *codec, unsigned use, const char *param,
                         size_t key_len, const char *file, ak_report *report)
{
    closest near = { NULL, SIZE_MAX };
    if (declared_anywhere(reg, param, key_len, &near))
        return AK_OK; /* another codec's (or this one's other direction) */
    char names[256], hint[96] = "";
    list_names(codec, use, names, sizeof names);
    if (near.name)
        snprintf(hint, sizeof hint, "; did you mean '%s'?", near.name);
    ak_report_emit(report, AK_ERROR, AK_E_USAGE, file, codec->name, -1,
                   "unknown parameter '%.*s'%s (%s %s: %s)", (int)key_len, param, hint, codec->name,
                   use == AK_PARAM_READ ? "reading takes" : "writing takes", names[0] ? names : "none");
    return AK_E_USAGE;
}

/* The choice closest to a mistyped value, for the hint. */
static const char *closest_choice(const char *choices, const char *value, size_t *len)
{
    closest near = { NULL, SIZE_MAX };
    size_t n = strlen(value);
    for (const char *p = choices; *p;) {
        const char *end = strchr(p, '|');
        size_t l = end ? (size_t)(end - p) : strlen(p);
        const char *before = near.name;
        consider(&near, value, n, p, l);
        if (near.name != before)
            *len = l;
        if (!end)
            break;
        p = end + 1;
    }
    return near.name;
}

ak_status ak_params_check(const ak_registry *reg, const ak_codec *codec, unsigned use,
                          const char *const *params, const char *file, ak_report *report)
{
    if (!ak_codec_params(codec))
        return AK_OK; /* nothing declared: nothing to check against */
    for (const char *const *p = params; p && *p; p++) {
        const char *eq = strchr(*p, '=');
        if (!eq) {
            ak_report_emit(report, AK_ERROR, AK_E_USAGE, file, codec->name, -1,
                           "parameter '%s' is not KEY=VALUE", *p);
            return AK_E_USAGE;
        }
        size_t key_len = (size_t)(eq - *p);
        const ak_param *decl = find_decl(codec, *p, key_len, use);
        if (!decl) {
            ak_status st = unknown(reg, codec, use, *p, key_len, file, report);
            if (st != AK_OK)
                return st;
            continue;
        }
        char why[160], hint[96] = "";
        if (ak_param_value_ok(decl, eq + 1, why, sizeof why))
            continue;
        size_t len = 0;
        const char *near = decl->type == AK_PARAM_CHOICE ? closest_choice(decl->choices, eq + 1, &len) : NULL;
        if (near)
            snprintf(hint, sizeof hint, "; did you mean '%.*s'?", (int)len, near);
        ak_report_emit(report, AK_ERROR, AK_E_USAGE, file, codec->name, -1, "parameter %s: %s wants %s%s", *p,
                       codec->name, why, hint);
        return AK_E_USAGE;
    }
    return AK_OK;
}

/* ---- typed getters ---- */

/* The value given, else the codec's declared default for this job's
 * direction, else NULL. */
static const char *value_or_default(const ak_job *job, const char *key)
{
    const char *v = ak_job_param(job, key);
    if (v || !job->codec)
        return v;
    const ak_param *d = ak_codec_param(job->codec, key, job->use ? job->use : AK_PARAM_READ | AK_PARAM_WRITE);
    return d ? d->default_value : NULL;
}

static void malformed(ak_job *job, const char *key, const char *v, const char *what)
{
    ak_fail(job, AK_E_USAGE, -1, "parameter %s=%s is not %s", key, v, what);
}

double ak_job_param_number(ak_job *job, const char *key, double fallback)
{
    const char *v = value_or_default(job, key);
    double d;
    if (!v)
        return fallback;
    if (parse_number_whole(v, &d))
        return d;
    malformed(job, key, v, "a number");
    return fallback;
}

int64_t ak_job_param_int(ak_job *job, const char *key, int64_t fallback)
{
    const char *v = value_or_default(job, key);
    int64_t i;
    if (!v)
        return fallback;
    if (ak_parse_int64(v, &i))
        return i;
    malformed(job, key, v, "an integer");
    return fallback;
}

int ak_job_param_bool(ak_job *job, const char *key, int fallback)
{
    const char *v = value_or_default(job, key);
    int b;
    if (!v)
        return fallback;
    if (parse_bool(v, &b))
        return b;
    malformed(job, key, v, "yes or no");
    return fallback;
}

const char *ak_job_param_string(ak_job *job, const char *key, const char *fallback)
{
    const char *v = value_or_default(job, key);
    return v ? v : fallback;
}
