/* dtoa.c - shortest round-trip decimal text for doubles and floats.
 *
 * The algorithm is Schubfach (Raffaello Giulietti, "The Schubfach way to
 * render doubles", 2020), implemented here from its description: for a
 * binary value v = c * 2^q, the decimal exponent k is chosen so that the
 * rounding interval of v, scaled by 10^-k, holds at most a few integers;
 * the scaling uses a 126-bit upper approximation g of 10^-k, and one
 * rounding-odd multiplication per interval bound decides whether a number
 * with one digit fewer lies inside the interval, else which of the two
 * integers around v*10^-k is closer. The result is the shortest decimal
 * that reads back to v, the closest one when several are as short.
 *
 * No locale, no printf and no strtod are involved: the digits are plain
 * ASCII by construction. The table of 10^e approximations is computed
 * once with exact multi-word arithmetic (no pasted constants). */
#include "internal.h"

#include <pthread.h>
#include <string.h>

/* 10^e for e in [E_MIN, E_MAX]: every decimal exponent a double needs. */
#define E_MIN (-292)
#define E_MAX 324
#define E_COUNT (E_MAX - E_MIN + 1)

/* g = floor(10^e * 2^(125 - floor(log2(10^e)))) + 1, split into two
 * 63-bit halves: 2^125 <= g < 2^126. */
static uint64_t g_table[E_COUNT][2];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* floor(e * log10(2)), floor(log10(3/4 * 2^e)) and floor(e * log2(10)),
 * by fixed-point multiplication; exact over the ranges used here. */
static int flog10_pow2(int e) { return (int)(((int64_t)e * 661971961083LL) >> 41); }
static int flog10_three_quarters_pow2(int e) { return (int)(((int64_t)e * 661971961083LL - 274743187321LL) >> 41); }
static int flog2_pow10(int e) { return (int)(((int64_t)e * 913124641741LL) >> 38); }

/* ---- the table: exact big integers in 32-bit words, least significant first */

#define BIG_WORDS 48 /* 1536 bits: 2^1400 and 10^324 (1077 bits) fit */

typedef struct big {
    uint32_t w[BIG_WORDS];
} big;

static int big_bits(const big *b)
{
    for (int i = BIG_WORDS - 1; i >= 0; i--)
        if (b->w[i])
            return i * 32 + 32 - __builtin_clz(b->w[i]);
    return 0;
}

static int big_bit(const big *b, int i) { return i >= 0 && (b->w[i / 32] >> (i % 32)) & 1u; }

static void big_mul10(big *b)
{
    uint64_t carry = 0;
    for (int i = 0; i < BIG_WORDS; i++) {
        uint64_t x = (uint64_t)b->w[i] * 10u + carry;
        b->w[i] = (uint32_t)x;
        carry = x >> 32;
    }
}

static void big_div10(big *b)
{
    uint64_t rem = 0;
    for (int i = BIG_WORDS - 1; i >= 0; i--) {
        uint64_t x = (rem << 32) | b->w[i];
        b->w[i] = (uint32_t)(x / 10u);
        rem = x % 10u;
    }
}

/* floor(b / 2^shift) + 1 as two 63-bit halves (shift may be negative). */
static void store_g(uint64_t out[2], const big *b, int shift)
{
    uint64_t hi = 0, lo = 0;
    for (int i = 125; i >= 63; i--)
        hi = hi << 1 | (uint64_t)big_bit(b, i + shift);
    for (int i = 62; i >= 0; i--)
        lo = lo << 1 | (uint64_t)big_bit(b, i + shift);
    /* + 1: an upper bound even where the scaled power is exact */
    if (++lo >> 63) {
        lo &= (1ull << 63) - 1;
        hi++;
    }
    out[0] = hi;
    out[1] = lo;
}

static void build_table(void)
{
    /* e >= 0: 10^e exactly; its top 126 bits. */
    big p;
    memset(&p, 0, sizeof p);
    p.w[0] = 1;
    for (int e = 0; e <= E_MAX; e++) {
        store_g(g_table[e - E_MIN], &p, big_bits(&p) - 126);
        big_mul10(&p);
    }
    /* e < 0: floor(2^1400 / 10^-e) by repeated exact division (floors of
     * floors are floors); its top 126 bits are those of 10^e * 2^1400. */
    big q;
    memset(&q, 0, sizeof q);
    q.w[1400 / 32] = 1u << (1400 % 32);
    for (int e = -1; e >= E_MIN; e--) {
        big_div10(&q);
        store_g(g_table[e - E_MIN], &q, big_bits(&q) - 126);
    }
}

/* ---- 64 x 64 -> 128 bit products */

