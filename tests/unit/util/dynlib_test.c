/* Unit tests for loading a library on first use (src/util/dynlib.c): the
 * libraries tally loads this way resolve every function it lists (the
 * table would otherwise fail at its first call); an unknown library and a
 * missing symbol are refused with a reason naming them. */
#include <string.h>

#include "archive/libpq_api.h"
#include "archive/libsqlite_api.h"
#include "client/libnats_api.h"
#include "test.h"
#include "util/dynlib.h"
#include "util/libmhd_api.h"

int main(void)
{
    char why[512];
    const struct libpq_api *pq = libpq_api_load(why, sizeof why);
    CHECK(pq != NULL);
    CHECK(pq && pq->PQconnectdb != NULL && pq->PQstatus != NULL);
    const struct libnats_api *nats = libnats_api_load(why, sizeof why);
    CHECK(nats != NULL);
    CHECK(nats && nats->natsConnection_Connect != NULL && nats->nats_GetLastError != NULL);
    const struct libmhd_api *mhd = libmhd_api_load(why, sizeof why);
    CHECK(mhd != NULL);
    CHECK(mhd && mhd->MHD_start_daemon != NULL);
    const struct libsqlite_api *sqlite = libsqlite_api_load(why, sizeof why);
    CHECK(sqlite != NULL);
    CHECK(sqlite && sqlite->sqlite3_open_v2 != NULL && sqlite->sqlite3_step != NULL);
    CHECK(libpq_api_load(why, sizeof why) == pq); /* once per process */

    void *slot = NULL;
    struct dynlib_symbol missing_library[] = {{"f", &slot}};
    CHECK_INT(dynlib_open("libtally-no-such-library.so.9", missing_library, 1, why, sizeof why), -1);
    CHECK(strstr(why, "cannot load libtally-no-such-library.so.9") != NULL);
    CHECK(slot == NULL);

    struct dynlib_symbol missing_symbol[] = {{"PQstatus", &slot}, {"PQno_such_function", &slot}};
    CHECK_INT(dynlib_open(TALLY_SONAME_LIBPQ, missing_symbol, 2, why, sizeof why), -1);
    CHECK(strstr(why, "has no PQno_such_function") != NULL);
    return test_done();
}
