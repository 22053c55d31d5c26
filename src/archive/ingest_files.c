/* The reading side of ingest: files, directories and stdin → JSON documents
 * → parsed summaries, handed to the writing side (ingest_batch.c) directly or,
 * with ingest_paths, through a queue to a second thread (see ingest_files.h). */
#include "archive/ingest_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/file_rows.h"
#include "archive/record_queue.h"
#include "archive/summary_scan.h"
#include "util/error.h"
#include "util/text_file.h"
#include "util/vec.h"

/* Reports a document ingest could not take. */
static void reject(struct ingest_session *session, const char *label, int document_number,
                   bool several, const char *why)
{
    if (several)
        tally_error("archive add: %s: document %d: %s", label, document_number, why);
    else
        tally_error("archive add: %s: %s", label, why);
    session->rejected++;
}

/* Stores (or queues) a parsed record. */
static int store_record(struct ingest_session *session, struct summary_record *record)
{
    if (session->queue) {
        record_queue_push(session->queue, record);
        return 0;
    }
    return ingest_session_take(session, record);
}

/* Parses and stores (or queues) one document read by jansson; takes over
 * the reference to root. */
static int store_document(struct ingest_session *session, json_t *root, const char *text,
                          size_t len, const char *label, int document_number, bool several)
{
    char why[512];
    if (session->options->taskid_from_file && !several && !json_object_get(root, "taskid") &&
        json_is_object(root)) {
        const char *base = strrchr(label, '/') ? strrchr(label, '/') + 1 : label;
        if (!strncmp(base, "resource-", 9))
            base += 9;
        size_t n = strcspn(base, ".");
        json_object_set_new(root, "taskid", json_stringn(base, n));
    }
    struct summary_record *record = malloc(sizeof *record);
    int parsed = record ? summary_record_parse(root, text, len, session->options, record, why,
                                               sizeof why)
                        : -1;
    if (parsed == 0) /* a level-3 run's report beside the summary */
        record->files = file_rows_for_summary(label, root);
    json_decref(root);
    if (parsed < 0) {
        if (!record)
            snprintf(why, sizeof why, "out of memory");
        reject(session, label, document_number, several, why);
        free(record);
        return -1;
    }
    return store_record(session, record);
}

/* The per-file rows of a summary summary_scan read: file_rows_for_summary
 * looks at its "io" member only, read back from that member's text (an
 * object: a level-3 run's summary). */
static struct file_rows *file_rows_for_members(const char *label, const struct summary_members *m)
{
    const struct summary_member *io = summary_members_find(m, "io");
    if (!io || io->kind != MEMBER_OTHER)
        return NULL;
    json_t *summary = json_object();
    json_t *value = json_loadb(summary_members_at(m, io->text), io->text_len, JSON_DECODE_ANY, NULL);
    if (!summary || !value) {
        json_decref(summary);
        json_decref(value);
        return NULL;
    }
    struct file_rows *rows = json_object_set_new(summary, "io", value) == 0
                                 ? file_rows_for_summary(label, summary) : NULL;
    json_decref(summary);
    return rows;
}

/* The same for a document summary_scan read into session->members. */
static int store_members(struct ingest_session *session, const char *text, size_t len,
                         const char *label, int document_number, bool several)
{
    char why[512];
    struct summary_record *record = malloc(sizeof *record);
    if (!record || summary_record_from_members(&session->members, text, len, session->options,
                                               record, why, sizeof why) < 0) {
        if (!record)
            snprintf(why, sizeof why, "out of memory");
        reject(session, label, document_number, several, why);
        free(record);
        return -1;
    }
    record->files = file_rows_for_members(label, &session->members);
    return store_record(session, record);
}

static size_t skip_blanks(const char *text, size_t off, size_t len)
{
    while (off < len && (text[off] == ' ' || text[off] == '\n' || text[off] == '\t' ||
                         text[off] == '\r'))
        off++;
    return off;
}

