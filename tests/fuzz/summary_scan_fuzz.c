/* Fuzzes the archive's reader without a tree (src/archive/summary_scan.c)
 * against the jansson path it stands in for on ingest: whatever the bytes,
 * when summary_scan takes a document, jansson's json_loadb
 * (JSON_DISABLE_EOF_CHECK) takes it too, ends it at the same byte, and
 * summary_record_from_members gives the same row as summary_record_parse
 * (the same hash, packed document bytes, columns and numbers to the bit), or
 * the same error. What the scanner declines, jansson reads on ingest. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/ingest.h"
#include "archive/summary_scan.h"

static struct summary_members members;

static void free_members(void)
{
    summary_members_free(&members);
}

static int same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static void differ(const char *what, const uint8_t *data, size_t size)
{
    fprintf(stderr, "summary_scan_fuzz: %s differs from jansson's on: %.*s\n", what, (int)size,
            (const char *)data);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!members.capacity && !members.item_capacity)
        atexit(free_members);
    const char *text = (const char *)data;
    size_t used;
    if (summary_scan(text, size, &members, &used) != 1)
        return 0;
    json_error_t err;
    json_t *root = json_loadb(text, size, JSON_DISABLE_EOF_CHECK, &err);
    if (!root)
        differ("acceptance (jansson refuses it)", data, size);
    if ((size_t)err.position != used)
        differ("the document's end", data, size);
    struct ingest_options options = {0};
    struct summary_record a, b;
    char why_a[512] = "", why_b[512] = "";
    int ra = summary_record_parse(root, text, used, &options, &a, why_a, sizeof why_a);
    int rb = summary_record_from_members(&members, text, used, &options, &b, why_b, sizeof why_b);
    json_decref(root);
    if (ra != rb || strcmp(why_a, why_b))
        differ("the outcome", data, size);
    if (ra == 0) {
        if (memcmp(a.hash, b.hash, sizeof a.hash) || a.start_day != b.start_day)
            differ("the key", data, size);
        if (a.packed_len != b.packed_len || memcmp(a.packed, b.packed, a.packed_len))
            differ("the packed document", data, size);
        if (!same_text(a.name, b.name) || !same_text(a.category, b.category) ||
            !same_text(a.set, b.set) || !same_text(a.host, b.host) ||
            !same_text(a.command, b.command) || !same_text(a.exit_type, b.exit_type) ||
            !same_text(a.taskid, b.taskid) || !same_text(a.tool, b.tool) ||
            a.has_level != b.has_level || a.level != b.level ||
            a.has_exit_status != b.has_exit_status || a.exit_status != b.exit_status)
            differ("a column", data, size);
        for (size_t i = 0; i < MAX_SUMMARY_FIELDS; i++)
            if (a.present[i] != b.present[i] ||
                (a.present[i] && memcmp(&a.values[i], &b.values[i], sizeof a.values[i])))
                differ("a numeric field", data, size);
        summary_record_free(&a);
        summary_record_free(&b);
    }
    return 0;
}
