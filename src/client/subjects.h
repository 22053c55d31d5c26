/* NATS subjects of tally's requests, and which of them a request goes to.
 *
 *   tally.<user>.req.all            every agent of the user (app_get_list, ...)
 *   tally.<user>.req.site.<site>    the agents of a site
 *   tally.<user>.req.node.<host>    the agent of one host
 *   tally.<user>.req.app.<app>      the agents hosting a process of the application
 *                                    (each agent subscribes while it hosts one)
 *
 * Replies go to the tool's inbox, _INBOX.<user>.<unique>. A site's
 * nats-server gives user U publish and subscribe rights on tally.U.> and
 * _INBOX.U.> only (see docs/agent-nats.md), so routing by subject is also
 * the security boundary: a tool cannot even address another user's agents.
 * Names are escaped into one subject token: '.', '*', '>', '%', spaces and
 * control characters become %XX. */
#ifndef TALLY_CLIENT_SUBJECTS_H
#define TALLY_CLIENT_SUBJECTS_H

#include <stddef.h>

#include "request/request.h"

enum subject_scope { SUBJECT_ALL, SUBJECT_SITE, SUBJECT_NODE, SUBJECT_APP };

/* Writes the subject; returns 0, or -1 when it does not fit. */
int subject_for(const char *user, enum subject_scope scope, const char *name, char *out, size_t size);
/* Escapes name into one subject token. 0 or -1 when it does not fit. */
int subject_escape(const char *name, char *out, size_t size);

struct subject_route {
    char **subjects;         /* distinct subjects to publish the request on */
    size_t count, capacity;
    size_t exact_answers;    /* > 0: exactly this many agents answer (node-addressed);
                                0: an unknown number (sites, applications, all) */
};

/* Which subjects a parsed request goes to: the nodes of p_PID@HOST and n_HOST
 * tokens, the applications of app_ tokens, the sites of site_ tokens;
 * p_PID without a host means local_host; a request naming none of these
 * (app_get_list(), c_/csr_ only) goes to every agent of the user, or to
 * default_node when one is given (a tool addressing one agent). */
int subject_route(const struct request *request, const char *user, const char *local_host,
                  const char *default_node, struct subject_route *out);
void subject_route_free(struct subject_route *route);

#endif
