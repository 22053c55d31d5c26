/* Level 3's per-file report and summary object (io_report.h). Records of
 * one path from several processes (or from one process, when two threads
 * raced to take its record) are merged counter by counter as the counter's
 * kind says: counts and times summed, largest offsets and longest
 * operations by maximum, first timestamps by minimum, last by maximum. */
#include "instrument/io_report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform.h"
#include "report/json_text.h"
#include "core/units.h"
#include "util/hashmap.h"
#include "util/vec.h"

#define COUNTER_NAME(name, kind) #name,
#define COUNTER_KIND(name, kind) TALLY_IO_##kind,
static const char *const counter_names[] = {TALLY_IO_COUNTERS(COUNTER_NAME)};
static const int counter_kinds[] = {TALLY_IO_COUNTERS(COUNTER_KIND)};
#define TOP_FILES 10

struct io_split {          /* one process image's share of a file */
    pid_t pid;
    uint32_t image;
    int64_t counter[TALLY_IO_COUNTER_COUNT];
};

struct io_file {
    char *path;
    int64_t counter[TALLY_IO_COUNTER_COUNT];
    struct io_split *splits;
    size_t split_count, split_cap;
};

struct io_report {
    double start_epoch;
    struct io_file *files;
    size_t count, cap;
    struct hashmap by_path;  /* path (the file's own copy) -> index into files */
};

struct io_report *io_report_new(double start_epoch)
{
    struct io_report *r = calloc(1, sizeof *r);
    if (r)
        r->start_epoch = start_epoch;
    return r;
}

void io_report_free(struct io_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->count; i++) {
        free(r->files[i].path);
        free(r->files[i].splits);
    }
    free(r->files);
    hashmap_free(&r->by_path);
    free(r);
}

static struct io_file *file_of(struct io_report *r, const char *path)
{
    const struct hashmap_slot *known = hashmap_find(&r->by_path, path, strlen(path));
    if (known)
        return &r->files[(intptr_t)known->value];
    struct io_file *f = VEC_PUSH(r->files, r->count, r->cap);
    if (!f)
        return NULL;
    f->path = strdup(path);
    if (!f->path || hashmap_put_kept(&r->by_path, f->path, strlen(path), (void *)(intptr_t)(r->count - 1)) < 0) {
        free(f->path);
        r->count--;
        return NULL;
    }
    return f;
}

/* Sums saturate: a region is another process's memory, and a damaged one
 * must not overflow them. */
static int64_t add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static void merge(int64_t *into, const int64_t *from)
{
    for (int i = 0; i < TALLY_IO_COUNTER_COUNT; i++) {
        int64_t v = from[i];
        switch (counter_kinds[i]) {
        case TALLY_IO_S:
        case TALLY_IO_D:
            into[i] = add(into[i], v);
            break;
        case TALLY_IO_T0:
            if (v && (!into[i] || v < into[i]))
                into[i] = v;
            break;
        default: /* M, T1, DM */
            if (v > into[i])
                into[i] = v;
            break;
        }
    }
}

/* Timestamps are shown in seconds after the task's start, times in seconds;
 * the other counters are integers. */
static bool counter_is_real(int i)
{
    int k = counter_kinds[i];
    return k == TALLY_IO_T0 || k == TALLY_IO_T1 || k == TALLY_IO_D || k == TALLY_IO_DM;
}

static double counter_real(const struct io_report *r, int i, int64_t v)
{
    if (counter_kinds[i] == TALLY_IO_T0 || counter_kinds[i] == TALLY_IO_T1)
        return v ? (double)v / 1e9 - r->start_epoch : 0;
    return (double)v / 1e9;
}

static bool module_used(const int64_t *c, int first, int end)
{
    for (int i = first; i < end; i++)
        if (c[i])
            return true;
    return false;
}

/* The counters a record shows, in order: every counter of each module the
 * record used (all_of_module), or only those that are not zero. */
