/* Reading a whole file into memory (see text_file.h). */
#include "util/text_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

char *text_file_read(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "re");
    if (!fp)
        return NULL;
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    int failed = mem ? 0 : ENOMEM;
    if (mem) {
        char chunk[65536];
        size_t got;
        errno = 0;
        while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0 && fwrite(chunk, 1, got, mem) == got)
            ;
        if (ferror(fp))
            failed = errno ? errno : EIO;
        else if (ferror(mem))
            failed = ENOMEM;
        if (fclose(mem) != 0 && !failed)
            failed = ENOMEM;
    }
    fclose(fp);
    if (failed || !text) {
        free(text);
        errno = failed ? failed : ENOMEM;
        return NULL;
    }
    if (len)
        *len = size;
    return text;
}
