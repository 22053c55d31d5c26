/* The per-file I/O page (see files_page.h): the template of
 * web/files_page.html.inc with the report embedded as JSON. */
#include "view/files_page.h"

#include <string.h>

#include "view/view_data.h"
#include "view/web_assets.h"

#define FILES_FORMAT "tally-files-1"

int files_page_check(const json_t *report, char *why, size_t why_size)
{
    const char *format = json_string_value(json_object_get(report, "format"));
    if (!json_is_object(report) || !format || strcmp(format, FILES_FORMAT)) {
        snprintf(why, why_size, "not a level-3 files report (\"format\": \"%s\" expected; "
                 "tally run --level 3 -o PREFIX writes PREFIX.files.json)", FILES_FORMAT);
        return -1;
    }
    const json_t *files = json_object_get(report, "files");
    if (!json_is_array(files)) {
        snprintf(why, why_size, "\"files\" is not a list");
        return -1;
    }
    size_t i;
    const json_t *f;
    json_array_foreach(files, i, f) {
        if (!json_is_string(json_object_get(f, "path"))) {
            snprintf(why, why_size, "file %zu of \"files\" has no \"path\"", i + 1);
            return -1;
        }
    }
    return 0;
}

int files_page_write(const json_t *report, const char *title, FILE *out)
{
    static const char marker[] = "<!--TALLY:DATA-->";
    const char *at = strstr(view_files_page_html, marker);
    if (!at)
        return -1;
    fwrite(view_files_page_html, 1, (size_t)(at - view_files_page_html), out);
    json_t *meta = json_pack("{s:s}", "title", title);
    fputs("<script type=\"application/json\" id=\"tally-files-meta\">", out);
    int rc = meta ? view_json_dump(meta, 17, out) : -1;
    fputs("</script>\n<script type=\"application/json\" id=\"tally-files\">", out);
    if (rc == 0)
        rc = view_json_dump((json_t *)report, 17, out);
    fputs("</script>\n", out);
    json_decref(meta);
    fputs(at + strlen(marker), out);
    return rc < 0 || ferror(out) ? -1 : 0;
}
