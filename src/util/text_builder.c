/* Text built in memory with one check at the end (see text_builder.h). */
#include "util/text_builder.h"

#include <stdlib.h>

int text_builder_open(struct text_builder *b, char *why, size_t why_size)
{
    b->text = NULL;
    b->len = 0;
    b->out = open_memstream(&b->text, &b->len);
    if (!b->out) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    return 0;
}

char *text_builder_finish(struct text_builder *b, char *why, size_t why_size)
{
    int failed = ferror(b->out);
    if (fclose(b->out) != 0 || failed || !b->text) {
        free(b->text);
        b->text = NULL;
        snprintf(why, why_size, "out of memory");
    }
    b->out = NULL;
    return b->text;
}
