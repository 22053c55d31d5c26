/* The screen of `tally top` (see top_render.h): per-host totals computed from
 * the process rows, both sorted by the chosen column (ties broken by host and
 * pid, so the screen does not jitter between refreshes), fixed-width columns,
 * lines cut to the terminal's width at a UTF-8 boundary, control characters
 * of commands and host names replaced so that a process cannot send escape
 * sequences to the viewer's terminal. The CONTRACT column and the hosts'
 * VIOL counts appear only when some process has a contract level, the REC
 * column only when some process is instrumented. */
#include "view/top_render.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char *const column_names[TOP_COLUMN_COUNT] = {
    [TOP_HOST] = "host",  [TOP_PID] = "pid",         [TOP_STATE] = "state", [TOP_CPU] = "cpu",
    [TOP_MEMORY] = "mem", [TOP_READ] = "read",       [TOP_WRITE] = "write", [TOP_RECV] = "recv",
    [TOP_SENT] = "sent",  [TOP_COMMAND] = "command", [TOP_LEVEL] = "level",
};

int top_column_parse(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < TOP_COLUMN_COUNT; i++)
        if (!strcasecmp(name, column_names[i]))
            return i;
    if (!strcasecmp(name, "memory"))
        return TOP_MEMORY;
    if (!strcasecmp(name, "received"))
        return TOP_RECV;
    return -1;
}

const char *top_column_name(enum top_column column)
{
    return column >= 0 && column < TOP_COLUMN_COUNT ? column_names[column] : "?";
}

void top_format_bytes(double bytes, char *buf, size_t size)
{
    static const char units[] = "KMGTPE";
    if (isnan(bytes)) {
        snprintf(buf, size, "-");
        return;
    }
    if (bytes < 1024) {
        snprintf(buf, size, "%.0fB", bytes < 0 ? 0 : bytes);
        return;
    }
    int unit = -1;
    while (bytes >= 1024 && unit < (int)sizeof units - 2) {
        bytes /= 1024;
        unit++;
    }
    /* 1023.95 would print as "1024.0K": move it up one unit */
    if (bytes >= 1023.95 && unit < (int)sizeof units - 2) {
        bytes /= 1024;
        unit++;
    }
    snprintf(buf, size, "%.1f%c", bytes, units[unit]);
}

/* ---- hosts ---- */

bool top_row_violating(const struct top_row *row)
{
    return row->has_contract && !isnan(row->contract_threshold) &&
           row->contract_level >= row->contract_threshold;
}

struct host_total {
    const char *host;
    size_t processes;
    double cpu, memory_mb, read, write, recv, sent;
    size_t violating;
};

/* Adds value into *sum, where NaN means unknown: unknown + x = x. */
static void add_known(double *sum, double value)
{
    if (isnan(value))
        return;
    *sum = isnan(*sum) ? value : *sum + value;
}

static const char *host_of(const struct top_row *row)
{
    return row->host ? row->host : "?";
}

static struct host_total *host_totals(const struct top_snapshot *s, size_t *count)
{
    struct host_total *hosts = calloc(s->row_count ? s->row_count : 1, sizeof *hosts);
    if (!hosts)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < s->row_count; i++) {
        const struct top_row *row = &s->rows[i];
        size_t h = 0;
        while (h < n && strcmp(hosts[h].host, host_of(row)) != 0)
            h++;
        if (h == n) {
            hosts[n++] = (struct host_total){host_of(row), 0, NAN, NAN, NAN, NAN, NAN, NAN, 0};
        }
        struct host_total *t = &hosts[h];
        t->processes++;
        add_known(&t->cpu, row->cpu_percent);
        if (row->ended_percent > 0)
            add_known(&t->cpu, row->ended_percent);
        add_known(&t->memory_mb, row->memory_mb);
        add_known(&t->read, row->read_bytes_per_s);
        add_known(&t->write, row->write_bytes_per_s);
        add_known(&t->recv, row->recv_bytes_per_s);
        add_known(&t->sent, row->sent_bytes_per_s);
        t->violating += top_row_violating(row);
    }
    *count = n;
    return hosts;
}

/* ---- sorting ---- */