static int line_of(const char *text, size_t offset)
{
    int line = 1;
    for (size_t i = 0; i < offset; i++)
        line += text[i] == '\n';
    return line;
}

int ingest_buffer(struct ingest_session *session, const char *label, const char *text, size_t len)
{
    size_t off = skip_blanks(text, 0, len);
    if (off == len) {
        tally_error("archive add: %s: empty, no summary in it", label);
        session->rejected++;
        return -1;
    }
    int status = 0, number = 0;
    /* one document, or several concatenated (JSON Lines is a special case) */
    bool several = false;
    while (off < len && !session->database_failed) {
        size_t used;
        /* the reader without a tree first; what it declines, jansson reads
         * (and refuses with its own words); a Makeflow file's name as its
         * task id is added to jansson's object */
        if (!session->options->taskid_from_file &&
            summary_scan(text + off, len - off, &session->members, &used) == 1) {
            number++;
            size_t next = skip_blanks(text, off + used, len);
            if (number == 1 && next < len)
                several = true;
            if (store_members(session, text + off, used, label, number, several) < 0)
                status = -1;
            off = next;
            continue;
        }
        json_error_t err;
        json_t *root = json_loadb(text + off, len - off, JSON_DISABLE_EOF_CHECK, &err);
        number++;
        if (!root) {
            int line = line_of(text, off) + err.line - 1;
            if (several || number > 1)
                tally_error("archive add: %s: document %d: line %d: %s", label, number, line,
                            err.text);
            else
                tally_error("archive add: %s: line %d: %s", label, line, err.text);
            session->rejected++;
            return -1; /* cannot find where the next document starts */
        }
        size_t next = skip_blanks(text, off + (size_t)err.position, len);
        if (number == 1 && next < len)
            several = true;
        if (store_document(session, root, text + off, (size_t)err.position, label, number,
                           several) < 0)
            status = -1;
        off = next;
    }
    return status;
}

/* The whole file, read with one allocation of its size (summaries are small
 * and a directory may hold 100,000 of them); at most TEXT_FILE_LARGE bytes
 * (a device such as /dev/zero has no size: the bound stops it). NULL with
 * the reason in why. */
