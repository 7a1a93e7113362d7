/* locate.c - finds the byte offset of a value in JSON text from a path
 * such as "clips[2].tracks[5].rotation[7]", for error messages. jansson
 * keeps no positions in its tree, so the text is walked again: the text has
 * already parsed, but the walk still checks every bound and never recurses
 * (nested values are skipped by counting brackets). */
#include "json.h"

#include <string.h>

typedef struct scan {
    const unsigned char *b;
    size_t n, i;
} scan;

static void ws(scan *s)
{
    while (s->i < s->n && (s->b[s->i] == ' ' || s->b[s->i] == '\t' || s->b[s->i] == '\n' || s->b[s->i] == '\r'))
        s->i++;
}

/* Past a string starting at s->i (the opening quote). */
static int skip_string(scan *s)
{
    if (s->i >= s->n || s->b[s->i] != '"')
        return 0;
    for (s->i++; s->i < s->n; s->i++) {
        if (s->b[s->i] == '\\')
            s->i++;
        else if (s->b[s->i] == '"') {
            s->i++;
            return 1;
        }
    }
    return 0;
}

/* Past one value of any kind. */
static int skip_value(scan *s)
{
    ws(s);
    if (s->i >= s->n)
        return 0;
    unsigned char c = s->b[s->i];
    if (c == '"')
        return skip_string(s);
    if (c != '{' && c != '[') {
        while (s->i < s->n && !strchr(",]} \t\r\n", s->b[s->i]))
            s->i++;
        return 1;
    }
    size_t depth = 0;
    while (s->i < s->n) {
        c = s->b[s->i];
        if (c == '"') {
            if (!skip_string(s))
                return 0;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']') {
            s->i++;
            if (--depth == 0)
                return 1;
            continue;
        }
        s->i++;
    }
    return 0;
}

/* Moves to the value of member `key` (len bytes, compared with the raw text
 * of the member names) of the object at s->i. */
static int enter_member(scan *s, const char *key, size_t len)
{
    ws(s);
    if (s->i >= s->n || s->b[s->i] != '{')
        return 0;
    s->i++;
    for (;;) {
        ws(s);
        if (s->i >= s->n || s->b[s->i] != '"')
            return 0;
        size_t start = s->i + 1;
        if (!skip_string(s))
            return 0;
        int match = s->i - 1 - start == len && memcmp(s->b + start, key, len) == 0;
        ws(s);
        if (s->i >= s->n || s->b[s->i] != ':')
            return 0;
        s->i++;
        ws(s);
        if (match)
            return 1;
        if (!skip_value(s))
            return 0;
        ws(s);
        if (s->i >= s->n || s->b[s->i] != ',')
            return 0;
        s->i++;
    }
}

/* Moves to element `index` of the array at s->i. */
static int enter_element(scan *s, size_t index)
{
    ws(s);
    if (s->i >= s->n || s->b[s->i] != '[')
        return 0;
    s->i++;
    for (size_t k = 0;; k++) {
        ws(s);
        if (k == index)
            return s->i < s->n && s->b[s->i] != ']';
        if (!skip_value(s))
            return 0;
        ws(s);
        if (s->i >= s->n || s->b[s->i] != ',')
            return 0;
        s->i++;
    }
}

int64_t json_locate(const unsigned char *bytes, size_t size, const char *path)
{
    scan s = { bytes, size, 0 };
    ws(&s);
    int64_t found = (int64_t)s.i;
    if (strncmp(path, "document", 8) == 0)
        path += 8;
    while (*path) {
        if (*path == '.')
            path++;
        if (*path == '[') {
            size_t index = 0;
            for (path++; *path >= '0' && *path <= '9'; path++) {
                if (index > SIZE_MAX / 10 - 10)
                    return found;
                index = index * 10 + (size_t)(*path - '0');
            }
            if (*path != ']' || !enter_element(&s, index))
                return found;
            path++;
        } else {
            size_t len = strcspn(path, ".[");
            if (!len || !enter_member(&s, path, len))
                return found;
            path += len;
        }
        found = (int64_t)s.i;
    }
    return found;
}