/* Natural order: quantities largest first, names and pids ascending; NaN
 * always last; reverse flips the order of known values. */
static int compare_numbers(double a, double b, bool largest_first, bool reverse)
{
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    int c = (a > b) - (a < b);
    if (largest_first)
        c = -c;
    return reverse ? -c : c;
}

static int compare_text(const char *a, const char *b, bool reverse)
{
    int c = strcmp(a ? a : "", b ? b : "");
    c = (c > 0) - (c < 0);
    return reverse ? -c : c;
}

static double row_quantity(const struct top_row *row, enum top_column column)
{
    switch (column) {
    case TOP_CPU: return row->cpu_percent;
    case TOP_MEMORY: return row->memory_mb;
    case TOP_READ: return row->read_bytes_per_s;
    case TOP_WRITE: return row->write_bytes_per_s;
    case TOP_RECV: return row->recv_bytes_per_s;
    case TOP_SENT: return row->sent_bytes_per_s;
    case TOP_LEVEL: return row->has_contract ? row->contract_level : NAN;
    default: return NAN;
    }
}

static int compare_rows(const void *pa, const void *pb, void *arg)
{
    const struct top_row *a = *(const struct top_row *const *)pa,
                         *b = *(const struct top_row *const *)pb;
    const struct top_options *o = arg;
    int c = 0;
    switch (o->sort) {
    case TOP_HOST: c = compare_text(host_of(a), host_of(b), o->reverse); break;
    case TOP_PID: c = compare_numbers(a->pid, b->pid, false, o->reverse); break;
    case TOP_STATE:
        c = compare_numbers((unsigned char)a->state, (unsigned char)b->state, false, o->reverse);
        break;
    case TOP_COMMAND: c = compare_text(a->command, b->command, o->reverse); break;
    default:
        c = compare_numbers(row_quantity(a, o->sort), row_quantity(b, o->sort), true, o->reverse);
        break;
    }
    if (c == 0)
        c = compare_text(host_of(a), host_of(b), false);
    if (c == 0)
        c = (a->pid > b->pid) - (a->pid < b->pid);
    return c;
}

static double host_quantity(const struct host_total *h, enum top_column column)
{
    switch (column) {
    case TOP_CPU: return h->cpu;
    case TOP_MEMORY: return h->memory_mb;
    case TOP_READ: return h->read;
    case TOP_WRITE: return h->write;
    case TOP_RECV: return h->recv;
    case TOP_SENT: return h->sent;
    case TOP_PID: return (double)h->processes; /* hosts have no pid: by number of processes */
    case TOP_LEVEL: return (double)h->violating;
    default: return NAN;
    }
}

static int compare_hosts(const void *pa, const void *pb, void *arg)
{
    const struct host_total *a = pa, *b = pb;
    const struct top_options *o = arg;
    int c = 0;
    if (!isnan(host_quantity(a, o->sort)) || !isnan(host_quantity(b, o->sort)))
        c = compare_numbers(host_quantity(a, o->sort), host_quantity(b, o->sort), true, o->reverse);
    else if (o->sort == TOP_HOST)
        c = compare_text(a->host, b->host, o->reverse);
    return c ? c : compare_text(a->host, b->host, false);
}

/* ---- lines ---- */

struct screen {
    FILE *out;
    int width, height, lines;
    int host_width; /* the longest host name, between 4 and HOST_MAX_WIDTH */
    bool color;     /* the highlight's escape sequences allowed */
    bool highlight; /* the line being built is drawn highlighted */
    char line[4096];
    size_t len;
};

/* Appends text to the line being built, control characters replaced. */
static void put(struct screen *s, const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c && s->len + 1 < sizeof s->line;
         c++)
        s->line[s->len++] = (*c < 0x20 || *c == 0x7f) ? '?' : (char)*c;
}

__attribute__((format(printf, 2, 3))) static void putf(struct screen *s, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put(s, buf);
}

/* Ends the line: cut to the width (at a UTF-8 boundary), trailing blanks
 * removed; nothing is written past the height. */
