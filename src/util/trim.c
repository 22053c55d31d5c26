/* trim_space (trim.h). */
#include "util/trim.h"

#include <ctype.h>
#include <string.h>

char *trim_space(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}
