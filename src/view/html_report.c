/* Splices style, data and script into the page template; see html_report.h. */
#include "view/html_report.h"

#include <string.h>

#include "view/view_data.h"
#include "view/web_assets.h"

static int write_data(const struct trace *t, const struct view_page_options *o, FILE *out)
{
    json_t *meta = view_meta_json(t, o);
    int rc = meta ? 0 : -1;
    fputs("<script type=\"application/json\" id=\"tally-meta\">", out);
    if (rc == 0)
        rc = view_json_dump(meta, 17, out);
    fputs("</script>\n", out);
    json_decref(meta);
    if (rc == 0 && !o->serve) {
        struct view_resolution res;
        view_resolution_choose(t, o, &res);
        fputs("<script type=\"application/json\" id=\"tally-signals\">", out);
        rc = res.coarse ? view_coarse_signals_write(t, &res, out) : view_signals_write(t, out);
        fputs("</script>\n", out);
    }
    return rc;
}

int html_report_write(const struct trace *t, const struct view_page_options *o, FILE *out)
{
    static const char *const style[] = {view_page_css, NULL};
    static const struct {
        const char *marker;
        const char *const *texts; /* NULL: the data */
    } parts[] = {
        {"<!--TALLY:CSS-->", style},
        {"<!--TALLY:DATA-->", NULL},
        {"<!--TALLY:JS-->", view_page_scripts},
    };
    const char *rest = view_page_html;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        const char *at = strstr(rest, parts[i].marker);
        if (!at)
            return -1;
        fwrite(rest, 1, (size_t)(at - rest), out);
        if (parts[i].texts)
            for (const char *const *text = parts[i].texts; *text; text++)
                fputs(*text, out);
        else if (write_data(t, o, out) < 0)
            return -1;
        rest = at + strlen(parts[i].marker);
    }
    fputs(rest, out);
    return ferror(out) ? -1 : 0;
}
