/* bound.c - how much memory jansson's parse tree of a text can take, found
 * by one pass over the text before parsing. jansson allocates through
 * process-global hooks, so its tree cannot be counted as it is built
 * without global state; instead this upper bound is reserved against the
 * read's limit (ak_job_reserve) before json_loadb runs.
 *
 * Sizes (jansson 2.x on 64-bit, malloc's 16-byte chunk overhead included,
 * rounded up): a number 32 (we count 48); a string 48 plus its text plus
 * 32 (96 + three times the raw text: the lexer's buffer doubles); an
 * array 128 with its first table (144), each further element up to 24
 * while the table doubles (32 per comma); an object 224 with its first
 * buckets (288 with room), each member a pair of 80 plus its key plus 48 of buckets
 * (128 per colon; the key is counted as a string). */
#include "json.h"

static size_t skip_string(const unsigned char *t, size_t size, size_t i)
{
    for (i++; i < size && t[i] != '"'; i++)
        if (t[i] == '\\')
            i++;
    return i;
}

static int ends_scalar(unsigned char c)
{
    return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '"';
}

size_t json_tree_bound(const unsigned char *text, size_t size)
{
    /* At most 288 bytes per input byte: no overflow for inputs below 2^56. */
    size_t bytes = 0;
    for (size_t i = 0; i < size; i++) {
        unsigned char c = text[i];
        if (c == '"') {
            size_t end = skip_string(text, size, i);
            bytes += 96 + 3 * (end - i);
            i = end;
        } else if (c == '[') {
            bytes += 144;
        } else if (c == '{') {
            bytes += 288;
        } else if (c == ':') {
            bytes += 128;
        } else if (c == ',') {
            bytes += 32;
        } else if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
            bytes += 48;
            while (i + 1 < size && !ends_scalar(text[i + 1]))
                i++;
        }
    }
    return bytes;
}
