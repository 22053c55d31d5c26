#include "cli/archive_cli.h"
int archive_query_main(int argc, char **argv, const char *db) { (void)argc; (void)argv; (void)db; return 125; }
