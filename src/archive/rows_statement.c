/* One statement for many rows (see rows_statement.h). */
#include "archive/rows_statement.h"

#include "util/text_builder.h"

char *rows_statement(const char *head, const char *row, size_t nrows, const char *tail,
                     char *why, size_t why_size)
{
    struct text_builder b;
    if (text_builder_open(&b, why, why_size) < 0)
        return NULL;
    fputs(head, b.out);
    for (size_t r = 0; r < nrows; r++) {
        fputs(r ? ", (" : " (", b.out);
        for (const char *p = row; *p; p++)
            if (*p == '#')
                fprintf(b.out, "%zu", r);
            else
                fputc(*p, b.out);
        fputc(')', b.out);
    }
    fputs(tail, b.out);
    return text_builder_finish(&b, why, why_size);
}
