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

void cli_print_params(const ak_codec *k)
{
    /* The field exists only in descriptors built against ABI 1.2 or later. */
    const ak_param *p = k->struct_size >= offsetof(ak_codec, params) + sizeof k->params ? k->params : NULL;
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