static void end_line(struct screen *s)
{
    size_t len = s->len;
    if (s->width > 0 && len > (size_t)s->width) {
        len = s->width;
        while (len > 0 && ((unsigned char)s->line[len] & 0xc0) == 0x80)
            len--; /* do not split a UTF-8 sequence */
    }
    while (len > 0 && s->line[len - 1] == ' ')
        len--;
    if (s->lines < s->height) {
        bool colored = s->color && s->highlight;
        fputs(colored ? "\033[1;31m" : "", s->out);
        fwrite(s->line, 1, len, s->out);
        fputs(colored ? "\033[0m\n" : "\n", s->out);
        s->lines++;
    }
    s->len = 0;
    s->highlight = false;
}

static int lines_left(const struct screen *s)
{
    return s->height - s->lines;
}

#define HOST_MAX_WIDTH 20

/* Host names longer than their column (at most 20) are cut. */
static void put_host(struct screen *s, const char *host)
{
    putf(s, "%-*.*s", s->host_width, s->host_width, host);
}

static void put_quantities(struct screen *s, double cpu, double memory_mb, double read,
                           double write, double recv, double sent)
{
    char mem[16], r[16], w[16], rx[16], tx[16];
    top_format_bytes(memory_mb * 1048576.0, mem, sizeof mem);
    top_format_bytes(read, r, sizeof r);
    top_format_bytes(write, w, sizeof w);
    top_format_bytes(recv, rx, sizeof rx);
    top_format_bytes(sent, tx, sizeof tx);
    if (isnan(cpu))
        putf(s, " %6s", "-");
    else
        putf(s, " %6.1f", cpu);
    putf(s, " %7s %8s %8s %8s %8s", mem, r, w, rx, tx);
}

#define WORST_WIDTH 21 /* "execution communicate" */

/* The CONTRACT cell: "1.00! intrinsic compute", "0.12  intrinsic compute" or "-". */
static void put_contract(struct screen *s, const struct top_row *row)
{
    if (!row->has_contract) {
        putf(s, " %-*s", 6 + WORST_WIDTH, "-");
        return;
    }
    char worst[64] = "";
    if (row->contract_dimension)
        snprintf(worst, sizeof worst, "%s%s%s", row->contract_space ? row->contract_space : "",
                 row->contract_space ? " " : "", row->contract_dimension);
    putf(s, " %4.2f%c %-*.*s", row->contract_level, top_row_violating(row) ? '!' : ' ', WORST_WIDTH,
         WORST_WIDTH, worst);
    s->highlight = top_row_violating(row);
}

static size_t count_violating(const struct top_snapshot *snap, bool *any_level)
{
    size_t n = 0;
    *any_level = false;
    for (size_t i = 0; i < snap->row_count; i++) {
        *any_level |= snap->rows[i].has_contract;
        n += top_row_violating(&snap->rows[i]);
    }
    return n;
}

#define RECORDING_WIDTH 11

static bool any_instrumented(const struct top_snapshot *snap)
{
    for (size_t i = 0; i < snap->row_count; i++)
        if (snap->rows[i].recording[0])
            return true;
    return false;
}

static bool any_ended(const struct top_snapshot *snap)
{
    for (size_t i = 0; i < snap->row_count; i++)
        if (snap->rows[i].ended_percent > 0)
            return true;
    return false;
}

static void put_title(struct screen *s, const struct top_snapshot *snap, size_t hosts,
                      const struct top_options *o)
{
    char clock[16] = "--:--:--";
    time_t t = (time_t)snap->time;
    struct tm tm;
    if (isfinite(snap->time) && gmtime_r(&t, &tm))
        strftime(clock, sizeof clock, "%H:%M:%S", &tm);
    put(s, "tally top - ");
    if (snap->app) {
        put(s, "app ");
        put(s, snap->app);
    } else {
        put(s, "all applications");
    }
    putf(s, " - %s UTC - %zu process%s on %zu host%s - sorted by %s%s", clock, snap->row_count,
         snap->row_count == 1 ? "" : "es", hosts, hosts == 1 ? "" : "s", top_column_name(o->sort),
         o->reverse ? " (reversed)" : "");
    bool contract;
    size_t violating = count_violating(snap, &contract);
    if (contract)
        putf(s, " - %zu violating", violating);
    end_line(s);
}