static void each_counter(const int64_t *c, bool all_of_module, void (*fn)(void *ctx, int i), void *ctx)
{
    const int modules[][2] = {{0, STDIO_OPENS}, {STDIO_OPENS, TALLY_IO_COUNTER_COUNT}};
    for (int m = 0; m < 2; m++) {
        if (!module_used(c, modules[m][0], modules[m][1]))
            continue;
        for (int i = modules[m][0]; i < modules[m][1]; i++)
            if (all_of_module || c[i])
                fn(ctx, i);
    }
}

struct counter_sink {
    const struct io_report *r;
    const int64_t *c;
    json_t *object;         /* built, or */
    struct json_text *text; /* written */
};

static void set_counter(void *ctx, int i)
{
    struct counter_sink *s = ctx;
    json_object_set_new(s->object, counter_names[i], counter_is_real(i) ? json_real(counter_real(s->r, i, s->c[i]))
                                                                          : json_integer(s->c[i]));
}

static void write_counter(void *ctx, int i)
{
    struct counter_sink *s = ctx;
    json_text_key(s->text, counter_names[i]);
    if (counter_is_real(i))
        json_text_real(s->text, counter_real(s->r, i, s->c[i]));
    else
        json_text_integer(s->text, s->c[i]);
}

static void add_counters(const struct io_report *r, json_t *o, const int64_t *c, bool all_of_module)
{
    struct counter_sink s = {.r = r, .c = c, .object = o};
    each_counter(c, all_of_module, set_counter, &s);
}

static void write_counters(const struct io_report *r, struct json_text *t, const int64_t *c, bool all_of_module)
{
    struct counter_sink s = {.r = r, .c = c, .text = t};
    each_counter(c, all_of_module, write_counter, &s);
}

void io_report_add(void *ctx, const struct io_image *img)
{
    struct io_report *r = ctx;
    /* Records of one path in one image (a race between threads) count as one. */
    for (uint32_t i = 0; i < img->count; i++) {
        const struct tally_io_record *rec = &img->records[i];
        struct io_file *f = file_of(r, rec->path);
        if (!f)
            continue;
        struct io_split *last = f->split_count ? &f->splits[f->split_count - 1] : NULL;
        if (!last || last->pid != img->header.pid || last->image != img->header.image) {
            last = VEC_PUSH(f->splits, f->split_count, f->split_cap);
            if (!last)
                continue;
            last->pid = img->header.pid;
            last->image = img->header.image;
        }
        merge(f->counter, rec->counter);
        merge(last->counter, rec->counter);
    }
}

