/* Pids read from text, refused outside (0, max]: see pid_text.h. */
#include "util/pid_text.h"

bool pid_in_range(long long value, long long max)
{
    return value > 0 && value <= max && value <= PID_KERNEL_LIMIT;
}

int pid_parse_span(const char *text, size_t len, long long max, pid_t *out)
{
    if (len == 0)
        return -1;
    if (max > PID_KERNEL_LIMIT)
        max = PID_KERNEL_LIMIT;
    long long value = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        value = value * 10 + (text[i] - '0');
        if (value > max) /* stops long before any overflow */
            return -1;
    }
    if (!pid_in_range(value, max))
        return -1;
    *out = (pid_t)value;
    return 0;
}

int pid_parse(const char *text, const char **end, long long max, pid_t *out)
{
    size_t len = 0;
    while (text[len] >= '0' && text[len] <= '9')
        len++;
    if (!end && text[len])
        return -1;
    if (pid_parse_span(text, len, max, out) < 0)
        return -1;
    if (end)
        *end = text + len;
    return 0;
}
