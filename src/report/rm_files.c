/* The opened-files report in resource_monitor's layout (see rm_files.h). */
#include "report/rm_files.h"

#include <sys/stat.h>

#include "util/atomic_file.h"
#include "util/error.h"

int rm_files_write(const char *path, const struct task_result *r)
{
    struct atomic_file af;
    if (atomic_file_open(&af, path) < 0) {
        tally_error_errno("%s", path);
        return -1;
    }
    fputs("# files the task had open (seen in /proc/PID/fd at samples and exits);\n"
          "# -1: not measured (tally does not count opens, closes, reads or writes per file)\n"
          "#path\n"
          "#               device      size_initial(B)        size_final(B)  opens closes  reads writes\n",
          af.fp);
    for (size_t i = 0; i < r->file_count; i++) {
        struct stat st;
        bool known = stat(r->files[i], &st) == 0;
        fprintf(af.fp, "%s\n%22lld %20d %20lld %6d %6d %6d %6d\n", r->files[i],
                known ? (long long)st.st_dev : -1LL, -1, known ? (long long)st.st_size : -1LL,
                -1, -1, -1, -1);
    }
    if (atomic_file_commit(&af) < 0) {
        tally_error_errno("%s", path);
        return -1;
    }
    return 0;
}
