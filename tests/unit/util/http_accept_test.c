/* Unit tests for Accept negotiation (src/util/http_accept.c): the headers
 * Prometheus 2.42, older Prometheus 2.x, curl and promtool send, and the
 * corner cases of the grammar (spaces, quoted versions, case, bad q). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "util/http_accept.h"

#define OM "application/openmetrics-text"
#define TEXT "text/plain"

int main(void)
{
    /* Prometheus 2.42 (Debian 12): OpenMetrics 1.0.0 first. */
    const char *prom242 = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                          "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
    CHECK_NEAR(http_accept_quality(prom242, OM, "1.0.0"), 1, 1e-9);
    CHECK_NEAR(http_accept_quality(prom242, OM, "0.0.1"), 0.75, 1e-9);
    CHECK_NEAR(http_accept_quality(prom242, TEXT, "0.0.4"), 0.5, 1e-9);
    CHECK_NEAR(http_accept_quality(prom242, "application/json", NULL), 0.1, 1e-9);
    /* Older Prometheus 2.x: only OpenMetrics 0.0.1, so 1.0.0 gets the
     * wildcard's 0.1, below the text format's 0.5. */
    const char *prom_old = "application/openmetrics-text; version=0.0.1,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
    CHECK_NEAR(http_accept_quality(prom_old, OM, "1.0.0"), 0.1, 1e-9);
    CHECK_NEAR(http_accept_quality(prom_old, OM, "0.0.1"), 1, 1e-9);
    CHECK_NEAR(http_accept_quality(prom_old, TEXT, "0.0.4"), 0.5, 1e-9);
    /* curl, promtool */
    CHECK_NEAR(http_accept_quality("*/*", OM, "1.0.0"), 1, 1e-9);
    CHECK_NEAR(http_accept_quality(NULL, TEXT, "0.0.4"), 1, 1e-9);
    CHECK_NEAR(http_accept_quality("", TEXT, "0.0.4"), 1, 1e-9);
    /* the most specific range wins over a wildcard with a higher q */
    CHECK_NEAR(http_accept_quality("text/*;q=0.9, text/plain;q=0.2", TEXT, "0.0.4"), 0.2, 1e-9);
    CHECK_NEAR(http_accept_quality("text/*;q=0.9, text/html", TEXT, "0.0.4"), 0.9, 1e-9);
    CHECK_NEAR(http_accept_quality("text/html", TEXT, NULL), 0, 1e-9);
    /* refused outright */
    CHECK_NEAR(http_accept_quality("application/openmetrics-text;q=0,text/plain", OM, "1.0.0"), 0, 1e-9);
    /* spaces, case, quoted values */
    CHECK_NEAR(http_accept_quality(" Application/OpenMetrics-Text ; Version=\"1.0.0\" ; Q=0.3 ", OM, "1.0.0"),
               0.3, 1e-9);
    /* a q that cannot be read: 1; out of range: clamped */
    CHECK_NEAR(http_accept_quality("text/plain;q=abc", TEXT, NULL), 1, 1e-9);
    CHECK_NEAR(http_accept_quality("text/plain;q=7", TEXT, NULL), 1, 1e-9);
    CHECK_NEAR(http_accept_quality("text/plain;q=-1", TEXT, NULL), 0, 1e-9);
    /* empty ranges, stray separators */
    CHECK_NEAR(http_accept_quality(",,;;,text/plain;;q=0.4;,", TEXT, NULL), 0.4, 1e-9);
    CHECK_NEAR(http_accept_quality("text/plain;version", TEXT, "0.0.4"), 1, 1e-9);
    return test_done();
}
