/* The agent's local transport: a Unix stream socket in a directory only its
 * user can enter. Path: $TALLY_AGENT when set (every tally command takes
 * it as its default socket), else $XDG_RUNTIME_DIR/tally/agent.sock, or
 * /tmp/tally-UID/agent.sock without XDG_RUNTIME_DIR. Every peer is checked
 * with SO_PEERCRED, both ways: the agent serves only its own user, and a
 * client talks only to an agent of its own user, in a directory of its own. One agent per user
 * and directory: an exclusive lock on agent.lock (flock), which also holds
 * the agent's pid. */
#ifndef TALLY_CLIENT_AGENT_SOCKET_H
#define TALLY_CLIENT_AGENT_SOCKET_H

#include <stddef.h>
#include <sys/types.h>

/* The default socket path for the calling user. 0, or -1 when it does not fit. */
int agent_socket_default_path(char *path, size_t size);

/* Creates the socket's directory (mode 0700), or checks that the existing
 * one is a directory (not a symbolic link) of the user's own, not open to
 * others. 0, or -1 with why naming the owner or the mode. The agent calls
 * it before it puts anything there (its log, its lock, its socket). */
int agent_socket_prepare(const char *path, char *why, size_t why_size);

/* agent_socket_prepare, then takes the lock and listens. Returns
 * the listening fd (non-blocking, close-on-exec) with *lock_fd set, or -1
 * with why set (another agent holds the lock: why says so, with its pid). */
int agent_socket_listen(const char *path, int *lock_fd, char *why, size_t why_size);

/* Connects (blocking, close-on-exec) after checking that the socket's
 * directory is the user's own and closed to others, and that the server
 * runs as the user (SO_PEERCRED). Returns the fd; -1 with errno when there
 * is nothing to connect to (ENOENT, ECONNREFUSED: an agent may be started
 * there); -2 with why when the socket is refused (someone else's). */
int agent_socket_connect(const char *path, char *why, size_t why_size);

/* Checks the peer of an accepted connection: 0 when it runs as this user,
 * else -1 with why ("peer uid 1001 is not the agent's user (uid 0)"). */
int agent_socket_check_peer(int fd, char *why, size_t why_size);

/* The pid written in the lock file of the agent whose socket is path, or 0. */
pid_t agent_socket_owner(const char *path);

/* Where a 'tally run --agent' whose agent is gone keeps its summary
 * (DIR/spool beside the socket, one NAME.summary file each), for the next
 * agent started on that socket to archive. 0, or -1 when it does not fit. */
int agent_socket_spool_dir(const char *path, char *dir, size_t size);

#endif
