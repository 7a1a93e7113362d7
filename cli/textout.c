/* textout.c - printing text that comes from input files. Names, events and
 * messages may hold any bytes; a terminal obeys escape sequences (colours,
 * window titles, BEL...), so control characters are shown as \xNN. Valid
 * UTF-8 passes unchanged except the C1 controls (U+0080-U+009F), which
 * some terminals also obey; so does any byte that is not valid UTF-8. */
#include "cli.h"

#include <math.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at `p` that is a printable character
 * (not C1), or 0. */
static int printable_utf8(const unsigned char *p)
{
    int len = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (p[0] >= 0xf5)
        return 0;
    for (int i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if (len == 2 && p[0] == 0xc2 && p[1] < 0xa0)
        return 0; /* C1 control */
    if (len == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0)))
        return 0; /* overlong, or a UTF-16 surrogate */
    if (len == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90)))
        return 0; /* overlong, or past U+10FFFF */
    return len;
}

void cli_put_text(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        if (*p >= 0x20 && *p < 0x7f) {
            fputc(*p++, out);
            continue;
        }
        int len = *p >= 0x80 ? printable_utf8(p) : 0;
        if (len) {
            fwrite(p, 1, (size_t)len, out);
            p += len;
        } else {
            fprintf(out, "\\x%02x", *p++);
        }
    }
}

void cli_json_double(double v)
{
    /* JSON has no NaN or infinity: spelled as the document writer does. */
    if (isnan(v))
        fputs("\"nan\"", stdout);
    else if (isinf(v))
        fputs(v > 0 ? "\"inf\"" : "\"-inf\"", stdout);
    else
        printf("%.9g", v);
}