/* ---- file names ---- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0. */
static size_t utf8_sequence(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (!n || (n == 2 && s[0] < 0xc2) || (n == 4 && s[0] > 0xf4))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    uint32_t cp = s[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++)
        cp = (cp << 6) | (s[i] & 0x3f);
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

json_t *io_path_json(const char *path)
{
    json_t *direct = json_string(path);
    if (direct)
        return direct;
    size_t len = strlen(path);
    char *out = malloc(4 * len + 1);
    if (!out)
        return json_string("");
    size_t k = 0;
    const unsigned char *s = (const unsigned char *)path;
    while (*s) {
        size_t n = utf8_sequence(s);
        if (n) {
            memcpy(out + k, s, n);
            k += n;
            s += n;
        } else {
            static const char hex[] = "0123456789abcdef";
            out[k++] = '\\';
            out[k++] = 'x';
            out[k++] = hex[*s >> 4];
            out[k++] = hex[*s & 15];
            s++;
        }
    }
    out[k] = '\0';
    json_t *j = json_string(out);
    free(out);
    return j ? j : json_string("");
}

/* ---- processes ---- */

static const char *ended_by(const struct tally_io_header *h)
{
    if (h->flags & TALLY_IO_SIGNALED)
        return "signal";
    if (h->flags & TALLY_IO_UNDERSCORE_EXIT)
        return "_exit";
    if (h->flags & TALLY_IO_ENDED)
        return "exit";
    if (h->flags & TALLY_IO_EXEC_PENDING)
        return "exec";
    return "unknown"; /* killed (SIGKILL) or a signal it could not catch */
}

/* A file name as io_path_json makes it (UTF-8, \xNN for other bytes). */
static void write_path(struct json_text *t, const char *path)
{
    json_t *j = io_path_json(path);
    json_text_value(t, j);
    json_decref(j);
}

/* One process image's entry of "processes", written as it is read: the
 * 1000-process loop has 2003, and building them as JSON values cost tally
 * more than its whole run otherwise. */
static void write_process(struct json_text *t, const struct io_report *r, const struct tally_io_header *h)
{
    json_text_open_object(t);
    json_text_key(t, "pid");
    json_text_integer(t, h->pid);
    json_text_key(t, "image");
    json_text_integer(t, h->image);
    json_text_key(t, "ppid");
    json_text_integer(t, h->ppid);
    json_text_key(t, "exe");
    write_path(t, h->exe);
    json_text_key(t, "forked");
    json_text_bool(t, (h->flags & TALLY_IO_FORKED) != 0);
    json_text_key(t, "start");
    json_text_real(t, (double)h->start_ns / 1e9 - r->start_epoch);
    json_text_key(t, "ended_by");
    json_text_string(t, ended_by(h));
    if (h->flags & TALLY_IO_ENDED) {
        json_text_key(t, "end");
        json_text_real(t, (double)h->end_ns / 1e9 - r->start_epoch);
        json_text_key(t, "cpu_time");
        json_text_real(t, (double)(h->utime_ns + h->stime_ns) / 1e9);
        json_text_key(t, "max_rss");
        json_text_real(t, (double)h->maxrss_kb * 1024 / BYTES_PER_MB);
    }
    if (h->flags & TALLY_IO_EXIT_CODE) {
        json_text_key(t, "exit_code");
        json_text_integer(t, h->exit_code);
    }
    if (h->flags & TALLY_IO_SIGNALED) {
        json_text_key(t, "signal");
        json_text_integer(t, h->signal);
    }
    if (h->flags & TALLY_IO_EXEC_PENDING) {
        json_text_key(t, "exec");
        write_path(t, h->exec_target);
    }
    json_text_key(t, "files");
    json_text_integer(t, (json_int_t)(h->records < TALLY_IO_CAPACITY ? h->records : TALLY_IO_CAPACITY));
    if (h->past_bound) {
        json_text_key(t, "past_bound");
        json_text_integer(t, (json_int_t)h->past_bound);
    }
    if (h->unseen_calls) {
        json_text_key(t, "unseen_calls");
        json_text_integer(t, (json_int_t)h->unseen_calls);
    }
    json_text_key(t, "other_fd_bytes_read");
    json_text_integer(t, (json_int_t)h->other_fd_bytes_read);
    json_text_key(t, "other_fd_bytes_written");
    json_text_integer(t, (json_int_t)h->other_fd_bytes_written);
    json_text_close_object(t);
}

static int by_header_pid(const void *key, const void *item)
{
    pid_t pid = *(const pid_t *)key;
    pid_t other = ((const struct io_image *)item)->header.pid;
    return (pid > other) - (pid < other);
}

/* Why the helper did not run in EXE. */
static const char *why_not_interposed(const char *exe)
{
    if (!*exe)
        return "its executable could not be read";
    int dynamic = elf_is_dynamic(exe);
    if (dynamic == 0)
        return "static binary";
    struct stat st;
    if (stat(exe, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
        return "setuid or setgid program (the loader ignores LD_PRELOAD)";
    if (dynamic < 0)
        return "not an ELF executable the helper can enter";
    return "started without the helper in its environment";
}

static bool listed(const json_t *list, pid_t pid)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
        if (json_integer_value(json_object_get(e, "pid")) == pid)
            return true;
    return false;
}

/* The processes whose last executable ran without the helper: those the
 * tracer saw running it so (at an exec or exit stop, or when it adopted
 * them), those a scan saw running an executable no region of theirs names, and those whose last
 * region ends in an exec that no later region followed (an image the helper
 * could not enter, however short its life). */
static json_t *not_interposed(const struct io_image_set *set, const struct task_result *result)
{
    json_t *list = json_array();
    /* A scan may see the task's first process before its exec, still
     * running tally's own image (the command then ran, and ended, between
     * two scans): that is not an executable the helper missed. */
    char self[4096] = "";
    if (proc_read_exe(getpid(), self, sizeof self) < 0)
        self[0] = '\0';
    for (size_t i = 0; i < result->executable_count; i++) {
        const struct task_executable *e = &result->executables[i];
        const struct io_image *hit =
            set->count ? bsearch(&e->pid, set->items, set->count, sizeof *set->items, by_header_pid) : NULL;
        if (hit && self[0] && !strcmp(e->path, self))
            continue; /* its regions say what it ran after the exec */
        bool found = false;
        if (e->without_helper) /* the tracer saw it: whatever its regions name */
            hit = NULL;
        if (hit) { /* images of one pid are adjacent */
            const struct io_image *first = hit, *end = set->items + set->count;
            while (first > set->items && first[-1].header.pid == e->pid)
                first--;
            for (const struct io_image *p = first; p < end && p->header.pid == e->pid; p++)
                if (!strcmp(p->header.exe, e->path))
                    found = true;
        }
        if (!found)
            json_array_append_new(list, json_pack("{s:I, s:o, s:s}", "pid", (json_int_t)e->pid, "exe",
                                                  io_path_json(e->path), "why", why_not_interposed(e->path)));
    }
    for (size_t i = 0; i < set->count; i++) {
        const struct tally_io_header *h = &set->items[i].header;
        bool last = i + 1 == set->count || set->items[i + 1].header.pid != h->pid;
        if (last && (h->flags & TALLY_IO_EXEC_PENDING) && !listed(list, h->pid))
            json_array_append_new(list, json_pack("{s:I, s:o, s:s}", "pid", (json_int_t)h->pid, "exe",
                                                  io_path_json(h->exec_target),
                                                  "why", why_not_interposed(h->exec_target)));
    }
    return list;
}

/* Processes with at least one region (images of one pid are adjacent). */
static size_t pids_interposed(const struct io_image_set *set)
{
    size_t n = 0;
    for (size_t i = 0; i < set->count; i++)
        if (i == 0 || set->items[i - 1].header.pid != set->items[i].header.pid)
            n++;
    return n;
}

/* ---- the reports ---- */

static int64_t file_bytes(const struct io_file *f)
{
    const int64_t *c = f->counter;
    return add(add(c[POSIX_BYTES_READ], c[POSIX_BYTES_WRITTEN]), add(c[STDIO_BYTES_READ], c[STDIO_BYTES_WRITTEN]));
}

static int by_bytes_then_path(const void *a, const void *b)
{
    const struct io_file *x = *(struct io_file *const *)a, *y = *(struct io_file *const *)b;
    int64_t bx = file_bytes(x), by = file_bytes(y);
    if (bx != by)
        return bx > by ? -1 : 1;
    return strcmp(x->path, y->path);
}

static struct io_file **sorted_files(const struct io_report *r)
{
    struct io_file **order = malloc((r->count + 1) * sizeof *order);
    if (!order)
        return NULL;
    for (size_t i = 0; i < r->count; i++)
        order[i] = &r->files[i];
    qsort(order, r->count, sizeof *order, by_bytes_then_path);
    return order;
}

struct io_totals {
    uint64_t past_bound, unseen, other_read, other_written;
    size_t incomplete_images;
};

static void totals_of(const struct io_image_set *set, struct io_totals *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < set->count; i++) {
        const struct tally_io_header *h = &set->items[i].header;
        t->past_bound += h->past_bound;
        t->unseen += h->unseen_calls;
        t->other_read += h->other_fd_bytes_read;
        t->other_written += h->other_fd_bytes_written;
        if (h->past_bound || h->unseen_calls)
            t->incomplete_images++;
    }
}

static json_t *incomplete_json(const struct io_image_set *set)
{
    struct io_totals t;
    totals_of(set, &t);
    if (!t.incomplete_images && !set->unreadable)
        return json_null();
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:s}", "processes", (json_int_t)t.incomplete_images,
                          "opens_past_bound", (json_int_t)t.past_bound, "unseen_calls", (json_int_t)t.unseen,
                          "unreadable_regions", (json_int_t)set->unreadable, "note",
                          "the counters of files past the bound of " "1024" " files per process are summed "
                          "in the file named " TALLY_IO_INCOMPLETE_NAME "; unseen_calls were made inside "
                          "a signal handler that interrupted the helper and were not counted");
    return o;
}