static char *read_file(const char *path, size_t *len, char *why, size_t why_size)
{
    int fd = text_file_open(path, false, why, why_size);
    if (fd < 0)
        return NULL;
    struct stat st;
    size_t max = TEXT_FILE_LARGE;
    if (fstat(fd, &st) < 0)
        st.st_size = 0;
    /* one byte more than the size, so that the second read sees the end */
    size_t cap = (size_t)st.st_size < max ? (size_t)st.st_size + 1 : max + 1, n = 0;
    char *text = malloc(cap + 1);
    size_t allocated = text ? cap + 1 : 0; /* cap bytes to read into, and the NUL */
    while (text && n <= max) {
        if (n == cap) { /* a file that grew, or a stream: twice the room, read up to max + 1 */
            if (VEC_RESERVE(text, allocated, allocated + 1) < 0) {
                free(text);
                text = NULL;
                continue;
            }
            cap = allocated - 1 < max + 1 ? allocated - 1 : max + 1;
            continue;
        }
        ssize_t got = read(fd, text + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(why, why_size, "%s", strerror(errno));
            free(text);
            close(fd);
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (!text) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    if (n > max) {
        char bound[32];
        text_file_size_text(max, bound, sizeof bound);
        snprintf(why, why_size, "larger than %s (the most read from such a file)", bound);
        free(text);
        return NULL;
    }
    text[n] = '\0';
    *len = n;
    return text;
}

static int ingest_file(struct ingest_session *session, const char *path)
{
    size_t len;
    char why[160];
    char *text = read_file(path, &len, why, sizeof why);
    if (!text) {
        tally_error("archive add: %s: %s", path, why);
        session->rejected++;
        return -1;
    }
    int status = ingest_buffer(session, path, text, len);
    free(text);
    return status;
}

/* *.summary and *.json, but not a level-3 run's PREFIX.files.json: that is
 * read with its summary (file_rows.h), never as a summary itself. */
static bool is_summary_name(const char *name)
{
    size_t n = strlen(name);
    if (n > 11 && !strcmp(name + n - 11, ".files.json"))
        return false;
    return (n > 8 && !strcmp(name + n - 8, ".summary")) || (n > 5 && !strcmp(name + n - 5, ".json"));
}

static int ingest_directory(struct ingest_session *session, const char *path)
{
    struct dirent **entries;
    int n = scandir(path, &entries, NULL, alphasort);
    if (n < 0) {
        tally_error_errno("archive add: %s", path);
        session->rejected++;
        return -1;
    }
    int status = 0;
    for (int i = 0; i < n; i++) {
        const char *name = entries[i]->d_name;
        if (name[0] == '.' || session->database_failed) {
            free(entries[i]);
            continue;
        }
        char *child;
        if (asprintf(&child, "%s/%s", path, name) >= 0) {
            struct stat st;
            bool is_dir = entries[i]->d_type == DT_DIR ||
                          ((entries[i]->d_type == DT_UNKNOWN || entries[i]->d_type == DT_LNK) &&
                           stat(child, &st) == 0 && S_ISDIR(st.st_mode));
            if (is_dir) {
                if (ingest_directory(session, child) < 0)
                    status = -1;
            } else if (is_summary_name(name)) {
                if (ingest_file(session, child) < 0)
                    status = -1;
            }
            free(child);
        }
        free(entries[i]);
    }
    free(entries);
    return status;
}

int ingest_path(struct ingest_session *session, const char *path)
{
    if (!strcmp(path, "-")) {
        size_t len;
        char why[160];
        char *text = text_file_read_stream(stdin, TEXT_FILE_LARGE, &len, why, sizeof why);
        if (!text) {
            tally_error("archive add: standard input: %s", why);
            session->rejected++;
            return -1;
        }
        int status = ingest_buffer(session, "(stdin)", text, len);
        free(text);
        return status;
    }
    struct stat st;
    if (stat(path, &st) < 0) {
        tally_error_errno("archive add: %s", path);
        session->rejected++;
        return -1;
    }
    return S_ISDIR(st.st_mode) ? ingest_directory(session, path) : ingest_file(session, path);
}

struct reader_job {
    struct ingest_session *session;
    char *const *paths;
    size_t n;
    int status;
};

static void *reader_main(void *arg)
{
    struct reader_job *job = arg;
    for (size_t i = 0; i < job->n && !job->session->database_failed; i++)
        if (ingest_path(job->session, job->paths[i]) < 0)
            job->status = -1;
    record_queue_close(job->session->queue);
    return NULL;
}

int ingest_paths(struct ingest_session *session, char *const *paths, size_t n)
{
    static struct record_queue queue; /* one pipeline per process at a time */
    record_queue_init(&queue);
    json_object_seed(0); /* before two threads use jansson */
    struct reader_job job = {session, paths, n, 0};
    session->queue = &queue;
    pthread_t reader;
    if (pthread_create(&reader, NULL, reader_main, &job) != 0) {
        session->queue = NULL; /* no second thread: do it all here */
        for (size_t i = 0; i < n && !session->database_failed; i++)
            if (ingest_path(session, paths[i]) < 0)
                job.status = -1;
        return job.status;
    }
    struct summary_record *records[RECORD_QUEUE_WAKE];
    size_t n_popped;
    while ((n_popped = record_queue_pop_some(&queue, records, RECORD_QUEUE_WAKE)) > 0)
        for (size_t i = 0; i < n_popped; i++)
            ingest_session_take(session, records[i]); /* after a database failure: only frees */
    pthread_join(reader, NULL);
    session->queue = NULL;
    record_queue_destroy(&queue);
    return job.status;
}
