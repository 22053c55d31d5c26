/* Unit tests for the UTC month of a day (src/archive/calendar_month.c):
 * every day of years 1..9999 gets the year, month, first day and next
 * month's first day that gmtime_r and timegm give; the days just outside
 * are refused. */
#include <time.h>

#include "archive/calendar_month.h"
#include "test.h"

/* What libc says of day: 0 when the month agrees. */
static int agrees_with_libc(long long day, const struct calendar_month *m)
{
    time_t t = (time_t)(day * 86400);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 != m->year || tm.tm_mon + 1 != m->month)
        return -1;
    tm.tm_mday = 1;
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    if (timegm(&tm) / 86400 != m->first)
        return -1;
    tm.tm_mon += 1;
    return timegm(&tm) / 86400 == m->next ? 0 : -1;
}

int main(void)
{
    long long wrong = 0, first_wrong = 0;
    for (long long day = CALENDAR_FIRST_DAY; day <= CALENDAR_LAST_DAY; day++) {
        struct calendar_month m;
        if (calendar_month_of(day, &m) < 0 || agrees_with_libc(day, &m) < 0) {
            if (!wrong++)
                first_wrong = day;
        }
    }
    CHECK_INT(wrong, 0);
    CHECK_INT(first_wrong, 0);

    struct calendar_month m;
    CHECK_INT(calendar_month_of(0, &m), 0);
    CHECK(m.year == 1970 && m.month == 1 && m.first == 0 && m.next == 31);
    CHECK_INT(calendar_month_of(20512, &m), 0); /* 2026-02-28 */
    CHECK(m.year == 2026 && m.month == 2 && m.first == 20485 && m.next == 20513);
    CHECK_INT(calendar_month_of(11016, &m), 0); /* 2000-02-29: a leap day */
    CHECK(m.year == 2000 && m.month == 2 && m.next - m.first == 29);
    CHECK_INT(calendar_month_of(CALENDAR_FIRST_DAY, &m), 0);
    CHECK(m.year == 1 && m.month == 1 && m.first == CALENDAR_FIRST_DAY);
    CHECK_INT(calendar_month_of(CALENDAR_LAST_DAY, &m), 0);
    CHECK(m.year == 9999 && m.month == 12 && m.next == CALENDAR_LAST_DAY + 1);
    CHECK_INT(calendar_month_of(CALENDAR_FIRST_DAY - 1, &m), -1);
    CHECK_INT(calendar_month_of(CALENDAR_LAST_DAY + 1, &m), -1);
    CHECK_INT(calendar_month_of(-1000000000LL, &m), -1);
    return test_done();
}