json_t *io_report_file_array(const struct io_report *r)
{
    json_t *files = json_array();
    struct io_file **order = sorted_files(r);
    for (size_t i = 0; order && i < r->count; i++) {
        const struct io_file *f = order[i];
        json_t *o = json_object();
        json_object_set_new(o, "path", io_path_json(f->path));
        add_counters(r, o, f->counter, true);
        json_t *procs = json_array();
        for (size_t k = 0; k < f->split_count; k++) {
            const struct io_split *sp = &f->splits[k];
            json_t *p = json_pack("{s:I, s:I}", "pid", (json_int_t)sp->pid, "image", (json_int_t)sp->image);
            add_counters(r, p, sp->counter, false);
            json_array_append_new(procs, p);
        }
        json_object_set_new(o, "processes", procs);
        json_array_append_new(files, o);
    }
    free(order);
    return files;
}

/* The same array as io_report_file_array's, written as it is walked: the
 * stat/open/close bench's 100 files built as JSON values (70 counters
 * each), written and freed cost tally more than the rest of its run. */
static void write_file_array(struct json_text *t, const struct io_report *r)
{
    json_text_open_array(t);
    struct io_file **order = sorted_files(r);
    for (size_t i = 0; order && i < r->count; i++) {
        const struct io_file *f = order[i];
        json_text_open_object(t);
        json_text_key(t, "path");
        write_path(t, f->path);
        write_counters(r, t, f->counter, true);
        json_text_key(t, "processes");
        json_text_open_array(t);
        for (size_t k = 0; k < f->split_count; k++) {
            const struct io_split *sp = &f->splits[k];
            json_text_open_object(t);
            json_text_key(t, "pid");
            json_text_integer(t, sp->pid);
            json_text_key(t, "image");
            json_text_integer(t, sp->image);
            write_counters(r, t, sp->counter, false);
            json_text_close_object(t);
        }
        json_text_close_array(t);
        json_text_close_object(t);
    }
    free(order);
    json_text_close_array(t);
}

