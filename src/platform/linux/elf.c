/* Just enough ELF reading for instrumentation: the libraries an executable
 * needs (which MPI it was linked with) and a function's file offset (where a
 * uprobe goes). The file is mapped read-only; every offset is checked
 * against its size, so a damaged file is refused, never trusted. */
#include "platform/platform.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct elf_image {
    const unsigned char *data;
    size_t size;
    const Elf64_Ehdr *eh;
};

static int elf_map(const char *path, struct elf_image *img)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -1;
    img->data = p;
    img->size = (size_t)st.st_size;
    img->eh = p;
    const Elf64_Ehdr *eh = img->eh;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > img->size ||
        (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > img->size - eh->e_shoff ||
        eh->e_phoff > img->size ||
        (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > img->size - eh->e_phoff) {
        munmap(p, img->size);
        return -1;
    }
    return 0;
}

static void elf_unmap(struct elf_image *img)
{
    munmap((void *)img->data, img->size);
}

/* Copies N bytes at offset OFF of the file into OUT; -1 if they are not all
 * inside it. Structures are copied, never read in place: a crafted file puts
 * its tables at any offset, aligned or not. */
static int read_at(const struct elf_image *img, uint64_t off, void *out, size_t n)
{
    if (off > img->size || n > img->size - off)
        return -1;
    memcpy(out, img->data + off, n);
    return 0;
}

/* Section header I, if its contents lie inside the file. Sections without
 * contents in the file (SHT_NOBITS) are refused: none of those read here
 * (dynamic section, symbol and string tables) can be one. */
static int section(const struct elf_image *img, size_t i, Elf64_Shdr *sh)
{
    if (i >= img->eh->e_shnum || read_at(img, img->eh->e_shoff + i * sizeof *sh, sh, sizeof *sh) < 0)
        return -1;
    if (sh->sh_type == SHT_NOBITS || sh->sh_offset > img->size || sh->sh_size > img->size - sh->sh_offset)
        return -1;
    return 0;
}

/* The NUL-terminated string at OFF of string section STRTAB, or NULL. */
static const char *string_at(const struct elf_image *img, const Elf64_Shdr *strtab, uint64_t off)
{
    if (!strtab || off >= strtab->sh_size)
        return NULL;
    const char *s = (const char *)img->data + strtab->sh_offset + off;
    if (!memchr(s, '\0', strtab->sh_size - off))
        return NULL;
    return s;
}

/* Section LINK as a string table, or NULL when it is not one in the file. */
static const Elf64_Shdr *linked_strtab(const struct elf_image *img, uint32_t link, Elf64_Shdr *out)
{
    return section(img, link, out) == 0 && out->sh_type == SHT_STRTAB ? out : NULL;
}

int elf_visit_needed(const char *path, void (*visit)(void *ctx, const char *name), void *ctx)
{
    struct elf_image img;
    if (elf_map(path, &img) < 0)
        return -1;
    for (size_t i = 0; i < img.eh->e_shnum; i++) {
        Elf64_Shdr sh, strsh;
        if (section(&img, i, &sh) < 0 || sh.sh_type != SHT_DYNAMIC)
            continue;
        const Elf64_Shdr *strtab = linked_strtab(&img, sh.sh_link, &strsh);
        Elf64_Dyn dyn;
        for (size_t k = 0; k < sh.sh_size / sizeof dyn; k++) {
            if (read_at(&img, sh.sh_offset + k * sizeof dyn, &dyn, sizeof dyn) < 0 || dyn.d_tag == DT_NULL)
                break;
            if (dyn.d_tag == DT_NEEDED) {
                const char *name = string_at(&img, strtab, dyn.d_un.d_val);
                if (name)
                    visit(ctx, name);
            }
        }
    }
    elf_unmap(&img);
    return 0;
}

/* 1 when the executable names an interpreter (PT_INTERP: dynamically
 * linked), 0 when not, -1 when it is no readable 64-bit ELF file. */
int elf_is_dynamic(const char *path)
{
    struct elf_image img;
    if (elf_map(path, &img) < 0)
        return -1;
    int dynamic = 0;
    Elf64_Phdr ph;
    for (size_t i = 0; i < img.eh->e_phnum; i++)
        if (read_at(&img, img.eh->e_phoff + i * sizeof ph, &ph, sizeof ph) == 0 && ph.p_type == PT_INTERP)
            dynamic = 1;
    elf_unmap(&img);
    return dynamic;
}

/* The file offset of virtual address V (a PT_LOAD segment holds it), or -1. */
static int64_t file_offset_of(const struct elf_image *img, uint64_t v)
{
    Elf64_Phdr ph;
    for (size_t i = 0; i < img->eh->e_phnum; i++) {
        if (read_at(img, img->eh->e_phoff + i * sizeof ph, &ph, sizeof ph) < 0)
            return -1;
        if (ph.p_type == PT_LOAD && v >= ph.p_vaddr && v - ph.p_vaddr < ph.p_filesz &&
            ph.p_offset <= img->size && v - ph.p_vaddr < img->size - ph.p_offset)
            return (int64_t)(v - ph.p_vaddr + ph.p_offset);
    }
    return -1;
}

static int find_in(const struct elf_image *img, uint32_t type, const char *symbol, uint64_t *value)
{
    for (size_t i = 0; i < img->eh->e_shnum; i++) {
        Elf64_Shdr sh, strsh;
        if (section(img, i, &sh) < 0 || sh.sh_type != type || sh.sh_entsize != sizeof(Elf64_Sym))
            continue;
        const Elf64_Shdr *strtab = linked_strtab(img, sh.sh_link, &strsh);
        Elf64_Sym sym;
        for (size_t k = 0; k < sh.sh_size / sizeof sym; k++) {
            if (read_at(img, sh.sh_offset + k * sizeof sym, &sym, sizeof sym) < 0)
                break;
            if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF)
                continue;
            const char *name = string_at(img, strtab, sym.st_name);
            if (name && !strcmp(name, symbol)) {
                *value = sym.st_value;
                return 0;
            }
        }
    }
    return -1;
}

int elf_symbol_offset(const char *path, const char *symbol, uint64_t *offset, char *why, size_t why_size)
{
    struct elf_image img;
    if (elf_map(path, &img) < 0) {
        snprintf(why, why_size, "'%s' is not a readable 64-bit ELF file", path);
        return -1;
    }
    uint64_t value = 0;
    int rc = -1;
    if (find_in(&img, SHT_SYMTAB, symbol, &value) < 0 && find_in(&img, SHT_DYNSYM, symbol, &value) < 0) {
        snprintf(why, why_size, "no function '%s' in %s", symbol, path);
    } else {
        int64_t off = file_offset_of(&img, value);
        if (off < 0)
            snprintf(why, why_size, "function '%s' of %s is outside its loaded segments", symbol, path);
        else {
            *offset = (uint64_t)off;
            rc = 0;
        }
    }
    elf_unmap(&img);
    return rc;
}
