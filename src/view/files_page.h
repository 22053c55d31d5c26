/* The per-file I/O page of a level-3 run (`tally view --files
 * PREFIX.files.json -o page.html`): the task's files in a table sortable by
 * any column (bytes moved first), the read and write size histograms
 * (Darshan's ten buckets) of the whole task or of the file chosen in the
 * table, the processes the helper reached and those it did not, and the
 * note when records went past the bound. One self-contained file. */
#ifndef TALLY_VIEW_FILES_PAGE_H
#define TALLY_VIEW_FILES_PAGE_H

#include <jansson.h>
#include <stdio.h>

/* 0 when report is a files report tally can draw ("format": "tally-files-1",
 * "files" an array of objects each with a "path"); else -1 and why. */
int files_page_check(const json_t *report, char *why, size_t why_size);
/* Writes the page; -1 when the output fails. */
int files_page_write(const json_t *report, const char *title, FILE *out);

#endif
