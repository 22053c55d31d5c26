/* Fuzzes the request language (src/request/request_parse.c and
 * request_services.c): parse, check, format and free any bytes. Beyond "no
 * crash, no leak, no UB" it holds the documented contract: an error names a
 * column inside the text (or just past its end) and leaves the request
 * empty; a parsed request formats to a text that parses back to the same
 * canonical text and passes request_check exactly when the original did.
 * Self-contained (one file) so that the shared fuzz wiring builds it by glob. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "request/request.h"

static void check_error(const struct request *r, const struct request_error *err, size_t size)
{
    if (r->actions || r->action_count || r->conditional)
        abort(); /* an error leaves nothing to free */
    if (err->pos < 1 || (size_t)err->pos > size + 1 || strncmp(err->message, "column ", 7) != 0)
        abort();
}

static void exercise(const char *text, size_t size)
{
    struct request r;
    struct request_error err;
    if (request_parse_n(text, size, &r, &err) < 0) {
        check_error(&r, &err, size);
        return;
    }
    struct request_error check_err;
    int checked = request_check(&r, &check_err);
    if (checked < 0 && (check_err.pos < 1 || strncmp(check_err.message, "column ", 7) != 0))
        abort();
    if (checked == 0 && r.conditional && !strcmp(r.event.service, "timer") &&
        !(request_timer_period(&r.event) >= 0.01))
        abort();
    for (size_t i = 0; checked == 0 && i < r.action_count; i++) {
        if (!strcmp(r.actions[i].service, "proc_kill") &&
            request_signal(r.actions[i].arg_count > 1 ? &r.actions[i].args[1] : NULL) < 1)
            abort();
        if (!strcmp(r.actions[i].service, "proc_get_info") &&
            (request_info_flags(&r.actions[i]) == 0 ||
             (request_info_flags(&r.actions[i]) & ~(unsigned)PROC_INFO_KNOWN)))
            abort(); /* the documented flags: 0x1 to 0x200 (docs/requests.md) */
    }

    char *first = request_format(&r);
    if (!first)
        abort();
    struct request again;
    if (strlen(first) >
        REQUEST_MAX_BYTES) { /* brackets and escapes can grow a text near the limit */
        free(first);
        request_free(&r);
        return;
    }
    if (request_parse(first, &again, &err) < 0)
        abort(); /* the canonical text must parse */
    char *second = request_format(&again);
    if (!second || strcmp(first, second) != 0)
        abort();
    if ((request_check(&again, &check_err) == 0) != (checked == 0))
        abort();
    free(first);
    free(second);
    request_free(&again);
    request_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    exercise(text, size);                /* NUL bytes inside are errors */
    exercise(text, strnlen(text, size)); /* as a C string */
    free(text);
    return 0;
}
