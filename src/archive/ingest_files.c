/* The reading side of ingest: files, directories and stdin → JSON documents
 * → parsed summaries, gathered into batches (ingest_batch.c) handed to the
 * writing side directly or, with ingest_paths, through a queue to a second
 * thread (see ingest_files.h). */
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
#include "archive/batch_queue.h"
#include "archive/summary_scan.h"
#include "util/error.h"
#include "util/text_file.h"

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

/* Stores (or queues) a parsed record, in its part (which takes it over). */
static int store_record(struct ingest_session *session, struct summary_record *record)
{
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
    struct summary_record record;
    int parsed = summary_record_parse(root, text, len, session->options, &record, why, sizeof why);
    if (parsed == 0) /* a level-3 run's report beside the summary */
        record.files = file_rows_for_summary(label, root);
    json_decref(root);
    if (parsed < 0) {
        reject(session, label, document_number, several, why);
        return -1;
    }
    return store_record(session, &record);
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
    struct summary_record record;
    if (summary_record_from_members(&session->members, text, len, session->options, &record, why,
                                    sizeof why) < 0) {
        reject(session, label, document_number, several, why);
        return -1;
    }
    record.files = file_rows_for_members(label, &session->members);
    return store_record(session, &record);
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

/* Where a reader of documents is in its input: what it has met so far. */
struct document_cursor {
    int number;        /* documents met */
    bool several;      /* more than one: messages name each by its number */
    int lines_before;  /* lines of the input before the text at hand */
    bool stopped;      /* a document jansson could not read: where the next one
                        * starts is unknown, the rest is not read */
};

/* Stores (or queues) the documents of text[0, len), one after another, and
 * returns where it stopped: len when every one was taken or the input
 * cannot be read further (c->stopped, after saying why); else, only when
 * !at_end, the start of a document that goes on past len (the caller reads
 * more of it). status becomes -1 when a document was rejected. */
static size_t ingest_documents(struct ingest_session *session, const char *label,
                               const char *text, size_t len, bool at_end,
                               struct document_cursor *c, int *status)
{
    size_t off = skip_blanks(text, 0, len);
    while (off < len && !session->database_failed) {
        size_t used;
        /* the reader without a tree first; what it declines, jansson reads
         * (and refuses with its own words); a Makeflow file's name as its
         * task id is added to jansson's object */
        if (!session->options->taskid_from_file &&
            summary_scan(text + off, len - off, &session->members, &used) == 1) {
            size_t next = skip_blanks(text, off + used, len);
            if (++c->number == 1 && (next < len || !at_end))
                c->several = true;
            if (store_members(session, text + off, used, label, c->number, c->several) < 0)
                *status = -1;
            off = next;
            continue;
        }
        json_error_t err;
        json_t *root = json_loadb(text + off, len - off, JSON_DISABLE_EOF_CHECK, &err);
        if (!root && !at_end && json_error_code(&err) == json_error_premature_end_of_input)
            return off; /* the rest of it is still to be read */
        c->number++;
        if (!root) {
            int line = c->lines_before + line_of(text, off) + err.line - 1;
            if (c->several || c->number > 1)
                tally_error("archive add: %s: document %d: line %d: %s", label, c->number, line,
                            err.text);
            else
                tally_error("archive add: %s: line %d: %s", label, line, err.text);
            session->rejected++;
            *status = -1;
            c->stopped = true; /* cannot find where the next document starts */
            return len;
        }
        size_t next = skip_blanks(text, off + (size_t)err.position, len);
        if (c->number == 1 && (next < len || !at_end))
            c->several = true;
        if (store_document(session, root, text + off, (size_t)err.position, label, c->number,
                           c->several) < 0)
            *status = -1;
        off = next;
    }
    return len; /* (after a database failure: the rest is not stored) */
}

/* The end of documents met: an input with none is refused. */
static int documents_end(struct ingest_session *session, const char *label,
                         const struct document_cursor *c, int status)
{
    if (c->number == 0 && !c->stopped && !session->database_failed) {
        tally_error("archive add: %s: empty, no summary in it", label);
        session->rejected++;
        return -1;
    }
    return status;
}

int ingest_buffer(struct ingest_session *session, const char *label, const char *text, size_t len)
{
    struct document_cursor c = {0};
    int status = 0;
    ingest_documents(session, label, text, len, true, &c, &status);
    return documents_end(session, label, &c, status);
}

/* A file or standard input read as a stream of documents: a chunk at a
 * time, each complete document taken as soon as it is read, so that a
 * stream of any length (10^7 summaries are 5 GB of JSON Lines) goes in with
 * the memory of one chunk. A document is cut at a line's end, never inside
 * a token; one longer than TEXT_FILE_LARGE is refused (a device such as
 * /dev/zero has no end: that bound stops it). Returns 0, or -1 when
 * something was rejected (said). */
#define STREAM_CHUNK ((size_t)4 << 20)

static int ingest_stream(struct ingest_session *session, const char *label, int fd)
{
    struct document_cursor c = {0};
    int status = 0;
    size_t cap = STREAM_CHUNK, len = 0;
    char *buf = malloc(cap + 1);
    bool eof = false;
    while (buf && !c.stopped && !session->database_failed) {
        while (!eof && len < cap) { /* fill the chunk, or read to the end */
            ssize_t got = read(fd, buf + len, cap - len);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0) {
                tally_error("archive add: %s: %s", label, strerror(errno));
                session->rejected++;
                free(buf);
                return -1;
            }
            eof = got == 0;
            len += (size_t)got;
        }
        buf[len] = '\0';
        /* what is complete: up to the last line's end, or all of it at the end */
        size_t complete = len;
        if (!eof) {
            char *nl = memrchr(buf, '\n', len);
            complete = nl ? (size_t)(nl - buf) + 1 : 0;
        }
        size_t taken = complete ? ingest_documents(session, label, buf, complete, eof, &c, &status) : 0;
        if (eof)
            break;
        if (taken == 0 && len == cap) { /* one document fills the chunk: a larger one */
            if (cap > TEXT_FILE_LARGE) {
                char bound[32];
                text_file_size_text(TEXT_FILE_LARGE, bound, sizeof bound);
                tally_error("archive add: %s: a document longer than %s (the most one may take)",
                            label, bound);
                session->rejected++;
                free(buf);
                return -1;
            }
            size_t larger = 2 * cap > TEXT_FILE_LARGE ? TEXT_FILE_LARGE + 1 : 2 * cap;
            char *grown = realloc(buf, larger + 1);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap = larger;
            continue;
        }
        /* (memchr: a byte at a time was 4 % of the reading thread's instructions) */
        for (const char *nl = buf; (nl = memchr(nl, '\n', (size_t)(buf + taken - nl))); nl++)
            c.lines_before++;
        memmove(buf, buf + taken, len - taken);
        len -= taken;
    }
    if (!buf) {
        tally_error("archive add: %s: out of memory", label);
        session->rejected++;
        return -1;
    }
    free(buf);
    return documents_end(session, label, &c, status);
}