json_t *io_report_files_head(const struct io_report *r, const struct io_image_set *set,
                             const struct task_result *result)
{
    return json_pack("{s:s, s:{s:I, s:I}, s:o, s:o}", "format", "tally-files-1", "bound", "files_per_process",
                     (json_int_t)TALLY_IO_CAPACITY, "bytes_per_process", (json_int_t)TALLY_IO_SIZE, "incomplete",
                     incomplete_json(set), "not_interposed", not_interposed(set, result));
}

json_t *io_report_files_json(const struct io_report *r, const struct io_image_set *set,
                             const struct task_result *result)
{
    json_t *doc = io_report_files_head(r, set, result);
    if (doc && json_object_set_new(doc, "files", io_report_file_array(r)) < 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

int io_report_files_write(FILE *f, const json_t *doc, const struct io_report *r, const struct io_image_set *set)
{
    struct json_text *t = json_text_open(f, 2, 16);
    if (!t)
        return -1;
    json_text_open_object(t);
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)doc, key, value) {
        if (strcmp(key, "files")) {
            json_text_key(t, key);
            json_text_value(t, value);
        }
    }
    /* the processes come before the files */
    json_text_key(t, "processes");
    json_text_open_array(t);
    for (size_t i = 0; i < set->count; i++)
        write_process(t, r, &set->items[i].header);
    json_text_close_array(t);
    json_text_key(t, "files");
    const json_t *files = json_object_get(doc, "files");
    if (files)
        json_text_value(t, files);
    else
        write_file_array(t, r);
    json_text_close_object(t);
    int rc = json_text_close(t);
    return fputc('\n', f) == EOF ? -1 : rc;
}

