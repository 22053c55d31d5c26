/* Embeds src/view/web/page*.inc (raw string literals, a GNU C extension). */
#include "view/web_assets.h"

#include <stddef.h>

const char view_page_html[] =
#include "view/web/page.html.inc"
    ;

const char view_files_page_html[] =
#include "view/web/files_page.html.inc"
    ;

const char view_page_css[] =
#include "view/web/page.css.inc"
    ;

static const char page_data_js[] =
#include "view/web/page_data.js.inc"
    ;
static const char page_state_js[] =
#include "view/web/page_state.js.inc"
    ;
static const char page_treemap_js[] =
#include "view/web/page_treemap.js.inc"
    ;
static const char page_topology_js[] =
#include "view/web/page_topology.js.inc"
    ;
static const char page_timeline_js[] =
#include "view/web/page_timeline.js.inc"
    ;
static const char page_findings_js[] =
#include "view/web/page_findings.js.inc"
    ;
static const char page_main_js[] =
#include "view/web/page_main.js.inc"
    ;

const char *const view_page_scripts[] = {page_data_js,     page_state_js,     page_treemap_js,
                                         page_topology_js, page_timeline_js,  page_findings_js,
                                         page_main_js,     NULL};
