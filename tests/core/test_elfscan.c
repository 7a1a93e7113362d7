/* test_elfscan.c - the reading the core does before it loads a plugin, on
 * damaged input: the ABI note and the entry symbol from the ELF file
 * (core/elfscan.c), and the mapping that holds an address from
 * /proc/self/maps (core/loadfd.c). Both are internal: this test links the
 * core's objects (tests/local.mk). */
#include "testutil.h"
#include "registry.h"

#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[PATH_MAX];

static int scan_bytes(const unsigned char *b, size_t n, ak_plugin_note *note)
{
    char path[PATH_MAX + 16], why[512], found[256];
    snprintf(path, sizeof path, "%s/damaged.so", dir);
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    if (n)
        ck_assert_uint_eq(fwrite(b, 1, n, fp), n);
    fclose(fp);
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    int hidden = 0;
    int got = ak_elf_read_note(fd, note, why, sizeof why);
    ak_elf_find_symbol_like(fd, "animkit_codec", found, sizeof found, &hidden);
    close(fd);
    return got;
}

/* /proc/self/maps as the loader check reads it: the mapping that holds
 * an address, and no line made of the rest of a long path name (here a
 * path whose tail reads as a mapping of the address, inode 666). */
START_TEST(maps_lines_and_only_lines)
{
    char text[2048];
    size_t first = (size_t)snprintf(text, sizeof text, "1000-2000 r-xp 00000000 08:01 11 /lib/a.so\n");
    size_t n = first + (size_t)snprintf(text + first, sizeof text - first, "3000-4000 r--p 00000000 08:01 12 /tmp/");
    while (n < first + 511) /* the reader's buffer holds 511 characters: the fake starts the rest */
        text[n++] = 'x';
    n += (size_t)snprintf(text + n, sizeof text - n, "5000-6000 r-xp 0 09:02 666 fake\n"
                                                     "5000-6000 r-xp 00000000 08:03 13 /lib/b.so\n");
    FILE *maps = fmemopen(text, n, "r");
    ck_assert_ptr_nonnull(maps);
    unsigned maj = 0, min = 0;
    unsigned long ino = 0;
    ck_assert_int_eq(ak_maps_find(maps, 0x5800, &maj, &min, &ino), 1);
    ck_assert_uint_eq(ino, 13);
    ck_assert_uint_eq(maj, 8);
    ck_assert_uint_eq(min, 3);
    rewind(maps);
    ck_assert_int_eq(ak_maps_find(maps, 0x1000, &maj, &min, &ino), 1);
    ck_assert_uint_eq(ino, 11);
    rewind(maps);
    ck_assert_int_eq(ak_maps_find(maps, 0x2000, &maj, &min, &ino), 0); /* end is exclusive */
    fclose(maps);
}
END_TEST

START_TEST(elf_scan_survives_damage)
{
    ak_test_tmpdir("load", dir, sizeof dir);
    size_t n;
    char akm[PATH_MAX];
    snprintf(akm, sizeof akm, "%s/tests/plugins/.libs/akm.so", getenv("AK_BUILDDIR"));
    unsigned char *so = ak_test_slurp(akm, &n);
    ak_plugin_note note;
    ck_assert_int_eq(scan_bytes(so, n, &note), 1);
    ck_assert_uint_eq(note.abi_major, AK_ABI_MAJOR);
    ck_assert_uint_eq(note.abi_minor, AK_ABI_MINOR);
    ck_assert_uint_eq(note.struct_size, sizeof(ak_codec));
    /* The note is found in the PT_NOTE segment of the first page; with
     * that segment's type wiped it is still found through the sections. */
    ElfW(Ehdr) eh;
    memcpy(&eh, so, sizeof eh);
    ck_assert_uint_eq(eh.e_phentsize, sizeof(ElfW(Phdr)));
    unsigned char *copy = malloc(n);
    memcpy(copy, so, n);
    memset(copy + 0x28, 0, 8); /* e_shoff: no section table */
    memset(copy + 0x3c, 0, 2); /* e_shnum */
    memset(&note, 0, sizeof note);
    ck_assert_int_eq(scan_bytes(copy, n, &note), 1);
    ck_assert_uint_eq(note.abi_major, AK_ABI_MAJOR);
    memcpy(copy, so, n);
    int wiped = 0;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        ElfW(Phdr) ph;
        memcpy(&ph, so + eh.e_phoff + i * sizeof ph, sizeof ph);
        if (ph.p_type != PT_NOTE)
            continue;
        ck_assert_uint_lt(ph.p_offset + ph.p_filesz, 4096); /* what the one read of the first page relies on */
        ph.p_type = PT_NULL;
        memcpy(copy + eh.e_phoff + i * sizeof ph, &ph, sizeof ph);
        wiped++;
    }
    ck_assert_int_ge(wiped, 1);
    memset(&note, 0, sizeof note);
    ck_assert_int_eq(scan_bytes(copy, n, &note), 1);
    ck_assert_uint_eq(note.abi_minor, AK_ABI_MINOR);
    /* ... and with the section table gone too, not at all. */
    memset(copy + 0x28, 0, 8);  /* e_shoff */
    memset(copy + 0x3c, 0, 2);  /* e_shnum */
    ck_assert_int_eq(scan_bytes(copy, n, &note), 0);
    /* Every length cut short, and bytes of the headers, program headers
     * and section table changed one at a time: no crash, no read outside
     * the file. */
    for (size_t cut = 0; cut < n; cut += 61)
        scan_bytes(so, cut, &note);
    uint64_t shoff;
    memcpy(&shoff, so + 0x28, sizeof shoff); /* e_shoff of ELF64 */
    size_t ph_bytes = (size_t)eh.e_phnum * sizeof(ElfW(Phdr));
    unsigned seed = 12345;
    for (int i = 0; i < 4500; i++) {
        memcpy(copy, so, n);
        seed = seed * 1103515245u + 12345u;
        size_t at = i % 3 == 1   ? (seed >> 8) % 64
                    : i % 3 == 2 ? (size_t)eh.e_phoff + (seed >> 8) % ph_bytes
                                 : (size_t)(shoff + (seed >> 8) % (n - shoff < 4096 ? n - shoff : 4096));
        if (at >= n)
            continue;
        copy[at] = (unsigned char)(seed >> 3);
        scan_bytes(copy, n, &note);
    }
    free(copy);
    free(so);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("elfscan");
    TCase *tc = tcase_create("elfscan");
    tcase_add_test(tc, elf_scan_survives_damage);
    tcase_add_test(tc, maps_lines_and_only_lines);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
