/* The page's HTML template, style sheet and script, compiled into tally from
 * the files src/view/web/page*.inc (each file is one C raw string literal, so
 * the sources stay plain HTML/CSS/JS and make rebuilds them when they change). */
#ifndef TALLY_VIEW_WEB_ASSETS_H
#define TALLY_VIEW_WEB_ASSETS_H

extern const char view_page_html[]; /* with <!--TALLY:CSS-->, <!--TALLY:DATA-->, <!--TALLY:JS--> */
extern const char view_page_css[];
/* The per-file I/O page (files_page.c): style and script inline, <!--TALLY:DATA--> for the report. */
extern const char view_files_page_html[];
/* The script's parts, in the order they run (one shared function scope),
 * NULL-terminated: data, state and controls, treemap, topology, findings, main. */
extern const char *const view_page_scripts[];

#endif