static uint64_t mul_high(uint64_t a, uint64_t b, uint64_t *low)
{
#if defined(__SIZEOF_INT128__)
    unsigned __int128 x = (unsigned __int128)a * b;
    *low = (uint64_t)x;
    return (uint64_t)(x >> 64);
#else
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *low = (mid << 32) | (uint32_t)p00;
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* floor(g * cp / 2^127), with the lowest bit forced to 1 when the
 * discarded part is not zero ("round to odd"), g = g1 * 2^63 + g0. */
static uint64_t rop(uint64_t g1, uint64_t g0, uint64_t cp)
{
    uint64_t lo, y0;
    uint64_t x1 = mul_high(g0, cp, &lo);
    uint64_t y1 = mul_high(g1, cp, &y0);
    uint64_t z = (y0 >> 1) + x1;
    uint64_t vbp = y1 + (z >> 63);
    return vbp | (((z & ((1ull << 63) - 1)) + ((1ull << 63) - 1)) >> 63);
}

/* The shortest decimal f * 10^e in the rounding interval of c * 2^q, for
 * a format whose significands are normalised at c_min and whose smallest
 * exponent is q_min. (Java's renderer scales the tiniest subnormals by 10
 * first to get two digits; shortest text needs no such step.) */
static void to_decimal(int q, uint64_t c, uint64_t c_min, int q_min, uint64_t *f, int *e)
{
    uint64_t out = c & 1; /* even significands keep their interval's ends */
    uint64_t cb = c << 2, cbr = cb + 2, cbl;
    int k;
    if (c != c_min || q == q_min) {
        cbl = cb - 2;
        k = flog10_pow2(q);
    } else { /* at a power of two the interval below is half as wide */
        cbl = cb - 1;
        k = flog10_three_quarters_pow2(q);
    }
    int h = q + flog2_pow10(-k) + 2;
    const uint64_t *g = g_table[-k - E_MIN];
    uint64_t vb = rop(g[0], g[1], cb << h);
    uint64_t vbl = rop(g[0], g[1], cbl << h);
    uint64_t vbr = rop(g[0], g[1], cbr << h);
    uint64_t s = vb >> 2;
    if (s >= 10) {
        /* Is there a multiple of 10 in the interval? Then one digit less.
         * (Normal values always have s >= 100 here; the few-digit
         * subnormals need the check from s >= 10 to come out shortest.) */
        uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
        int upin = vbl + out <= sp10 << 2;
        int wpin = (tp10 << 2) + out <= vbr;
        if (upin != wpin) {
            *f = upin ? sp10 : tp10;
            *e = k;
            return;
        }
    }
    uint64_t t = s + 1;
    int uin = vbl + out <= s << 2;
    int win = (t << 2) + out <= vbr;
    *e = k;
    if (uin != win) {
        *f = uin ? s : t;
        return;
    }
    /* Both (or, by the choice of k, never neither) lie inside: the
     * closer one, the even one on a tie. */
    int64_t cmp = (int64_t)(vb - ((s + t) << 1));
    *f = cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : t;
}

/* Writes f * 10^e like printf's %g with just enough digits: fixed
 * notation for decimal exponents -5 < X < 15, else d.ddde+XX. */
static size_t put_decimal(char *buf, int negative, uint64_t f, int e)
{
    /* Trailing zeros go into the exponent; exact values (x / 4096...)
     * come out of to_decimal with up to 16 of them: 8, 4, 2, 1 at a time.
     * Most numbers have none: one test decides. */
    if (f % 10 == 0) {
        while (f && f % 100000000 == 0) {
            f /= 100000000;
            e += 8;
        }
        if (f % 10000 == 0) {
            f /= 10000;
            e += 4;
        }
        if (f % 100 == 0) {
            f /= 100;
            e += 2;
        }
        if (f % 10 == 0) {
            f /= 10;
            e += 1;
        }
    }
    /* Two digits per division, written back to front from a table of the
     * hundred pairs: half the chain of dependent divisions, no % 10. */
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char digits[24];
    char *end = digits + sizeof digits, *d = end;
    /* Eight digits at a time as two independent halves of four, each two
     * pairs: one long chain of divisions by 100 was a quarter of a dump. */
    while (f >= 100000000) {
        uint64_t q = f / 100000000;
        uint32_t low = (uint32_t)(f - q * 100000000);
        uint32_t hi4 = low / 10000, lo4 = low - hi4 * 10000;
        uint32_t a = hi4 / 100, b = lo4 / 100;
        d -= 8;
        memcpy(d, pairs + 2 * a, 2);
        memcpy(d + 2, pairs + 2 * (hi4 - a * 100), 2);
        memcpy(d + 4, pairs + 2 * b, 2);
        memcpy(d + 6, pairs + 2 * (lo4 - b * 100), 2);
        f = q;
    }
    while (f >= 100) {
        uint64_t q = f / 100;
        d -= 2;
        memcpy(d, pairs + 2 * (f - q * 100), 2);
        f = q;
    }
    if (f >= 10) {
        d -= 2;
        memcpy(d, pairs + 2 * f, 2);
    } else {
        *--d = (char)('0' + f);
    }
    int n = (int)(end - d);
    /* d[0..n-1] are the digits; the value is 0.d1d2..dn * 10^(e + n) */
    int x = e + n - 1; /* exponent of the first digit */
    char *p = buf;
    if (negative)
        *p++ = '-';
    if (x < -4 || x >= 15) {
        *p++ = d[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, d + 1, (size_t)(n - 1));
            p += n - 1;
        }
        *p++ = 'e';
        *p++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            *p++ = (char)('0' + ax / 100);
        *p++ = (char)('0' + ax / 10 % 10);
        *p++ = (char)('0' + ax % 10);
    } else if (x < 0) {
        *p++ = '0';
        *p++ = '.';
        for (int i = -1; i > x; i--)
            *p++ = '0';
        memcpy(p, d, (size_t)n);
        p += n;
    } else if (n > x + 1) {
        memcpy(p, d, (size_t)x + 1); /* integer part, '.', fraction */
        p += x + 1;
        *p++ = '.';
        memcpy(p, d + x + 1, (size_t)(n - x - 1));
        p += n - x - 1;
    } else {
        memcpy(p, d, (size_t)n); /* an integer: digits, then zeros */
        p += n;
        for (int i = n - 1; i < x; i++)
            *p++ = '0';
    }
    *p = '\0';
    return (size_t)(p - buf);
}

