/* Unit tests for pids read from text (src/util/pid_text.c) and this host's
 * form of it (proc_pid_parse, src/platform/linux/procfs.c): numbers that
 * would wrap when cast to pid_t (4294967297 is 1), zero, signs, blanks and
 * anything past the ceiling are refused and leave the output untouched. */
#include "platform/platform.h"
#include "util/pid_text.h"
#include "test.h"

#include <stdio.h>

int main(void)
{
    pid_t pid = 77;
    const char *end = NULL;
    CHECK(pid_parse("1", NULL, 100, &pid) == 0 && pid == 1);
    CHECK(pid_parse("100", NULL, 100, &pid) == 0 && pid == 100);
    CHECK(pid_parse("0100", NULL, 100, &pid) == 0 && pid == 100);
    pid = 77;
    static const char *const refused[] = {"0", "101", "-1", "+5", " 5", "5 ", "", "5x", "4294967297",
                                          "4294967296", "-4294967295", "99999999999999999999999", "0x10",
                                          "00000000000000000000000000000000000000000000000000"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        if (pid_parse(refused[i], NULL, 100, &pid) != -1)
            printf("# '%s' was taken\n", refused[i]);
        CHECK(pid_parse(refused[i], NULL, 100, &pid) == -1);
    }
    CHECK_INT(pid, 77); /* untouched by every refusal */
    /* a ceiling past the kernel's hard limit is the kernel's */
    CHECK(pid_parse("4194304", NULL, 1LL << 40, &pid) == 0 && pid == 4194304);
    CHECK(pid_parse("4194305", NULL, 1LL << 40, &pid) == -1);
    CHECK(pid_parse("4294967297", NULL, 1LL << 40, &pid) == -1);
    /* a prefix: "PID.seg", "io.PID.N" */
    CHECK(pid_parse("123.seg", &end, PID_KERNEL_LIMIT, &pid) == 0 && pid == 123 && !strcmp(end, ".seg"));
    CHECK(pid_parse("4294967297.seg", &end, PID_KERNEL_LIMIT, &pid) == -1);
    CHECK(pid_parse(".seg", &end, PID_KERNEL_LIMIT, &pid) == -1);
    CHECK(pid_parse("123.seg", NULL, PID_KERNEL_LIMIT, &pid) == -1);
    /* a span (the request language's p_PID@HOST) */
    CHECK(pid_parse_span("42@h", 2, PID_KERNEL_LIMIT, &pid) == 0 && pid == 42);
    CHECK(pid_parse_span("42@h", 3, PID_KERNEL_LIMIT, &pid) == -1);
    CHECK(pid_parse_span("42", 0, PID_KERNEL_LIMIT, &pid) == -1);
    CHECK(pid_in_range(1, 10) && pid_in_range(10, 10) && !pid_in_range(0, 10) && !pid_in_range(11, 10) &&
          !pid_in_range(-1, 10) && !pid_in_range(4294967297LL, 1LL << 40));
    /* this host: its pid_max, read from /proc/sys/kernel/pid_max */
    long long max = proc_pid_max();
    FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
    long long read_max = 0;
    CHECK(f && fscanf(f, "%lld", &read_max) == 1);
    if (f)
        fclose(f);
    CHECK(max == read_max);
    char text[32];
    snprintf(text, sizeof text, "%lld", max);
    CHECK(proc_pid_parse(text, &pid) == 0 && pid == (pid_t)max);
    snprintf(text, sizeof text, "%lld", max + 1);
    CHECK(proc_pid_parse(text, &pid) == -1);
    CHECK(proc_pid_parse("4294967297", &pid) == -1);
    CHECK(proc_pid_in_range(max) && !proc_pid_in_range(max + 1) && !proc_pid_in_range(4294967297LL));
    return test_done();
}
