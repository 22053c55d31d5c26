/* The page writer: every marker of the template replaced, data in JSON
 * script elements, signals only in the offline report. */
#include <stdlib.h>

#include "test.h"
#include "trace/trace.h"
#include "view/html_report.h"

static char *render(const struct trace *t, bool serve)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    CHECK_INT(html_report_write(t, &(struct view_page_options){.title = "t<1>", .serve = serve}, mem), 0);
    fclose(mem);
    return text;
}

int main(void)
{
    struct trace t;
    trace_init(&t);
    int type = trace_add_type(&t, "root", -1);
    int host = trace_add_type(&t, "HOST", type);
    int root = trace_add_container(&t, "root", NULL, type, -1, 0);
    int h = trace_add_container(&t, "h", NULL, host, root, 0);
    int r = trace_resource_for(&t, h, "cpu");
    trace_signal_push(&t.resources[r].capacity, 0, 4);
    t.start = 0, t.end = 10;
    trace_finish(&t);

    char *offline = render(&t, false);
    CHECK(strstr(offline, "<!--TALLY:") == NULL);
    CHECK(strstr(offline, "<script type=\"application/json\" id=\"tally-meta\">{\"version\":1,") != NULL);
    CHECK(strstr(offline, "<script type=\"application/json\" id=\"tally-signals\">{\"resources\":[{\"c\":1,\"k\":0,\"cap\":[[0],[4]]") != NULL);
    CHECK(strstr(offline, "function squarify(") != NULL);
    CHECK(strstr(offline, "function drawTimeline(") != NULL);   /* the seven parts, in order */
    CHECK(strstr(offline, "function drawTimeline(") < strstr(offline, "function renderFindings("));
    CHECK(strstr(offline, "<svg id=\"timeline\"") != NULL);
    CHECK(strstr(offline, ".group-frame") != NULL);
    CHECK(strstr(offline, "\"serve\":false") != NULL);
    char *served = render(&t, true);
    CHECK(strstr(served, "tally-signals\">") == NULL);
    CHECK(strstr(served, "\"serve\":true") != NULL);
    CHECK(strlen(served) < strlen(offline));
    free(offline);
    free(served);
    trace_free(&t);
    return test_done();
}
