/* A minimal unit-test harness: each check prints one TAP line ("ok N - what"
 * or "not ok N - what"), and test_done() returns the exit status. */
#ifndef TALLY_TEST_H
#define TALLY_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int test_count, test_failures;

static inline void test_report(int ok, const char *file, int line, const char *what)
{
    test_count++;
    if (!ok)
        test_failures++;
    printf("%sok %d - %s", ok ? "" : "not ", test_count, what);
    if (!ok)
        printf(" (%s:%d)", file, line);
    printf("\n");
}

#define CHECK(cond) test_report(!!(cond), __FILE__, __LINE__, #cond)

#define CHECK_INT(actual, expected)                                                             \
    do {                                                                                        \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                         \
        char m_[256];                                                                           \
        snprintf(m_, sizeof m_, "%s == %s (got %lld, want %lld)", #actual, #expected, a_, e_);   \
        test_report(a_ == e_, __FILE__, __LINE__, m_);                                          \
    } while (0)

#define CHECK_NEAR(actual, expected, tolerance)                                                 \
    do {                                                                                        \
        double a_ = (actual), e_ = (expected);                                                  \
        char m_[256];                                                                           \
        snprintf(m_, sizeof m_, "%s ~= %s (got %.9g, want %.9g)", #actual, #expected, a_, e_);   \
        test_report(fabs(a_ - e_) <= (tolerance), __FILE__, __LINE__, m_);                      \
    } while (0)

#define CHECK_STR(actual, expected)                                                             \
    do {                                                                                        \
        const char *a_ = (actual), *e_ = (expected);                                            \
        char m_[512];                                                                           \
        snprintf(m_, sizeof m_, "%s == \"%s\" (got \"%s\")", #actual, e_, a_ ? a_ : "(null)");   \
        test_report(a_ && !strcmp(a_, e_), __FILE__, __LINE__, m_);                             \
    } while (0)

/* Substring check, for error messages that must name the bad part. */
#define CHECK_CONTAINS(haystack, needle)                                                        \
    do {                                                                                        \
        const char *h_ = (haystack), *n_ = (needle);                                            \
        char m_[512];                                                                           \
        snprintf(m_, sizeof m_, "\"%s\" contains \"%s\"", h_ ? h_ : "(null)", n_);               \
        test_report(h_ && strstr(h_, n_) != NULL, __FILE__, __LINE__, m_);                      \
    } while (0)

static inline int test_done(void)
{
    printf("1..%d\n", test_count);
    return test_failures ? 1 : 0;
}

#endif
