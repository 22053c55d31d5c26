/* The followed trees (agent_tree.c): tasks and their processes, the tick, the end of a task and its archiving.
 * Part of the agent; not a public interface. */
#ifndef TALLY_AGENT_AGENT_TREE_H
#define TALLY_AGENT_AGENT_TREE_H

#include "agent/agent_state.h"

struct agent_task *agent_task_add(struct agent *a, const char *app, const char *command,
                                  pid_t root, bool include_root);
struct agent_task *agent_task_find(const struct agent *a, unsigned id);
/* Attaches a running tree by pid (level-1 follower). NULL with why. */
struct agent_task *agent_attach(struct agent *a, pid_t pid, const char *app, char *why,
                                size_t why_size);
/* A task registered by 'tally run --agent' at level 1: the agent follows
 * its command's tree (pid, a child of the runner) with a level-1 follower
 * fed by the shared scan, and its tally run only waits. -1 with why. */
int agent_task_follow(struct agent *a, struct agent_task *t, pid_t pid, char *why, size_t why_size);
/* The runner saw its command end: the follower's final values as a summary
 * (new reference), for the runner to merge with the kernel's exact totals;
 * NULL when the agent does not follow the task. The task stays until the
 * runner's "finished". */
json_t *agent_task_follow_end(struct agent *a, struct agent_task *t);
/* The runners of these tasks went away without ending them (killed): the
 * agent ends what is left of each guarded tree, as the runner's guardian
 * would have, all of them together (proc_trees_end: one /proc scan per
 * round, however many runners died at once), and says so in its log. */
void agent_tasks_runners_lost(struct agent *a, struct agent_task *const tasks[], size_t n);
/* A process joined (started) or left the task, as its tally run saw it at
 * level 2 (every process, however short, at once). */
void agent_task_process(struct agent *a, struct agent_task *t, pid_t pid, bool started);
/* A scan of every tree now (agent_tick's, also between ticks): the
 * processes of a task added since the last tick become known (a request
 * naming its application right after tally run started it); those known
 * already keep the tick's readings (cores, series). */
void agent_tasks_scan(struct agent *a);

/* The task of pid, as agent_task_of, but a pid the agent does not know (a
 * process started since the last scan: a request naming it the moment it
 * started) makes the agent scan its trees first, unless a scan began less
 * than 10 ms ago or is under way (requests naming many unknown pids cost one
 * scan, and none nests in another). */
const struct agent_task *agent_task_of_rescanned(struct agent *a, pid_t pid);
/* One tick: the shared scan, every tree's processes, events, samples, ends. */
void agent_tick(struct agent *a);
/* A task has ended: its summary to the archive, its processes dropped. */
void agent_task_end(struct agent *a, struct agent_task *t, json_t *summary);
/* Archives the summaries a 'tally run --agent' kept in the spool while no
 * agent ran (agent_socket_spool_dir), removing each one archived. */
void agent_archive_spool(struct agent *a);
void agent_task_free(struct agent_task *t);
/* The task of a live process, or NULL when pid belongs to no followed tree. */
struct agent_task *agent_task_of(const struct agent *a, pid_t pid);

#endif
