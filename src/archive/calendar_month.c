/* The UTC calendar month of a day (see calendar_month.h). The conversion
 * from days to a date counts 400-year eras of 146,097 days from 0000-03-01,
 * so that the leap day ends each counted year (H. Hinnant's
 * civil_from_days). */
#include "archive/calendar_month.h"

#include <stdbool.h>

static int days_in(int year, int month)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return days[month - 1] + (month == 2 && leap);
}

int calendar_month_of(long long day, struct calendar_month *m)
{
    if (day < CALENDAR_FIRST_DAY || day > CALENDAR_LAST_DAY)
        return -1;
    long long z = day + 719468; /* days since 0000-03-01, >= 0 from year 1 on */
    long long era = z / 146097, of_era = z - era * 146097;
    long long year_of_era = (of_era - of_era / 1460 + of_era / 36524 - of_era / 146096) / 365;
    long long day_of_year = of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    long long shifted_month = (5 * day_of_year + 2) / 153; /* 0 = March */
    int day_of_month = (int)(day_of_year - (153 * shifted_month + 2) / 5) + 1;
    m->month = (int)(shifted_month < 10 ? shifted_month + 3 : shifted_month - 9);
    m->year = (int)(year_of_era + era * 400 + (m->month <= 2));
    m->first = day - (day_of_month - 1);
    m->next = m->first + days_in(m->year, m->month);
    return 0;
}
