/* The user's agent configuration, $XDG_CONFIG_HOME/tally/agent.conf (else
 * ~/.config/tally/agent.conf): how an agent started without options (by
 * 'tally run --agent', by a rank of another host's run, by the Slurm plugin)
 * joins its site's NATS, and how 'tally run --mpi' reaches the other hosts'
 * agents. Lines "key = value"; '#' starts a comment; keys:
 *   nats  = nats://host:port   the site's nats-server (none: this host only)
 *   creds = FILE               credentials (.creds, or one line user:password);
 *                              relative to the file's directory
 *   site  = NAME               the site's name (default local)
 *   user  = NAME               whose NATS subjects (default: the login name)
 * Documented in man/tally-agent.1 and docs/agent-nats.md. */
#ifndef TALLY_CLIENT_AGENT_CONF_H
#define TALLY_CLIENT_AGENT_CONF_H

#include <stddef.h>

struct agent_conf {
    char nats[512];    /* "" when not set */
    char creds[4096];
    char site[128];
    char user[128];
};

/* The file's path. 0, or -1 when neither XDG_CONFIG_HOME nor HOME is set. */
int agent_conf_path(char *out, size_t size);
/* Parses text (len bytes). 0, or -1 with why ("line N: ..."). */
int agent_conf_parse(const char *text, size_t len, struct agent_conf *c, char *why, size_t why_size);
/* Reads the user's file: 0 (an absent file leaves c empty), or -1 with why
 * ("PATH: line N: ..."). creds is made absolute. */
int agent_conf_load(struct agent_conf *c, char *why, size_t why_size);

#endif
