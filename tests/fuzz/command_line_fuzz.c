/* Fuzzes command_line_split (src/util/command_line.c), which reads a
 * command's words back from the line tally writes. Whatever it accepts must
 * quote back (command_line_quote) to one line of UTF-8 that splits to the
 * same words; on error a reason must be written. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "util/command_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    char **words = NULL;
    char why[128] = "";
    int n = command_line_split(text, &words, why, sizeof why);
    if (n < 0) {
        if (!why[0])
            abort();
        free(text);
        return 0;
    }
    char *line = command_line_quote(words);
    if (!line || strchr(line, '\n') || !command_line_is_utf8(line))
        abort();
    char **again = NULL;
    if (command_line_split(line, &again, why, sizeof why) != n)
        abort();
    for (int i = 0; i < n; i++)
        if (strcmp(words[i], again[i]) != 0)
            abort();
    command_line_free(again);
    command_line_free(words);
    free(line);
    free(text);
    return 0;
}
