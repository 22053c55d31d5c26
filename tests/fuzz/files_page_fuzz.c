/* Fuzzes the per-file I/O page (src/view/files_page.c, tally view --files):
 * the input is the report's JSON. Beyond no crash, leak or UB: a report the
 * check refuses has a reason; one it accepts is written as a page whose
 * embedded data cannot end its <script> element early (no "</" in it) and
 * which keeps the template's closing tag. The fuzz build leaves out
 * web_assets.c (its raw string literals are gcc-only), so the template is a
 * stand-in with the same marker. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/files_page.h"
#include "view/web_assets.h"

const char view_files_page_html[] = "<!DOCTYPE html><html><body><!--TALLY:DATA--><script>draw()</script></body></html>\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *report = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
    if (!report)
        return 0;
    char why[256] = "";
    if (files_page_check(report, why, sizeof why) < 0) {
        if (!why[0])
            abort();
        json_decref(report);
        return 0;
    }
    char *page = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&page, &len);
    if (!out)
        abort();
    if (files_page_write(report, "fuzz", out) < 0)
        abort();
    fclose(out);
    const char *data_at = strstr(page, "id=\"tally-files\">");
    const char *data_end = data_at ? strstr(data_at, "</script>") : NULL;
    if (!data_at || !data_end)
        abort();
    for (const char *p = data_at + 17; p < data_end; p++)
        if (p[0] == '<' && p[1] == '/')
            abort();
    if (!strstr(data_end, "</html>"))
        abort();
    free(page);
    json_decref(report);
    return 0;
}
