#include "cli/archive_cli.h"
int archive_predict_main(int argc, char **argv, const char *db) { (void)argc; (void)argv; (void)db; return 125; }
