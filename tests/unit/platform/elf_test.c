/* Unit tests for the ELF reader (src/platform/linux/elf.c) on small images
 * built here: a sound one (a needed library, a function's file offset), then
 * crafted ones that must be refused without a crash or undefined behaviour
 * (ASan and UBSan watch): a string table of type SHT_NOBITS whose offset lies
 * far outside the file, and tables (section and program headers) at offsets
 * that are not aligned. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/platform.h"
#include "test.h"

enum { PH_OFF = 64, STR_OFF = 120, SYM_OFF = 144, DYN_OFF = 192, SH_OFF = 224, NSECT = 4 };
static const char strings[] = "\0main\0libmpi.so.40"; /* "main" at 1, the library at 6 */

/* An image whose section headers start at SH_OFF + SHIFT (SHIFT 0: aligned);
 * STRTYPE is the string table's section type. Returns its size. */
static size_t build(unsigned char *img, size_t shift, uint32_t strtype, uint64_t stroff)
{
    size_t size = SH_OFF + shift + NSECT * sizeof(Elf64_Shdr);
    memset(img, 0, size);
    Elf64_Ehdr eh = {.e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
                     .e_phoff = PH_OFF, .e_shoff = SH_OFF + shift, .e_ehsize = sizeof eh,
                     .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1,
                     .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = NSECT};
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    memcpy(img, &eh, sizeof eh);
    Elf64_Phdr ph = {.p_type = PT_LOAD, .p_vaddr = 0x400000, .p_filesz = size, .p_memsz = size};
    memcpy(img + PH_OFF, &ph, sizeof ph);
    memcpy(img + STR_OFF, strings, sizeof strings);
    Elf64_Sym sym = {.st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = 1,
                     .st_value = 0x400100};
    memcpy(img + SYM_OFF + sizeof sym, &sym, sizeof sym);
    Elf64_Dyn dyn = {.d_tag = DT_NEEDED, .d_un.d_val = 6};
    memcpy(img + DYN_OFF, &dyn, sizeof dyn);
    Elf64_Shdr sh[NSECT] = {
        {0},
        {.sh_type = strtype, .sh_offset = stroff, .sh_size = sizeof strings},
        {.sh_type = SHT_SYMTAB, .sh_offset = SYM_OFF, .sh_size = 2 * sizeof sym,
         .sh_entsize = sizeof sym, .sh_link = 1},
        {.sh_type = SHT_DYNAMIC, .sh_offset = DYN_OFF, .sh_size = 2 * sizeof dyn, .sh_link = 1},
    };
    memcpy(img + SH_OFF + shift, sh, sizeof sh);
    return size;
}

static char path[] = "/tmp/tally-elf-test-XXXXXX";

static void write_image(const unsigned char *img, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(img, 1, size, f) != size || fclose(f) != 0)
        abort();
}

static void count_needed(void *ctx, const char *name)
{
    if (!strcmp(name, "libmpi.so.40"))
        ++*(int *)ctx;
}

/* Reads PATH both ways; returns the function's offset (or -1) and the
 * number of times the library was listed. */
static long long probe(int *needed)
{
    uint64_t off = 0;
    char why[256] = "";
    *needed = 0;
    elf_visit_needed(path, count_needed, needed);
    return elf_symbol_offset(path, "main", &off, why, sizeof why) == 0 ? (long long)off : -1;
}

int main(void)
{
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    static unsigned char img[4096];
    int needed;

    write_image(img, build(img, 0, SHT_STRTAB, STR_OFF));
    CHECK_INT(probe(&needed), 0x100);
    CHECK_INT(needed, 1);

    /* section headers 3 bytes off alignment: read the same, without
     * misaligned accesses */
    write_image(img, build(img, 3, SHT_STRTAB, STR_OFF));
    CHECK_INT(probe(&needed), 0x100);
    CHECK_INT(needed, 1);

    /* a string table of no bits, its offset 1 TB away: refused (was SIGSEGV) */
    write_image(img, build(img, 0, SHT_NOBITS, 1ULL << 40));
    CHECK_INT(probe(&needed), -1);
    CHECK_INT(needed, 0);

    /* the same, misaligned as well */
    write_image(img, build(img, 5, SHT_NOBITS, 1ULL << 40));
    CHECK_INT(probe(&needed), -1);
    CHECK_INT(needed, 0);

    /* program headers: PT_LOAD only is static; a PT_INTERP header, at an
     * aligned offset and at one 3 bytes off alignment (was read in place:
     * a misaligned access), is dynamic */
    size_t size = build(img, 0, SHT_STRTAB, STR_OFF);
    write_image(img, size);
    CHECK_INT(elf_is_dynamic(path), 0);
    for (size_t shift = 0; shift <= 3; shift += 3) {
        size = build(img, 0, SHT_STRTAB, STR_OFF);
        size_t at = size + shift;
        Elf64_Phdr interp = {.p_type = PT_INTERP};
        memcpy(img + at, &interp, sizeof interp);
        Elf64_Ehdr eh;
        memcpy(&eh, img, sizeof eh);
        eh.e_phoff = at;
        memcpy(img, &eh, sizeof eh);
        write_image(img, at + sizeof interp);
        CHECK_INT(elf_is_dynamic(path), 1);
        write_image(img, at + sizeof interp - 1); /* the header cut short: refused */
        CHECK_INT(elf_is_dynamic(path), -1);
    }

    unlink(path);
    return test_done();
}
