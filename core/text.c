/* text.c - string and path helpers shared by the core and the plugins. */
#include "internal.h"

#include <ctype.h>
#include <string.h>

int ak_str_ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

const char *ak_path_extension(const char *path)
{
    if (!path)
        return "";
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot + 1 : "";
}

int ak_codec_has_extension(const ak_codec *codec, const char *ext)
{
    if (!ext || !*ext || !codec->extensions)
        return 0;
    size_t n = strlen(ext);
    for (const char *p = codec->extensions; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n) {
            size_t i = 0;
            while (i < n && tolower((unsigned char)p[i]) == tolower((unsigned char)ext[i]))
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

size_t ak_path_stem(const char *path, char *buf, size_t size)
{
    if (!size)
        return 0;
    buf[0] = '\0';
    if (!path)
        return 0;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        n = (size_t)(dot - base);
    if (n >= size)
        n = size - 1;
    memcpy(buf, base, n);
    buf[n] = '\0';
    return n;
}
