/* params.c - `animkit formats -v`: the parameters each plugin declares. */
#include "cli.h"

#include <stddef.h>
#include <stdio.h>

static const char *value_form(const ak_param *p)
{
    switch (p->type) {
    case AK_PARAM_INT: return "INTEGER";
    case AK_PARAM_NUMBER: return "NUMBER";
    case AK_PARAM_BOOL: return "yes|no";
    case AK_PARAM_CHOICE: return p->choices;
    default: return "TEXT";
    }
}

static const char *use_name(uint32_t use)
{
    return use == AK_PARAM_READ ? "read" : use == AK_PARAM_WRITE ? "write" : "read, write";
}

/* The field exists only in descriptors built against ABI 1.2 or later. */
static const ak_param *declared(const ak_codec *k)
{
    return k->struct_size >= offsetof(ak_codec, params) + sizeof k->params ? k->params : NULL;
}

static const char *type_name(ak_param_type t)
{
    static const char *const names[] = { "string", "integer", "number", "boolean", "choice" };
    return (unsigned)t <= AK_PARAM_CHOICE ? names[t] : "unknown";
}

void cli_print_params_json(const ak_codec *k)
{
    const ak_param *p = declared(k);
    printf(",\"params\":");
    if (!p) {
        printf("null");
        return;
    }
    printf("[");
    for (int i = 0; p[i].name; i++) {
        printf("%s{\"name\":", i ? "," : "");
        cli_json_string(p[i].name);
        printf(",\"type\":\"%s\",\"read\":%s,\"write\":%s", type_name(p[i].type),
               p[i].use & AK_PARAM_READ ? "true" : "false", p[i].use & AK_PARAM_WRITE ? "true" : "false");
        if (p[i].type == AK_PARAM_CHOICE) {
            printf(",\"choices\":");
            cli_json_string(p[i].choices);
        }
        printf(",\"default\":");
        if (p[i].default_value)
            cli_json_string(p[i].default_value);
        else
            printf("null");
        printf(",\"help\":");
        cli_json_string(p[i].help);
        printf("}");
    }
    printf("]");
}

void cli_print_params(const ak_codec *k)
{
    const ak_param *p = declared(k);
    if (!p) {
        printf("           parameters: not declared (any -p is passed unchecked)\n");
        return;
    }
    if (!p[0].name) {
        printf("           parameters: none\n");
        return;
    }
    printf("           parameters:\n");
    for (; p->name; p++) {
        printf("             -p %s=%s (%s", p->name, value_form(p), use_name(p->use));
        if (p->default_value)
            printf(", default %s", p->default_value);
        printf(")\n               %s\n", p->help);
    }
}
