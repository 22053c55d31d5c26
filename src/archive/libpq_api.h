/* libpq, PostgreSQL's client library, loaded when first needed (see util/dynlib.h): the functions
 * tally calls, once, and the table they are reached through. */
#ifndef TALLY_ARCHIVE_LIBPQ_API_H
#define TALLY_ARCHIVE_LIBPQ_API_H

#include <libpq-fe.h>
#include <stddef.h>

#include "util/dynlib.h"

#define TALLY_LIBPQ_FUNCTIONS(X) \
    X(PQclear) \
    X(PQcmdTuples) \
    X(PQdescribePrepared) \
    X(PQconnectdb) \
    X(PQerrorMessage) \
    X(PQexec) \
    X(PQexecPrepared) \
    X(PQfformat) \
    X(PQfinish) \
    X(PQftype) \
    X(PQgetResult) \
    X(PQgetisnull) \
    X(PQgetlength) \
    X(PQgetvalue) \
    X(PQnfields) \
    X(PQnparams) \
    X(PQntuples) \
    X(PQparamtype) \
    X(PQprepare) \
    X(PQputCopyData) \
    X(PQputCopyEnd) \
    X(PQresultErrorField) \
    X(PQresultErrorMessage) \
    X(PQresultStatus) \
    X(PQsendQueryPrepared) \
    X(PQsetNoticeProcessor) \
    X(PQsetSingleRowMode) \
    X(PQstatus)

struct libpq_api {
    TALLY_LIBPQ_FUNCTIONS(DYNLIB_POINTER)
};

/* Loads the library (once per process); NULL with the reason in why. */
const struct libpq_api *libpq_api_load(char *why, size_t why_size);

/* The table, once libpq_api_load has succeeded. */
const struct libpq_api *libpq_api(void);
#define PQ(f) (libpq_api()->f)

#endif
