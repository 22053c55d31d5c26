/* The view's default choices: cpu first, the finest level holding the kind. */
#include "test.h"
#include "trace/trace.h"
#include "view/choices.h"

int main(void)
{
    struct trace t;
    trace_init(&t);
    int root_type = trace_add_type(&t, "root", -1);
    int site = trace_add_type(&t, "SITE", root_type);
    int host = trace_add_type(&t, "HOST", site);
    int link = trace_add_type(&t, "LINK", root_type);
    int root = trace_add_container(&t, "root", NULL, root_type, -1, 0);
    int s1 = trace_add_container(&t, "s1", NULL, site, root, 0);
    int l1 = trace_add_container(&t, "l1", NULL, link, root, 0);
    trace_resource_for(&t, l1, "bandwidth");
    CHECK_STR(view_default_kind(&t), "bandwidth"); /* no cpu yet: the first kind */
    trace_resource_for(&t, trace_add_container(&t, "h1", NULL, host, s1, 0), "cpu");
    trace_resource_for(&t, trace_add_container(&t, "h2", NULL, host, s1, 0), "cpu");
    trace_resource_for(&t, s1, "cpu"); /* one site-wide resource: hosts still hold most */
    CHECK_STR(view_default_kind(&t), "cpu");
    CHECK_STR(view_leaf_level(&t, "cpu"), "HOST");
    CHECK_STR(view_leaf_level(&t, "bandwidth"), "LINK");
    CHECK_STR(view_leaf_level(&t, "gpu"), "root");
    CHECK(view_has_kind(&t, "cpu"));
    CHECK(!view_has_kind(&t, "gpu"));
    CHECK(!view_has_kind(&t, NULL));
    trace_free(&t);

    struct trace empty;
    trace_init(&empty);
    CHECK(view_default_kind(&empty) == NULL);
    CHECK_STR(view_leaf_level(&empty, NULL), "root");
    trace_free(&empty);
    return test_done();
}
