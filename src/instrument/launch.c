/* Which MPI a command runs with, and where tally's libraries are (launch.h). */
#include "instrument/launch.h"

#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/platform.h"

const char *mpi_flavour_name(enum mpi_flavour f)
{
    return f == MPI_FLAVOUR_OPENMPI ? "openmpi" : f == MPI_FLAVOUR_MPICH ? "mpich" : "unknown";
}

int command_path(const char *word, char *out, size_t len)
{
    if (strchr(word, '/')) {
        if (access(word, X_OK) < 0 || !realpath(word, out))
            return -1;
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char candidate[PATH_MAX];
    while (*path) {
        size_t n = strcspn(path, ":");
        if ((size_t)snprintf(candidate, sizeof candidate, "%.*s/%s", (int)n, path, word) < sizeof candidate &&
            access(candidate, X_OK) == 0 && realpath(candidate, out) && strlen(out) < len)
            return 0;
        path += n + (path[n] == ':');
    }
    return -1;
}

/* A launcher's resolved path: mpirun.openmpi, orterun, mpiexec.hydra, ... */
static enum mpi_flavour flavour_of_name(const char *path)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    const char *base = basename(copy);
    if (!strcmp(base, "orterun") || !strcmp(base, "prterun"))
        return MPI_FLAVOUR_OPENMPI;
    if (strncmp(base, "mpirun", 6) && strncmp(base, "mpiexec", 7))
        return MPI_FLAVOUR_UNKNOWN;
    if (strstr(base, "openmpi"))
        return MPI_FLAVOUR_OPENMPI;
    if (strstr(base, "mpich") || strstr(base, "hydra"))
        return MPI_FLAVOUR_MPICH;
    return MPI_FLAVOUR_UNKNOWN;
}

static void note_library(void *ctx, const char *name)
{
    enum mpi_flavour *f = ctx;
    if (!strncmp(name, "libmpich", 8))
        *f = MPI_FLAVOUR_MPICH;
    else if (!strncmp(name, "libmpi.so", 9) || !strncmp(name, "libmpi_mpifh", 12))
        *f = MPI_FLAVOUR_OPENMPI;
}

enum mpi_flavour mpi_flavour_of_command(char *const *argv)
{
    char path[PATH_MAX];
    for (char *const *w = argv; *w; w++) /* a launcher, by name */
        if (command_path(*w, path, sizeof path) == 0) {
            enum mpi_flavour f = flavour_of_name(path);
            if (f != MPI_FLAVOUR_UNKNOWN)
                return f;
        }
    for (char *const *w = argv; *w; w++) { /* an executable linked with an MPI */
        if (command_path(*w, path, sizeof path) < 0)
            continue;
        enum mpi_flavour f = MPI_FLAVOUR_UNKNOWN;
        if (elf_visit_needed(path, note_library, &f) == 0 && f != MPI_FLAVOUR_UNKNOWN)
            return f;
    }
    return MPI_FLAVOUR_UNKNOWN;
}

static int existing(const char *dir, const char *name, char *out, size_t len)
{
    if ((size_t)snprintf(out, len, "%s/%s", dir, name) >= len)
        return -1;
    return access(out, R_OK);
}

int instrument_library_path(const char *name, char *out, size_t len)
{
    const char *env = getenv("TALLY_LIBDIR");
    if (env && *env)
        return existing(env, name, out, len);
    char exe[PATH_MAX];
    if (proc_self_exe(exe, sizeof exe) < 0)
        return -1;
    char *dir = dirname(exe); /* build/ or build/asan/ or PREFIX/bin */
    char candidate[PATH_MAX];
    const char *tries[] = {"lib", "../lib", "../lib/tally"};
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        snprintf(candidate, sizeof candidate, "%s/%s", dir, tries[i]);
        if (existing(candidate, name, out, len) == 0)
            return 0;
    }
    return -1;
}
