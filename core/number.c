/* number.c - numbers as text, the same in every locale: a host that calls
 * setlocale(LC_ALL, "") in a comma-decimal locale must not change what
 * animkit reads or writes. The C locale is switched in for the calling
 * thread only (uselocale), never for the process. */
#include "internal.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

locale_t ak_c_locale_enter(void)
{
    pthread_once(&c_locale_once, make_c_locale);
    /* glibc's "C" locale object is static, so this cannot fail there; where
     * it could, the thread's own locale stays (0 means "nothing to undo"). */
    return c_locale ? uselocale(c_locale) : (locale_t)0;
}

void ak_c_locale_leave(locale_t previous)
{
    if (previous)
        uselocale(previous);
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Length of the longest prefix in the syntax [+-]?(D+(.D*)?|.D+)([eE][+-]?D+)?, or 0. */
static size_t number_syntax(const char *s, size_t n)
{
    size_t i = 0, digits = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    while (i < n && is_digit(s[i]))
        i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && is_digit(s[i]))
            i++, digits++;
    }
    if (!digits)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < n && is_digit(s[j])) {
            while (j < n && is_digit(s[j]))
                j++;
            i = j;
        }
    }
    return i;
}

/* A whole number of at most 15 digits is exactly a double: no need for
 * strtod and the two locale switches around it (readers parse their
 * numeric parameters, such as anm's fps default "30", on every read). */
static int small_integer(const char *s, size_t n, double *out)
{
    size_t i = s[0] == '-' || s[0] == '+';
    if (n <= i || n - i > 15)
        return 0;
    int64_t v = 0;
    for (size_t j = i; j < n; j++) {
        if (!is_digit(s[j]))
            return 0;
        v = v * 10 + (s[j] - '0');
    }
    *out = s[0] == '-' ? -(double)v : (double)v;
    return 1;
}

size_t ak_parse_number(const char *text, size_t size, double *out)
{
    size_t n = number_syntax(text, size);
    char buf[AK_NUMBER_MAX_TEXT + 1];
    if (!n || n > AK_NUMBER_MAX_TEXT)
        return 0;
    if (small_integer(text, n, out))
        return n;
    memcpy(buf, text, n);
    buf[n] = '\0';
    locale_t old = ak_c_locale_enter();
    double v = strtod(buf, NULL);
    ak_c_locale_leave(old);
    if (isinf(v))
        return 0; /* out of a double's range */
    *out = v;
    return n;
}

static int print_g(char *buf, size_t size, int digits, double v)
{
    return snprintf(buf, size, "%.*g", digits, v);
}

int ak_format_number(double v, int significant_digits, char *buf, size_t size)
{
    if (isnan(v))
        return snprintf(buf, size, "nan");
    if (isinf(v))
        return snprintf(buf, size, v > 0 ? "inf" : "-inf");
    char tmp[40];
    int len;
    if (significant_digits <= 0) {
        len = (int)ak_shortest_double(v, tmp); /* dtoa.c: exact and locale-free */
    } else {
        locale_t old = ak_c_locale_enter();
        len = print_g(tmp, sizeof tmp, significant_digits > 17 ? 17 : significant_digits, v);
        ak_c_locale_leave(old);
    }
    return snprintf(buf, size, "%s", len > 0 ? tmp : "0");
}
int ak_parse_int64(const char *s, int64_t *out)
{
    int neg = *s == '-';
    if (*s == '+' || *s == '-')
        s++;
    if (!is_digit(*s))
        return 0;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; is_digit(*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (limit - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    if (*s)
        return 0;
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return 1;
}
