/* Test fixture: reads resource summaries with cctools' own code (Debian's
 * libdttools from coop-computing-tools-dev), the way its programs do:
 * rmsummary_parse_file_single, as Makeflow's monitor hook reads each rule's
 * summary; rmsummary_parse_file_multiple, category_accumulate_summary and
 * histogram_insert, as resource_monitor_histograms read its list of summaries
 * (that program is no longer built by cctools; Debian ships only its man
 * page). Prints one line per summary and per category, for the tests to
 * compare. Built by tests/integration/rmcompat/*.test.sh. */
#include <stdio.h>
#include <string.h>

#include "category.h"
#include "hash_table.h"
#include "histogram.h"
#include "list.h"
#include "rmsummary.h"

static void print_one(const char *path, const struct rmsummary *s)
{
    printf("summary %s category=%s taskid=%s exit_type=%s exit_status=%lld signal=%lld"
           " memory=%g wall_time=%g cpu_time=%g cores=%g disk=%g total_processes=%g",
           path, s->category ? s->category : "-", s->taskid ? s->taskid : "-",
           s->exit_type ? s->exit_type : "-", (long long)s->exit_status, (long long)s->signal,
           s->memory, s->wall_time, s->cpu_time, s->cores, s->disk, s->total_processes);
    if (s->limits_exceeded)
        printf(" limits_exceeded.memory=%g limits_exceeded.wall_time=%g", s->limits_exceeded->memory,
               s->limits_exceeded->wall_time);
    if (s->peak_times)
        printf(" peak_times.memory=%g", s->peak_times->memory);
    printf("\n");
}

int main(int argc, char **argv)
{
    struct hash_table *categories = hash_table_create(0, 0);
    struct histogram *memory = histogram_create(1);
    int failures = 0;
    for (int i = 1; i < argc; i++) {
        struct rmsummary *single = rmsummary_parse_file_single(argv[i]);
        if (!single) {
            printf("unreadable %s\n", argv[i]);
            failures++;
            continue;
        }
        print_one(argv[i], single);
        rmsummary_delete(single);
        struct list *all = rmsummary_parse_file_multiple(argv[i]);
        struct rmsummary *s;
        while (all && (s = list_pop_head(all))) {
            struct category *c = category_lookup_or_create(categories, s->category ? s->category : "default");
            category_accumulate_summary(c, s, NULL);
            if (s->memory >= 0)
                histogram_insert(memory, s->memory);
            rmsummary_delete(s);
        }
        if (all)
            list_delete(all);
    }
    char *name;
    struct category *c;
    hash_table_firstkey(categories);
    while (hash_table_nextkey(categories, &name, (void **)&c))
        printf("category %s tasks=%lld max_memory=%g max_wall_time=%g max_cores=%g\n", name,
               (long long)c->total_tasks, c->max_resources_seen->memory,
               c->max_resources_seen->wall_time, c->max_resources_seen->cores);
    printf("histogram memory buckets=%d max=%g\n", histogram_size(memory), histogram_max_value(memory));
    return failures ? 1 : 0;
}
