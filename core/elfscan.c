/* elfscan.c - reading a plugin's ELF file before it is loaded: the animkit
 * ABI note that AK_PLUGIN_ENTRY places, and, when the entry symbol is
 * missing, a symbol that looks like it (C++-mangled or hidden). Only the
 * host's own ELF class and byte order are understood: anything else could
 * not be loaded anyway. Every offset and size from the file is checked
 * against the file's size before it is read. */
#include "registry.h"

#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_DATA ELFDATA2LSB
#else
#define HOST_DATA ELFDATA2MSB
#endif
#if UINTPTR_MAX > 0xffffffffu
#define HOST_CLASS ELFCLASS64
#else
#define HOST_CLASS ELFCLASS32
#endif

#define MAX_SECTIONS 4096
#define MAX_NOTE_BYTES (1u << 20)

typedef struct elf_file {
    int fd;
    uint64_t size;
    ElfW(Ehdr) eh;
} elf_file;

static int read_at(const elf_file *f, void *buf, uint64_t n, uint64_t off)
{
    if (off > f->size || n > f->size - off)
        return 0;
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = pread(f->fd, p, (size_t)n, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return 0;
        p += got;
        off += (uint64_t)got;
        n -= (uint64_t)got;
    }
    return 1;
}

static int open_elf(elf_file *f, int fd, char *why, size_t n)
{
    struct stat st;
    f->fd = fd;
    if (fstat(fd, &st) != 0 || st.st_size < 0) {
        snprintf(why, n, "cannot be read: %s", strerror(errno));
        return 0;
    }
    f->size = (uint64_t)st.st_size;
    if (!read_at(f, &f->eh, sizeof f->eh, 0) || memcmp(f->eh.e_ident, ELFMAG, SELFMAG) != 0) {
        snprintf(why, n, "cannot be loaded as a shared object: not an ELF file");
        return 0;
    }
    if (f->eh.e_ident[EI_CLASS] != HOST_CLASS || f->eh.e_ident[EI_DATA] != HOST_DATA) {
        snprintf(why, n, "cannot be loaded as a shared object: built for another machine (ELF class %u, "
                 "byte order %u)", f->eh.e_ident[EI_CLASS], f->eh.e_ident[EI_DATA]);
        return 0;
    }
    if (f->eh.e_shnum > MAX_SECTIONS || (f->eh.e_shnum && f->eh.e_shentsize != sizeof(ElfW(Shdr)))) {
        snprintf(why, n, "cannot be loaded as a shared object: malformed section table");
        return 0;
    }
    return 1;
}

static int section(const elf_file *f, unsigned i, ElfW(Shdr) *sh)
{
    return read_at(f, sh, sizeof *sh, (uint64_t)f->eh.e_shoff + (uint64_t)i * sizeof *sh);
}

static size_t align4(size_t v) { return (v + 3) & ~(size_t)3; }

/* Looks for the animkit note among the notes in `bytes`. */
static int find_note(const unsigned char *bytes, size_t size, ak_plugin_note *out)
{
    size_t pos = 0;
    while (size - pos >= 12) {
        uint32_t h[3];
        memcpy(h, bytes + pos, sizeof h);
        size_t name_end = pos + 12 + align4(h[0]);
        if (h[0] > size || h[1] > size || name_end > size || align4(h[1]) > size - name_end)
            return 0;
        if (h[2] == AK_NOTE_TYPE && h[0] == sizeof AK_NOTE_NAME &&
            memcmp(bytes + pos + 12, AK_NOTE_NAME, sizeof AK_NOTE_NAME) == 0 && h[1] >= 12) {
            memset(out, 0, sizeof *out);
            uint32_t d[3];
            memcpy(d, bytes + name_end, sizeof d);
            out->abi_major = d[0];
            out->abi_minor = d[1];
            out->struct_size = d[2];
            return 1;
        }
        pos = name_end + align4(h[1]);
    }
    return 0;
}

/* The note in a PT_NOTE segment that lies in the file's first `len` bytes
 * (`head`), where linkers put the loadable notes: one read instead of one
 * per section header (the registry reads the notes of every plugin before
 * a command can start). */
static int note_in_head(const elf_file *f, const unsigned char *head, size_t len, ak_plugin_note *note)
{
    const ElfW(Ehdr) *eh = &f->eh;
    if (eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phoff > len ||
        eh->e_phnum > (len - eh->e_phoff) / sizeof(ElfW(Phdr)))
        return 0;
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        ElfW(Phdr) ph;
        memcpy(&ph, head + eh->e_phoff + i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_NOTE && ph.p_offset <= len && ph.p_filesz <= len - ph.p_offset &&
            find_note(head + ph.p_offset, (size_t)ph.p_filesz, note))
            return 1;
    }
    return 0;
}

