/* textread.c - the line and token reader for text formats: bounded by the
 * input's size (no terminator needed), errors with line and column. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ak_text_init(ak_text *t, ak_job *job, const unsigned char *data, size_t size)
{
    memset(t, 0, sizeof *t);
    t->data = data;
    t->size = size;
    t->line = 1;
    t->job = job;
}

int ak_text_at_end(const ak_text *t) { return t->failed || t->pos >= t->size; }

static int is_blank(unsigned char c) { return c == ' ' || c == '\t'; }
static int is_eol(unsigned char c) { return c == '\n' || c == '\r'; }

static void skip_blanks(ak_text *t)
{
    while (t->pos < t->size && is_blank(t->data[t->pos]))
        t->pos++;
}

/* Moves past the line end at `pos` (LF, CR LF or CR). */
static void pass_eol(ak_text *t)
{
    if (t->data[t->pos] == '\r' && t->pos + 1 < t->size && t->data[t->pos + 1] == '\n')
        t->pos++;
    t->pos++;
    t->line_start = t->pos;
    if (t->line < UINT32_MAX)
        t->line++;
}

int ak_text_at_line_end(ak_text *t)
{
    if (t->failed)
        return 1;
    skip_blanks(t);
    return t->pos >= t->size || is_eol(t->data[t->pos]);
}

const char *ak_text_token(ak_text *t, size_t *len)
{
    *len = 0;
    if (ak_text_at_line_end(t))
        return NULL;
    size_t start = t->pos;
    while (t->pos < t->size && !is_blank(t->data[t->pos]) && !is_eol(t->data[t->pos]))
        t->pos++;
    t->token = start;
    t->token_line = t->line;
    t->token_line_start = t->line_start;
    *len = t->pos - start;
    return (const char *)t->data + start;
}

const char *ak_text_word(ak_text *t, size_t *len)
{
    *len = 0;
    while (!t->failed && ak_text_at_line_end(t)) {
        if (t->pos >= t->size)
            return NULL;
        pass_eol(t);
    }
    return ak_text_token(t, len);
}

const char *ak_text_line(ak_text *t, size_t *len)
{
    *len = 0;
    if (ak_text_at_end(t))
        return NULL;
    size_t start = t->pos;
    while (t->pos < t->size && !is_eol(t->data[t->pos]))
        t->pos++;
    *len = t->pos - start;
    if (t->pos < t->size)
        pass_eol(t);
    return (const char *)t->data + start;
}

int ak_text_next_line(ak_text *t)
{
    size_t len;
    return ak_text_line(t, &len) != NULL && !ak_text_at_end(t);
}

int ak_text_is(const char *token, size_t len, const char *word)
{
    return token && strlen(word) == len && memcmp(token, word, len) == 0;
}

/* A printable copy of a token for a message: control and non-ASCII bytes
 * become '?', long tokens are cut. */
static const char *shown(const char *token, size_t len, char *buf, size_t size)
{
    size_t n = len < size - 4 ? len : size - 4;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)token[i];
        buf[i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
    }
    strcpy(buf + n, n < len ? "..." : "");
    return buf;
}

int ak_text_number(ak_text *t, const char *what, double *out)
{
    size_t len;
    const char *tok = ak_text_token(t, &len);
    if (t->failed)
        return 0;
    char buf[48];
    if (!tok) {
        t->token_line = 0; /* point at the line's end, not the token before */
        ak_text_fail(t, AK_E_DATA, "expected %s (a number), found the end of the line", what);
        return 0;
    }
    if (ak_parse_number(tok, len, out) != len) {
        ak_text_fail(t, AK_E_DATA, "expected %s (a number), found '%s'", what, shown(tok, len, buf, sizeof buf));
        return 0;
    }
    return 1;
}

int ak_text_expect(ak_text *t, const char *word)
{
    size_t len;
    const char *tok = ak_text_word(t, &len);
    if (t->failed)
        return 0;
    if (ak_text_is(tok, len, word))
        return 1;
    char buf[48];
    if (tok)
        ak_text_fail(t, AK_E_DATA, "expected '%s', found '%s'", word, shown(tok, len, buf, sizeof buf));
    else {
        t->token_line = 0;
        ak_text_fail(t, AK_E_DATA, "expected '%s', found the end of the input", word);
    }
    return 0;
}

static uint32_t column_of(size_t pos, size_t line_start)
{
    size_t c = pos - line_start + 1;
    return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

ak_status ak_text_fail(ak_text *t, ak_status status, const char *fmt, ...)
{
    /* A token of an earlier line is not what went wrong here. */
    int at_token = t->token_line && t->token_line == t->line && t->token_line_start == t->line_start;
    size_t at = at_token ? t->token : t->pos;
    uint32_t line = t->line;
    uint32_t column = column_of(at, t->line_start);
    t->failed = 1;
    if (!t->job)
        return status == AK_OK ? AK_E_DATA : status;
    va_list ap;
    va_start(ap, fmt);
    ak_status st = ak_fail_atv(t->job, status, (int64_t)at, line, column, fmt, ap);
    va_end(ap);
    return st;
}
