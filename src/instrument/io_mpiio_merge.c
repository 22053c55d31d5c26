/* MPI-IO's files merged into PREFIX.files.json (io_mpiio_merge.h). */
#include "instrument/io_mpiio_merge.h"

#include <string.h>

#include "util/hashmap.h"

/* Copies from's MPIIO_* members (and "rank") into into. */
static void copy_mpiio(json_t *into, const json_t *from)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)from, key, value)
        if (!strncmp(key, "MPIIO_", 6) || !strcmp(key, "rank"))
            json_object_set(into, key, value);
}

/* The entry of processes with this pid (its last image: MPI runs in the
 * image that called MPI_Init), NULL when none. */
static json_t *process_entry(json_t *processes, json_int_t pid)
{
    json_t *found = NULL;
    size_t i;
    json_t *p;
    json_array_foreach(processes, i, p)
        if (json_integer_value(json_object_get(p, "pid")) == pid &&
            (!found || json_integer_value(json_object_get(p, "image")) >=
                           json_integer_value(json_object_get(found, "image"))))
            found = p;
    return found;
}

/* The file the helper saw under path, or under path without a ROMIO file
 * system prefix ("ufs:/d/x" is /d/x); NULL when it saw neither. */
static json_t *seen_file(const struct hashmap *by_path, const char *path)
{
    json_t *file = hashmap_get(by_path, path);
    const char *colon = strchr(path, ':');
    if (!file && colon && colon[1] == '/' && strcspn(path, "/") > (size_t)(colon - path))
        file = hashmap_get(by_path, colon + 1);
    return file;
}

static int merge_file(json_t *file, const json_t *m)
{
    copy_mpiio(file, m);
    json_t *processes = json_object_get(file, "processes");
    if (!processes) {
        if (!(processes = json_array()) || json_object_set_new(file, "processes", processes) < 0)
            return -1;
    }
    size_t i;
    json_t *rank;
    json_array_foreach(json_object_get(m, "processes"), i, rank) {
        json_t *p = process_entry(processes, json_integer_value(json_object_get(rank, "pid")));
        if (!p) {
            if (!(p = json_pack("{s:O}", "pid", json_object_get(rank, "pid"))) ||
                json_array_append_new(processes, p) < 0)
                return -1;
        }
        copy_mpiio(p, rank);
    }
    return 0;
}

int io_files_add_mpiio(json_t *doc, const json_t *mpiio)
{
    json_t *files = json_object_get(doc, "files");
    if (!json_is_array(files) || !json_is_array(mpiio))
        return 0;
    struct hashmap by_path = {0};
    size_t i;
    json_t *f;
    int rc = 0;
    json_array_foreach(files, i, f) {
        const char *path = json_string_value(json_object_get(f, "path"));
        if (path && !hashmap_get(&by_path, path) && hashmap_put(&by_path, path, f) < 0)
            rc = -1;
    }
    json_array_foreach((json_t *)mpiio, i, f) {
        const char *path = json_string_value(json_object_get(f, "path"));
        if (rc < 0 || !path)
            continue;
        json_t *file = seen_file(&by_path, path);
        if (!file) {
            if (!(file = json_pack("{s:s}", "path", path)) || json_array_append_new(files, file) < 0) {
                rc = -1;
                continue;
            }
        }
        if (merge_file(file, f) < 0)
            rc = -1;
    }
    hashmap_free(&by_path);
    return rc;
}