int ak_elf_read_note(int fd, ak_plugin_note *note, char *why, size_t n)
{
    elf_file f;
    if (!open_elf(&f, fd, why, n))
        return -1;
    unsigned char buf[4096];
    size_t head = f.size < sizeof buf ? (size_t)f.size : sizeof buf;
    if (read_at(&f, buf, head, 0) && note_in_head(&f, buf, head, note))
        return 1;
    for (unsigned i = 0; i < f.eh.e_shnum; i++) {
        ElfW(Shdr) sh;
        if (!section(&f, i, &sh)) {
            snprintf(why, n, "cannot be loaded as a shared object: section table past the end of the file");
            return -1;
        }
        if (sh.sh_type != SHT_NOTE || sh.sh_size > MAX_NOTE_BYTES)
            continue;
        /* Notes are small; a longer note section is read in its first 4 KiB. */
        size_t len = sh.sh_size < sizeof buf ? (size_t)sh.sh_size : sizeof buf;
        if (read_at(&f, buf, len, sh.sh_offset) && find_note(buf, len, note))
            return 1;
    }
    return 0;
}

/* What a defined symbol says about the missing entry `want`: the entry
 * itself, not exported (LOOKS_HIDDEN), or a C++-mangled name holding it
 * (LOOKS_MANGLED). Other names that merely contain it are the plugin's own
 * or a tool's (`animkit_codec_calls`, gcov's `__gcov0.animkit_codec`,
 * GCC's `animkit_codec.cold`); naming one as the entry would mislead. */
enum { LOOKS_UNRELATED, LOOKS_MANGLED, LOOKS_HIDDEN };

static int look_alike(const char *name, const ElfW(Sym) *sym, const char *want)
{
    if (sym->st_shndx == SHN_UNDEF)
        return LOOKS_UNRELATED;
    if (strcmp(name, want) == 0) {
        int exported = ELF64_ST_BIND(sym->st_info) != STB_LOCAL && ELF64_ST_VISIBILITY(sym->st_other) == STV_DEFAULT;
        return exported ? LOOKS_UNRELATED : LOOKS_HIDDEN;
    }
    return strncmp(name, "_Z", 2) == 0 && strstr(name, want) ? LOOKS_MANGLED : LOOKS_UNRELATED;
}

/* The best look-alike of `want` in the symbol table `sh` (with its string
 * table) that beats `best`, its name put in `found`; the hidden entry wins
 * over a mangled name wherever each lies in the table. */
static int scan_symbols(const elf_file *f, const ElfW(Shdr) *sh, const char *want, int best, char *found,
                        size_t fn)
{
    ElfW(Shdr) strsh;
    if (sh->sh_entsize != sizeof(ElfW(Sym)) || !section(f, sh->sh_link, &strsh))
        return best;
    uint64_t count = sh->sh_size / sizeof(ElfW(Sym));
    if (count > f->size / sizeof(ElfW(Sym)))
        return best;
    for (uint64_t k = 0; k < count && best != LOOKS_HIDDEN; k++) {
        ElfW(Sym) sym;
        char name[256];
        if (!read_at(f, &sym, sizeof sym, sh->sh_offset + k * sizeof sym) || sym.st_name >= strsh.sh_size)
            return best;
        uint64_t avail = strsh.sh_size - sym.st_name;
        size_t len = avail < sizeof name - 1 ? (size_t)avail : sizeof name - 1;
        if (!read_at(f, name, len, strsh.sh_offset + sym.st_name))
            return best;
        name[len] = '\0';
        int looks = look_alike(name, &sym, want);
        if (looks > best) {
            snprintf(found, fn, "%s", name);
            best = looks;
        }
    }
    return best;
}

int ak_elf_find_symbol_like(int fd, const char *want, char *found, size_t fn, int *hidden)
{
    elf_file f;
    char why[160];
    if (!open_elf(&f, fd, why, sizeof why))
        return 0;
    int best = LOOKS_UNRELATED;
    for (unsigned i = 0; i < f.eh.e_shnum && best != LOOKS_HIDDEN; i++) {
        ElfW(Shdr) sh;
        if (!section(&f, i, &sh))
            break;
        if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
            best = scan_symbols(&f, &sh, want, best, found, fn);
    }
    *hidden = best == LOOKS_HIDDEN;
    return best != LOOKS_UNRELATED;
}