static int ingest_file(struct ingest_session *session, const char *path)
{
    char why[160];
    int fd = text_file_open(path, false, why, sizeof why);
    if (fd < 0) {
        tally_error("archive add: %s: %s", path, why);
        session->rejected++;
        return -1;
    }
    int status = ingest_stream(session, path, fd);
    close(fd);
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
    if (!strcmp(path, "-"))
        return ingest_stream(session, "(stdin)", STDIN_FILENO);
    struct stat st;
    if (stat(path, &st) < 0) {
        tally_error_errno("archive add: %s", path);
        session->rejected++;
        return -1;
    }
    return S_ISDIR(st.st_mode) ? ingest_directory(session, path) : ingest_file(session, path);
}

int ingest_document(struct ingest_session *session, const char *label, const char *text, size_t len)
{
    size_t used;
    if (!session->options->taskid_from_file &&
        summary_scan(text, len, &session->members, &used) == 1 && skip_blanks(text, used, len) == len)
        return store_members(session, text, used, label, 1, false);
    json_error_t err;
    json_t *root = json_loadb(text, len, 0, &err);
    if (!root) {
        reject(session, label, 1, false, err.text);
        return -1;
    }
    return store_document(session, root, text, len, label, 1, false);
}

struct reader_job {
    struct ingest_session *session;
    ingest_reader_fn read;
    void *arg;
    int status;
};

static void *reader_main(void *arg)
{
    struct reader_job *job = arg;
    job->status = job->read(job->session, job->arg);
    ingest_session_hand_over(job->session); /* the last batch, not full */
    batch_queue_close(job->session->queue);
    return NULL;
}

int ingest_in_thread(struct ingest_session *session, ingest_reader_fn read, void *arg)
{
    json_object_seed(0); /* before two threads use jansson */
    struct reader_job job = {session, read, arg, 0};
    struct batch_queue *queue = malloc(sizeof *queue); /* the session's pipeline, its own */
    pthread_t reader;
    if (queue)
        batch_queue_init(queue);
    session->queue = queue;
    if (!queue || pthread_create(&reader, NULL, reader_main, &job) != 0) {
        if (queue)
            batch_queue_destroy(queue);
        free(queue);
        session->queue = NULL; /* no second thread: do it all here */
        return read(session, arg);
    }
    struct ingest_batch *batch;
    store_bulk_writing(session->store, true);
    while ((batch = batch_queue_pop(queue)))
        ingest_session_write(session, batch); /* after a database failure: only frees */
    store_bulk_writing(session->store, false);
    pthread_join(reader, NULL);
    ingest_batches_free(batch_queue_take_spent(queue));
    session->queue = NULL;
    batch_queue_destroy(queue);
    free(queue);
    return job.status;
}

struct path_list {
    char *const *paths;
    size_t n;
};

static int read_paths(struct ingest_session *session, void *arg)
{
    const struct path_list *list = arg;
    int status = 0;
    for (size_t i = 0; i < list->n && !session->database_failed; i++)
        if (ingest_path(session, list->paths[i]) < 0)
            status = -1;
    return status;
}

int ingest_paths(struct ingest_session *session, char *const *paths, size_t n)
{
    struct path_list list = {paths, n};
    return ingest_in_thread(session, read_paths, &list);
}
