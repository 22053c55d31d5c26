/* Cutting the white space around a word in place: what the readers of
 * 'name: value' lists (limits, resource_monitor's -V) share. */
#ifndef TALLY_UTIL_TRIM_H
#define TALLY_UTIL_TRIM_H

/* S without its leading white space (isspace), its trailing white space cut
 * off with a '\0'. */
char *trim_space(char *s);

#endif
