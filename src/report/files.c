/* The files report (see files.h). */
#include "report/files.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomic_file.h"
#include "util/error.h"

int files_report_write(const char *path, const struct task_result *r)
{
    json_t *list = json_array();
    for (size_t i = 0; i < r->file_count; i++)
        json_array_append_new(list, json_string(r->files[i]));
    json_t *o = json_pack("{s:o, s:s}", "files", list, "source", "open file descriptors at samples and exits");
    char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(o);
    int rc = text ? atomic_write_file(path, text, strlen(text)) : -1;
    if (rc < 0)
        tally_error_errno("%s", path);
    free(text);
    return rc;
}
