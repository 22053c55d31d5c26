/* Fuzzes the counter and conditional-request registry (src/request/csr.c):
 * the input is a script, one command per line -
 *     REQUEST          parsed and checked; a conditional one is defined
 *                      (enabled when the line's length is even), an
 *                      unconditional one is run
 *     !K PID HOST APP NAME LEN   an event occurrence of kind K (0..6)
 *     @T               timers run at time T
 *     #                the increment-only csrs folded in as batches
 * and the report callback re-enters the registry (defines a csr, deletes
 * and disables others) on some dispatched actions, to exercise deletion
 * while actions run. Beyond "no crash, no leak, no UB" it checks that every
 * report is well formed and the counts stay within their bounds.
 * Self-contained (one file) so that the shared fuzz wiring builds it by glob. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/csr.h"

#define MAX_LINES 200

struct script {
    struct csr_registry *registry;
    int depth;
};

static void on_report(void *context, const struct csr_report *r)
{
    struct script *s = context;
    if (r->kind < CSR_REPORT_DISPATCH || r->kind > CSR_REPORT_ERROR || !r->action)
        abort();
    if (r->kind == CSR_REPORT_ERROR && (!r->error || !r->error[0]))
        abort();
    if (r->kind == CSR_REPORT_DISPATCH) {
        int kind = service_kind_of(r->action->service);
        if (kind != SERVICE_INFORMATION && kind != SERVICE_MANIPULATION)
            abort();
    }
    if (r->kind != CSR_REPORT_DISPATCH || s->depth > 2)
        return;
    /* re-enter: define one csr, delete the one that fired and disable csr_1 */
    s->depth++;
    struct request q;
    struct request_error err;
    if (request_parse("proc_terminated(p_1): app_get_list(), csr_disable(csr_1)", &q, &err) < 0)
        abort();
    unsigned number = 0;
    if (csr_define(s->registry, &q, true, 0, &number, &err) < 0)
        request_free(&q);
    if (r->csr)
        csr_delete(s->registry, r->csr);
    csr_disable(s->registry, 1);
    s->depth--;
}

static void run_line(struct script *s, char *line, size_t len)
{
    double now = 0;
    if (line[0] == '!') {
        int kind = 0, pid = 0;
        double amount = 0;
        char host[32] = "", app[32] = "", name[32] = "";
        sscanf(line + 1, "%d %d %31s %31s %31s %lf", &kind, &pid, host, app, name, &amount);
        pid_t ancestors[2] = {1, (pid_t)(pid / 2)};
        struct event_occurrence ev = {.kind = (enum event_kind)((unsigned)kind % 7),
                                      .pid = pid,
                                      .host = host[0] ? host : NULL,
                                      .app = app[0] ? app : NULL,
                                      .site = "s",
                                      .ancestors = ancestors,
                                      .ancestor_count = 2,
                                      .name = name[0] ? name : NULL,
                                      .len = amount,
                                      .value = amount};
        csr_event(s->registry, &ev, now, on_report, s);
        return;
    }
    if (line[0] == '@') {
        double t = strtod(line + 1, NULL);
        if (!isfinite(t))
            t = 0;
        csr_timers_run(s->registry, t, on_report, s);
        double due;
        if (csr_next_timer(s->registry, &due) && !isfinite(due))
            abort();
        return;
    }
    if (line[0] == '#') {
        struct csr_pushdown out[8];
        size_t n = csr_pushdowns(s->registry, out, 8);
        for (size_t i = 0; i < n && i < 8; i++) {
            if (!out[i].name || !out[i].scope)
                abort();
            unsigned number = out[i].csr;
            csr_apply_batch(s->registry, number, 3, 30, 3, on_report, s);
        }
        return;
    }
    struct request r;
    struct request_error err;
    if (request_parse_n(line, len, &r, &err) < 0)
        return;
    if (request_check(&r, &err) == 0) {
        if (r.conditional) {
            unsigned number = 0;
            if (csr_define(s->registry, &r, len % 2 == 0, now, &number, &err) == 0 &&
                (number == 0 || !csr_request(s->registry, number)))
                abort();
        } else {
            csr_run(s->registry, &r, now, on_report, s);
        }
    }
    request_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    struct script s = {csr_registry_new(), 0};
    if (!s.registry)
        abort();
    char *line = text;
    for (int n = 0; n < MAX_LINES && line < text + size; n++) {
        char *end = memchr(line, '\n', text + size - line);
        size_t len = end ? (size_t)(end - line) : (size_t)(text + size - line);
        line[len] = '\0';
        run_line(&s, line, len);
        line += len + 1;
    }
    if (counter_count(s.registry) > CSR_MAX_COUNTERS || csr_count(s.registry) > CSR_MAX_CSRS)
        abort();
    csr_registry_free(s.registry);
    free(text);
    return 0;
}
