/* Shared between the 'tally archive' subcommand files (archive_*.c): their
 * entry points and the helpers every one of them uses. */
#ifndef TALLY_CLI_ARCHIVE_CLI_H
#define TALLY_CLI_ARCHIVE_CLI_H

#include "archive/store.h"

int archive_add_main(int argc, char **argv, const char *db);
int archive_query_main(int argc, char **argv, const char *db);
int archive_stats_main(int argc, char **argv, const char *db);
int archive_predict_main(int argc, char **argv, const char *db);
int archive_outliers_main(int argc, char **argv, const char *db);

/* Opens the archive at db (NULL: $TALLY_DB or the default file), reporting
 * a failure as "tally: archive: LOCATION: why". */
struct store *archive_open(const char *db);

enum output_format { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON };
/* "table", "csv", "json" → format; -1 and a message otherwise. */
int archive_parse_format(const char *text, enum output_format *format);

#endif
