/* The one place tally's version is defined. */
#ifndef TALLY_VERSION_H
#define TALLY_VERSION_H
#define TALLY_VERSION "0.1.0"
#endif
