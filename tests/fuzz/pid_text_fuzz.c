/* Fuzz harness (libFuzzer) for pids read from text (src/util/pid_text.c):
 * the first byte picks the ceiling (a small one, a typical pid_max, the
 * kernel's limit, or one past any pid), the rest is the text. Checked
 * against a reference written here with strtoull: a pid is taken exactly
 * when the text is one or more decimal digits (the whole string, or up to
 * *end) whose value is in (0, min(ceiling, PID_KERNEL_LIMIT)]; the value
 * taken is that value; a refusal leaves the output untouched; the span
 * form agrees with the string form. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "util/pid_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    static const long long ceilings[] = {100, 32768, 4194304, 1LL << 40};
    long long max = ceilings[data[0] % 4];
    char *text = fuzz_string(data + 1, size - 1);
    size_t digits = strspn(text, "0123456789");
    long long limit = max < PID_KERNEL_LIMIT ? max : PID_KERNEL_LIMIT;
    /* the reference: strtoull over the digits alone */
    bool in_range = false;
    unsigned long long value = 0;
    if (digits > 0) {
        char *copy = strndup(text, digits), *end;
        errno = 0;
        value = strtoull(copy, &end, 10);
        in_range = errno == 0 && value > 0 && value <= (unsigned long long)limit;
        free(copy);
    }
    pid_t pid = -7;
    int whole = pid_parse(text, NULL, max, &pid);
    if ((whole == 0) != (in_range && text[digits] == '\0'))
        abort();
    if (whole == 0 ? (unsigned long long)pid != value : pid != -7)
        abort();
    const char *end = NULL;
    pid = -7;
    int prefix = pid_parse(text, &end, max, &pid);
    if ((prefix == 0) != in_range || (prefix == 0 && (end != text + digits || (unsigned long long)pid != value)) ||
        (prefix != 0 && pid != -7))
        abort();
    pid = -7;
    int span = pid_parse_span(text, strlen(text), max, &pid);
    if (span != whole || (span == 0 && (unsigned long long)pid != value))
        abort();
    free(text);
    return 0;
}