void io_report_totals(const struct io_report *r, int64_t c[TALLY_IO_COUNTER_COUNT])
{
    memset(c, 0, TALLY_IO_COUNTER_COUNT * sizeof *c);
    for (size_t i = 0; i < r->count; i++)
        merge(c, r->files[i].counter);
}

json_t *io_report_summary_json(const struct io_report *r, const struct io_image_set *set,
                               const struct task_result *result, const char *files_path)
{
    int64_t c[TALLY_IO_COUNTER_COUNT];
    io_report_totals(r, c);
    json_t *posix = json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f}", "opens", (json_int_t)c[POSIX_OPENS], "reads",
        (json_int_t)c[POSIX_READS], "writes", (json_int_t)c[POSIX_WRITES], "bytes_read",
        (json_int_t)c[POSIX_BYTES_READ], "bytes_written", (json_int_t)c[POSIX_BYTES_WRITTEN], "seeks",
        (json_int_t)c[POSIX_SEEKS], "stats", (json_int_t)c[POSIX_STATS], "fsyncs",
        (json_int_t)add(c[POSIX_FSYNCS], c[POSIX_FDSYNCS]), "read_time", (double)c[POSIX_F_READ_TIME] / 1e9,
        "write_time", (double)c[POSIX_F_WRITE_TIME] / 1e9, "meta_time", (double)c[POSIX_F_META_TIME] / 1e9);
    json_t *stdio = json_pack("{s:I, s:I, s:I, s:I, s:I}", "opens", (json_int_t)add(c[STDIO_OPENS], c[STDIO_FDOPENS]),
                              "reads", (json_int_t)c[STDIO_READS], "writes", (json_int_t)c[STDIO_WRITES],
                              "bytes_read", (json_int_t)c[STDIO_BYTES_READ], "bytes_written",
                              (json_int_t)c[STDIO_BYTES_WRITTEN]);
    struct io_totals t;
    totals_of(set, &t);
    json_t *top = json_array();
    struct io_file **order = sorted_files(r);
    for (size_t i = 0; order && i < r->count && i < TOP_FILES; i++) {
        const int64_t *fc = order[i]->counter;
        json_array_append_new(top, json_pack("{s:o, s:I, s:I}", "path", io_path_json(order[i]->path),
                                             "bytes_read", (json_int_t)add(fc[POSIX_BYTES_READ], fc[STDIO_BYTES_READ]),
                                             "bytes_written",
                                             (json_int_t)add(fc[POSIX_BYTES_WRITTEN], fc[STDIO_BYTES_WRITTEN])));
    }
    free(order);
    json_t *missing = not_interposed(set, result);
    return json_pack("{s:s, s:I, s:I, s:o, s:o, s:o, s:{s:I, s:I}, s:o, s:o}", "report", files_path,
                     "files", (json_int_t)r->count, "processes_interposed", (json_int_t)pids_interposed(set),
                     "not_interposed", missing, "posix", posix, "stdio", stdio, "other_descriptors",
                     "bytes_read", (json_int_t)t.other_read, "bytes_written", (json_int_t)t.other_written,
                     "top_files", top, "incomplete", incomplete_json(set));
}

size_t io_report_count(const struct io_report *r) { return r->count; }
const char *io_report_path(const struct io_report *r, size_t i) { return r->files[i].path; }
const int64_t *io_report_counters(const struct io_report *r, size_t i) { return r->files[i].counter; }
