/* The UTC calendar month a day falls in (days since 1970-01-01): the month
 * of PostgreSQL's partitions of summaries (partitions.h). Arithmetic on the
 * proleptic Gregorian calendar, no time zone, no libc time functions. */
#ifndef TALLY_ARCHIVE_CALENDAR_MONTH_H
#define TALLY_ARCHIVE_CALENDAR_MONTH_H

/* The first and last day of the years a month is kept for: 0001-01-01 and
 * 9999-12-31. */
#define CALENDAR_FIRST_DAY (-719162LL)
#define CALENDAR_LAST_DAY 2932896LL

struct calendar_month {
    int year, month;      /* 1..9999, 1..12 */
    long long first, next; /* its first day and the next month's */
};

/* The month of day into *m: 0, or -1 for a day outside years 1..9999. */
int calendar_month_of(long long day, struct calendar_month *m);

#endif