static size_t put_special(char *buf, int negative, int nan, int zero)
{
    const char *s = nan ? "nan" : zero ? (negative ? "-0" : "0") : negative ? "-inf" : "inf";
    size_t n = strlen(s);
    memcpy(buf, s, n + 1);
    return n;
}

/* A value c * 2^q with few fractional bits (x / 4096, x / 1024: what the
 * game formats store) is exactly f * 10^q with f = c * 5^-q. When f has at
 * most 15 digits it is also the shortest text that reads back: a decimal
 * with fewer digits lies at least one unit of f's last digit away, more
 * than half a unit in the last place of a double. So the digits come
 * straight from c, without the search. 0 when the value is not of that
 * kind. */
static int short_dyadic(uint64_t c, int q, uint64_t *f, int *e)
{
    static const uint64_t pow5[] = { 1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125, 9765625,
                                     48828125, 244140625, 1220703125, 6103515625, 30517578125, 152587890625,
                                     762939453125, 3814697265625, 19073486328125, 95367431640625 };
    int tz = __builtin_ctzll(c);
    c >>= tz;
    q += tz;
    if (q >= 0 || -q >= (int)(sizeof pow5 / sizeof pow5[0]) || c > 999999999999999ull / pow5[-q])
        return 0;
    *f = c * pow5[-q];
    *e = q;
    return 1;
}

size_t ak_shortest_double(double v, char *buf)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int negative = (int)(bits >> 63);
    uint64_t t = bits & ((1ull << 52) - 1);
    int bq = (int)(bits >> 52) & 0x7ff;
    if (bq == 0x7ff || (bq == 0 && t == 0))
        return put_special(buf, negative, bq == 0x7ff && t != 0, bq == 0);
    pthread_once(&g_once, build_table);
    uint64_t f;
    int e;
    if (bq) {
        uint64_t c = (1ull << 52) | t;
        int q = bq - 1075;
        if (q < 0 && q > -53 && ((c >> -q) << -q) == c) { /* an integer */
            f = c >> -q;
            e = 0;
        } else if (!short_dyadic(c, q, &f, &e)) {
            to_decimal(q, c, 1ull << 52, -1074, &f, &e);
        }
    } else {
        to_decimal(-1074, t, 1ull << 52, -1074, &f, &e);
    }
    return put_decimal(buf, negative, f, e);
}

size_t ak_shortest_float(float v, char *buf)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    int negative = (int)(bits >> 31);
    uint64_t t = bits & ((1u << 23) - 1);
    int bq = (int)(bits >> 23) & 0xff;
    if (bq == 0xff || (bq == 0 && t == 0))
        return put_special(buf, negative, bq == 0xff && t != 0, bq == 0);
    pthread_once(&g_once, build_table);
    uint64_t f;
    int e;
    if (bq) {
        uint64_t c = (1u << 23) | t;
        int q = bq - 150;
        if (q < 0 && q > -24 && ((c >> -q) << -q) == c) {
            f = c >> -q;
            e = 0;
        } else {
            to_decimal(q, c, 1u << 23, -149, &f, &e);
        }
    } else {
        to_decimal(-149, t, 1u << 23, -149, &f, &e);
    }
    return put_decimal(buf, negative, f, e);
}
