/* Unit tests for command lines as text (src/util/command_line.c): words with
 * any bytes quote to one line of UTF-8, and split back to the same words. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/command_line.h"

static void round_trip(char *const *words, const char *expected)
{
    char *line = command_line_quote(words);
    CHECK(line != NULL);
    if (expected)
        CHECK_STR(line, expected);
    CHECK(strchr(line, '\n') == NULL);
    CHECK(command_line_is_utf8(line));
    char **back = NULL;
    char why[128] = "";
    int n = command_line_split(line, &back, why, sizeof why);
    size_t count = 0;
    while (words[count])
        count++;
    CHECK_INT(n, (int)count);
    for (size_t i = 0; n >= 0 && i < count && i < (size_t)n; i++)
        CHECK_STR(back[i], words[i]);
    command_line_free(back);
    free(line);
}

int main(void)
{
    round_trip((char *[]){"sleep", "10", NULL}, "sleep 10");
    round_trip((char *[]){"make", "-j8", "CFLAGS=-O2", "./a/b.c", NULL}, "make -j8 CFLAGS=-O2 ./a/b.c");
    round_trip((char *[]){"sh", "-c", "echo hi; exit 3", NULL}, "sh -c 'echo hi; exit 3'");
    round_trip((char *[]){"printf", "it's", "", NULL}, "printf 'it'\\''s' ''");
    round_trip((char *[]){"python3", "-c", "import time\nt=1", NULL}, "python3 -c $'import time\\nt=1'");
    round_trip((char *[]){"a\tb", "say \"x\" \\ y", NULL}, "$'a\\tb' 'say \"x\" \\ y'");
    round_trip((char *[]){"caf\xc3\xa9", "\xff\xfe", "x\x01'\\", NULL}, "'caf\xc3\xa9' $'\\xff\\xfe' $'x\\x01\\'\\\\'");
    round_trip((char *[]){"$HOME", "`id`", "*", "#x", "~", NULL}, "'$HOME' '`id`' '*' '#x' '~'");

    /* what a shell reads: double quotes, backslashes, $'...' escapes */
    char **w = NULL;
    char why[128] = "";
    CHECK_INT(command_line_split("  a\\ b \"c \\\"d\\\" $x\" $'\\x41\\101\\e' ", &w, why, sizeof why), 3);
    CHECK_STR(w[0], "a b");
    CHECK_STR(w[1], "c \"d\" $x");
    CHECK_STR(w[2], "AA\x1b");
    command_line_free(w);
    CHECK_INT(command_line_split("", &w, why, sizeof why), 0);
    CHECK(w[0] == NULL);
    command_line_free(w);

    CHECK_INT(command_line_split("echo 'abc", &w, why, sizeof why), -1);
    CHECK_STR(why, "unterminated ' at byte 6");
    CHECK_INT(command_line_split("x \"abc", &w, why, sizeof why), -1);
    CHECK_STR(why, "unterminated \" at byte 3");

    CHECK(command_line_is_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    CHECK(!command_line_is_utf8("\xc0\xaf"));     /* overlong '/' */
    CHECK(!command_line_is_utf8("\xed\xa0\x80")); /* surrogate */
    CHECK(!command_line_is_utf8("\xe2\x82"));     /* cut short */

    char *one = command_line_one_line("a\nb\tc\\d \xff caf\xc3\xa9");
    CHECK_STR(one, "a\\nb\\tc\\d \\xff caf\xc3\xa9");
    free(one);
    one = command_line_one_line("python3 -c $'import time\\nt=1'");
    CHECK_STR(one, "python3 -c $'import time\\nt=1'");
    free(one);
    return test_done();
}
