/* Embeds src/view/web/page.{html,css,js}.inc (raw string literals, a GNU C extension). */
#include "view/web_assets.h"

const char view_page_html[] =
#include "view/web/page.html.inc"
    ;

const char view_page_css[] =
#include "view/web/page.css.inc"
    ;

const char view_page_js[] =
#include "view/web/page.js.inc"
    ;
