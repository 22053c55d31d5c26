/* The opened-files report in resource_monitor's layout (see rm_files.h). */
#include "report/rm_files.h"

#include <stdio.h>
#include <stdlib.h>
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

int rm_files_write_entries(const char *path, const struct rm_file_entry *e, size_t n)
{
    struct atomic_file af;
    if (atomic_file_open(&af, path) < 0) {
        tally_error_errno("%s", path);
        return -1;
    }
    fprintf(af.fp, "%-15s\n%-15s %6s %20s %20s %6s %6s %6s %6s\n", "#path", "#", "device",
            "size_initial(B)", "size_final(B)", "opens", "closes", "reads", "writes");
    for (size_t i = 0; i < n; i++)
        fprintf(af.fp, "%-15s\n%-15s %6lld %20lld %20lld %6lld %6lld %6lld %6lld\n", e[i].path, "",
                e[i].device, e[i].size_initial, e[i].size_final, e[i].opens, e[i].closes,
                e[i].reads, e[i].writes);
    if (atomic_file_commit(&af) < 0) {
        tally_error_errno("%s", path);
        return -1;
    }
    return 0;
}

char *rm_files_list_text(const struct rm_file_entry *e, size_t n, bool outputs)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return NULL;
    fputs("[\n", out);
    const char *delimiter = "";
    for (size_t i = 0; i < n; i++) {
        long long size = e[i].size_initial > e[i].size_final ? e[i].size_initial : e[i].size_final;
        if (e[i].output != outputs || size < 0)
            continue;
        fprintf(out, "%s%20s\"%s\", %lld ]", delimiter, "[ ", e[i].list_path ? e[i].list_path : e[i].path,
                (size + (1LL << 20) - 1) >> 20);
        delimiter = ",\n";
    }
    fprintf(out, "\n%16s", "]");
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
