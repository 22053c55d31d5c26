/* One OpenMetrics label, escaped (see metrics_label.h). */
#include "agent/metrics_label.h"

/* Each byte as is but \, " and newline, escaped. */
void metrics_label(FILE *out, const char *name, const char *value, bool comma)
{
    fprintf(out, "%s%s=\"", comma ? "," : "", name);
    for (const char *p = value; *p; p++) {
        if (*p == '\\' || *p == '"')
            fputc('\\', out), fputc(*p, out);
        else if (*p == '\n')
            fputs("\\n", out);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}
