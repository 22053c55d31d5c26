/* The client side of the agent's socket, for the programs that talk to it:
 * 'tally run --agent' (register a task, stream its samples, hand over its
 * summary, take live limits), 'tally request' and 'tally agent attach'
 * (send lines, read lines). Starting the user's agent when none runs is
 * here too (as OCM-G forks its local monitor). A link that breaks (the
 * agent was killed) only marks itself broken: the caller's task goes on. */
#ifndef TALLY_CLIENT_AGENT_LINK_H
#define TALLY_CLIENT_AGENT_LINK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/sample.h"

struct agent_link {
    int fd;                 /* -1: not connected */
    bool broken;            /* a write or read failed: the agent went away */
    unsigned task;          /* registered task id */
    char *in;               /* bytes read, not yet a whole line */
    size_t in_len, in_cap;
};

/* Connects to the agent at path (NULL: the default socket). With
 * start_agent, starts 'tally agent' (this executable) when nobody listens
 * and waits (up to 10 s) for its socket. 0, or -1 with why. */
int agent_link_open(struct agent_link *link, const char *path, bool start_agent, char *why,
                    size_t why_size);
void agent_link_close(struct agent_link *link);

/* Sends one line (a JSON object: steals the reference). -1 when broken. */
int agent_link_send(struct agent_link *link, json_t *message);
/* Sends raw text followed by a newline. -1 when broken. */
int agent_link_send_text(struct agent_link *link, const char *text);
/* The next line as JSON (NULL at end, on error, or after timeout seconds;
 * timeout < 0: wait as long as it takes; 0: only what has arrived). Lines
 * that are not JSON objects are skipped. */
json_t *agent_link_read(struct agent_link *link, double timeout);

/* 'tally run --agent': registers the tree of this process as a task of app
 * (category: the task's, or NULL).
 * 0, or -1 with why (the agent refused, or did not answer in 5 s). */
int agent_link_register(struct agent_link *link, const char *app, const char *category,
                        const char *command, char *why, size_t why_size);
/* Streams one sample (never blocks for long; a broken link is left alone). */
void agent_link_sample(struct agent_link *link, const struct task_sample *sample);

#endif