char *top_render(const struct top_snapshot *snap, const struct top_options *options)
{
    struct top_options o = *options;
    if (o.sort < 0 || o.sort >= TOP_COLUMN_COUNT)
        o.sort = TOP_CPU;
    size_t host_count = 0;
    struct host_total *hosts = host_totals(snap, &host_count);
    const struct top_row **rows = malloc((snap->row_count ? snap->row_count : 1) * sizeof *rows);
    char *text = NULL;
    size_t text_len = 0;
    struct screen s = {.width = o.width, .height = o.height > 0 ? o.height : 0, .color = o.color};
    bool contract, recording = any_instrumented(snap), ended = o.ended_column || any_ended(snap);
    count_violating(snap, &contract);
    s.out = hosts && rows ? open_memstream(&text, &text_len) : NULL;
    if (!s.out) {
        free(hosts);
        free(rows);
        return NULL;
    }
    s.host_width = 4;
    for (size_t i = 0; i < snap->row_count; i++) {
        rows[i] = &snap->rows[i];
        size_t len = strlen(host_of(rows[i]));
        if (len > (size_t)s.host_width)
            s.host_width = len > HOST_MAX_WIDTH ? HOST_MAX_WIDTH : (int)len;
    }
    qsort_r(rows, snap->row_count, sizeof *rows, compare_rows, &o);
    qsort_r(hosts, host_count, sizeof *hosts, compare_hosts, &o);

    put_title(&s, snap, host_count, &o);
    putf(&s, "%-*s %6s %6s %7s %8s %8s %8s %8s", s.host_width, "HOST", "PROCS", "CPU%", "MEM",
         "READ/s", "WRITE/s", "RECV/s", "SENT/s");
    if (contract)
        putf(&s, " %5s", "VIOL");
    end_line(&s);
    for (size_t i = 0; i < host_count; i++) {
        if (lines_left(&s) == 1 && i + 1 < host_count) {
            putf(&s, "... %zu more hosts", host_count - i);
            end_line(&s);
            break;
        }
        put_host(&s, hosts[i].host);
        putf(&s, " %6zu", hosts[i].processes);
        put_quantities(&s, hosts[i].cpu, hosts[i].memory_mb, hosts[i].read, hosts[i].write,
                       hosts[i].recv, hosts[i].sent);
        if (contract)
            putf(&s, " %5zu", hosts[i].violating);
        s.highlight = hosts[i].violating > 0;
        end_line(&s);
    }
    end_line(&s); /* blank */
    putf(&s, "%-*s %7s %c %6s %7s %8s %8s %8s %8s", s.host_width, "HOST", "PID", 'S', "CPU%",
         "MEM", "READ/s", "WRITE/s", "RECV/s", "SENT/s");
    if (ended)
        putf(&s, " %6s", "ENDED%");
    if (contract)
        putf(&s, " %-*s", 6 + WORST_WIDTH, "CONTRACT");
    if (recording)
        putf(&s, " %-*s", RECORDING_WIDTH, "REC");
    put(&s, " COMMAND");
    end_line(&s);
    for (size_t i = 0; i < snap->row_count; i++) {
        if (lines_left(&s) == 1 && i + 1 < snap->row_count) {
            putf(&s, "... %zu more processes", snap->row_count - i);
            end_line(&s);
            break;
        }
        const struct top_row *row = rows[i];
        put_host(&s, host_of(row));
        putf(&s, " %7d %c", (int)row->pid, row->state ? row->state : '?');
        put_quantities(&s, row->cpu_percent, row->memory_mb, row->read_bytes_per_s,
                       row->write_bytes_per_s, row->recv_bytes_per_s, row->sent_bytes_per_s);
        if (ended && row->ended_percent > 0)
            putf(&s, " %6.1f", row->ended_percent);
        else if (ended)
            putf(&s, " %6s", "-");
        if (contract)
            put_contract(&s, row);
        if (recording)
            putf(&s, " %-*.*s", RECORDING_WIDTH, RECORDING_WIDTH, row->recording[0] ? row->recording : "-");
        put(&s, " ");
        put(&s, row->command ? row->command : "");
        end_line(&s);
    }
    free(hosts);
    free(rows);
    if (fclose(s.out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
