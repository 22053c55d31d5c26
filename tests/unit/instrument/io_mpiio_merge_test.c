/* io_files_add_mpiio: MPI-IO's files merged into PREFIX.files.json by path:
 * the counters go on the file the helper saw and on its processes' entries
 * (the last image of the rank's pid), a rank the helper did not see and a
 * file only MPI-IO saw are appended, nothing else changes. */
#include "instrument/io_mpiio_merge.h"

#include <jansson.h>

#include "test.h"

int main(void)
{
    json_error_t e;
    json_t *doc = json_loads(
        "{\"format\": \"tally-files-1\", \"files\": ["
        " {\"path\": \"/d/shared.dat\", \"POSIX_BYTES_WRITTEN\": 20,"
        "  \"processes\": [{\"pid\": 10, \"image\": 0, \"POSIX_OPENS\": 1},"
        "                  {\"pid\": 10, \"image\": 1, \"POSIX_OPENS\": 1},"
        "                  {\"pid\": 11, \"image\": 0, \"POSIX_OPENS\": 1}]},"
        " {\"path\": \"/etc/x\", \"POSIX_BYTES_READ\": 5, \"processes\": [{\"pid\": 10, \"image\": 1}]}]}",
        0, &e);
    json_t *mpiio = json_loads(
        "[{\"path\": \"/d/shared.dat\", \"ranks\": 3, \"MPIIO_BYTES_WRITTEN\": 30, \"MPIIO_COLL_OPENS\": 3,"
        "  \"processes\": [{\"pid\": 10, \"rank\": 0, \"MPIIO_BYTES_WRITTEN\": 10, \"MPIIO_COLL_OPENS\": 1},"
        "                 {\"pid\": 11, \"rank\": 1, \"MPIIO_BYTES_WRITTEN\": 10, \"MPIIO_COLL_OPENS\": 1},"
        "                 {\"pid\": 12, \"rank\": 2, \"MPIIO_BYTES_WRITTEN\": 10, \"MPIIO_COLL_OPENS\": 1}]},"
        " {\"path\": \"ufs:/etc/x\", \"ranks\": 1, \"MPIIO_BYTES_READ\": 3,"
        "  \"processes\": [{\"pid\": 10, \"rank\": 0, \"MPIIO_BYTES_READ\": 3}]},"
        " {\"path\": \"/d/only_mpi\", \"ranks\": 1, \"MPIIO_BYTES_READ\": 7,"
        "  \"processes\": [{\"pid\": 11, \"rank\": 1, \"MPIIO_BYTES_READ\": 7}]}]",
        0, &e);
    CHECK(doc && mpiio);
    CHECK_INT(io_files_add_mpiio(doc, mpiio), 0);
    json_t *files = json_object_get(doc, "files");
    CHECK_INT(json_array_size(files), 3);
    json_t *shared = json_array_get(files, 0), *etc = json_array_get(files, 1), *only = json_array_get(files, 2);
    CHECK_INT(json_integer_value(json_object_get(shared, "POSIX_BYTES_WRITTEN")), 20);
    CHECK_INT(json_integer_value(json_object_get(shared, "MPIIO_BYTES_WRITTEN")), 30);
    CHECK_INT(json_integer_value(json_object_get(shared, "MPIIO_COLL_OPENS")), 3);
    CHECK(!json_object_get(shared, "ranks")); /* the number of processes with MPIIO_ counters says it */
    CHECK(!json_object_get(shared, "rank"));
    json_t *procs = json_object_get(shared, "processes");
    CHECK_INT(json_array_size(procs), 4); /* pid 12: not seen by the helper, appended */
    json_t *p10a = json_array_get(procs, 0), *p10b = json_array_get(procs, 1), *p11 = json_array_get(procs, 2),
           *p12 = json_array_get(procs, 3);
    CHECK(!json_object_get(p10a, "MPIIO_BYTES_WRITTEN")); /* image 0 of pid 10 exec'd the rank's image 1 */
    CHECK_INT(json_integer_value(json_object_get(p10b, "MPIIO_BYTES_WRITTEN")), 10);
    CHECK_INT(json_integer_value(json_object_get(p10b, "rank")), 0);
    CHECK_INT(json_integer_value(json_object_get(p10b, "POSIX_OPENS")), 1);
    CHECK_INT(json_integer_value(json_object_get(p11, "rank")), 1);
    CHECK_INT(json_integer_value(json_object_get(p12, "pid")), 12);
    CHECK_INT(json_integer_value(json_object_get(p12, "rank")), 2);
    CHECK_INT(json_integer_value(json_object_get(p12, "MPIIO_COLL_OPENS")), 1);
    CHECK_INT(json_integer_value(json_object_get(etc, "MPIIO_BYTES_READ")), 3); /* "ufs:" looked past */
    CHECK_INT(json_integer_value(json_object_get(etc, "POSIX_BYTES_READ")), 5);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(json_object_get(etc, "processes"), 0), "MPIIO_BYTES_READ")), 3);
    CHECK(json_is_string(json_object_get(only, "path")) &&
          !strcmp(json_string_value(json_object_get(only, "path")), "/d/only_mpi"));
    CHECK_INT(json_integer_value(json_object_get(only, "MPIIO_BYTES_READ")), 7);
    CHECK_INT(json_array_size(json_object_get(only, "processes")), 1);
    /* nothing to merge: unchanged */
    CHECK_INT(io_files_add_mpiio(doc, NULL), 0);
    CHECK_INT(json_array_size(files), 3);
    json_decref(doc);
    json_decref(mpiio);
    return test_done();
}
