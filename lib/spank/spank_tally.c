/* spank_tally.so: the Slurm SPANK plugin that measures every task of a step
 * with 'tally run' (man/tally-slurm.7).
 *
 * srun/sbatch/salloc get --tally[=DIR], --tally-mpi and --tally-level=1|2.
 * In slurmstepd, just before each task is executed (slurm_spank_task_init,
 * running as the user), the task process replaces itself with
 *   tally run --level L -o DIR/slurm-JOB.STEP.TASK --agent --app slurm_JOB
 *             --annotate '{"slurm": {...}, "requested": {...}}' [--mpi] -- ARGV
 * so the task is tally run's child, measured exactly as 'tally run' measures
 * it, registered with the node's agent (the user's, started if none runs),
 * and its exit status is the task's. What the job asked for (memory, cores,
 * time) goes into the summary beside what was used.
 *
 * The plugin never fails a job: whatever tally cannot do (DIR unwritable,
 * tally missing, exec failing) is said once on the job's stderr (by the
 * node's first task) and the task runs unmeasured.
 *
 * plugstack.conf arguments: tally=PATH (the tally program; default the
 * installed one), level=1|2 (the default level; 1 unless set).
 *
 * With --tally-mpi, the step also gets one MPI summary of all its ranks,
 * DIR/slurm-JOB.STEP.mpi.summary (and .mpi.paje), written by task 0's
 * tally run (TALLY_SLURM_STEP_PREFIX names it; src/cli/run_slurm_step.h).
 *
 * A SPANK plugin is a set of callbacks into one slurmstepd (or srun)
 * process per step, so its settings are file-scope variables: that is
 * Slurm's model, and nothing else in tally is linked with this file. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

SPANK_PLUGIN(tally, 1);

#ifndef TALLY_DEFAULT_PROGRAM
#define TALLY_DEFAULT_PROGRAM "/usr/local/bin/tally"
#endif

/* The step's settings (options and plugstack.conf arguments). */
static int enabled;                 /* --tally given */
static int with_mpi;                /* --tally-mpi */
static int level;                   /* 0: the plugstack default */
static int default_level = 1;
static char dir[PATH_MAX];          /* "" = the task's working directory */
static char program[PATH_MAX] = TALLY_DEFAULT_PROGRAM;
static char problem[512];           /* why the step's tasks run unmeasured, "" if none */
static long long time_limit_s = -1; /* the job's time limit, -1 unknown */

static int set_problem(const char *format, ...) __attribute__((format(printf, 1, 2)));
static int set_problem(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vsnprintf(problem, sizeof problem, format, ap);
    va_end(ap);
    return 0;
}

static int parse_level(const char *text, int *out)
{
    if (text && (!strcmp(text, "1") || !strcmp(text, "2"))) {
        *out = text[0] - '0';
        return 0;
    }
    return -1;
}

static int on_tally(int val, const char *optarg, int remote)
{
    enabled = 1;
    if (optarg && *optarg) {
        if (strlen(optarg) >= sizeof dir) {
            slurm_error("tally: --tally=%s: the directory name is too long", optarg);
            return -1;
        }
        snprintf(dir, sizeof dir, "%s", optarg);
    }
    return 0;
}

static int on_tally_mpi(int val, const char *optarg, int remote)
{
    enabled = 1;
    with_mpi = 1;
    return 0;
}

static int on_tally_level(int val, const char *optarg, int remote)
{
    if (parse_level(optarg, &level) < 0) {
        slurm_error("tally: --tally-level=%s: not 1 or 2", optarg ? optarg : "");
        return -1;
    }
    enabled = 1;
    return 0;
}

static struct spank_option options[] = {
    {"tally", "DIR",
     "measure every task with tally run; one summary per task, "
     "DIR/slurm-JOB.STEP.TASK.summary (DIR: the working directory by default)",
     2, 0, on_tally},
    {"tally-mpi", NULL, "with --tally: preload libtally-mpi into the tasks (tally run --mpi)", 0, 0,
     on_tally_mpi},
    {"tally-level", "1|2", "with --tally: 1 /proc polling (default), 2 process events", 1, 0,
     on_tally_level},
    SPANK_OPTIONS_TABLE_END,
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    for (int i = 0; i < ac; i++) {
        if (!strncmp(av[i], "tally=", 6) && strlen(av[i] + 6) < sizeof program)
            snprintf(program, sizeof program, "%s", av[i] + 6);
        else if (!strncmp(av[i], "level=", 6) && parse_level(av[i] + 6, &default_level) == 0)
            ;
        else
            slurm_error("tally: plugstack.conf: unknown argument '%s' (tally=PATH, level=1|2)",
                        av[i]);
    }
    for (struct spank_option *o = options; o->name; o++)
        if (spank_option_register(sp, o) != ESPANK_SUCCESS)
            slurm_error("tally: cannot register option --%s", o->name);
    return 0;
}

/* The job's time limit from the controller (not in the step's items). */
static void read_time_limit(uint32_t job_id)
{
    job_info_msg_t *msg = NULL;
    if (slurm_load_job(&msg, job_id, SHOW_DETAIL) != 0 || !msg)
        return;
    if (msg->record_count > 0) {
        uint32_t minutes = msg->job_array[0].time_limit;
        if (minutes != INFINITE && minutes != NO_VAL)
            time_limit_s = (long long)minutes * 60;
    }
    slurm_free_job_info_msg(msg);
}

/* True when a file can be created in DIR (access() would say yes to root
 * on a directory where nothing can be created, /proc for one). */
static int can_create_in(const char *where)
{
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/.tally-probe-XXXXXX", where);
    int fd = mkstemp(probe);
    if (fd < 0)
        return 0;
    close(fd);
    unlink(probe);
    return 1;
}

/* Once per step on each node, in slurmstepd as the user: is tally usable? */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    if (!enabled || !spank_remote(sp))
        return 0;
    problem[0] = '\0';
    if (access(program, X_OK) < 0)
        return set_problem("%s: %s", program, strerror(errno));
    if (dir[0] && !can_create_in(dir))
        return set_problem("--tally=%s: %s", dir, strerror(errno));
    uint32_t job_id = 0;
    if (spank_get_item(sp, S_JOB_ID, &job_id) == ESPANK_SUCCESS)
        read_time_limit(job_id);
    return 0;
}

static void step_name(uint32_t step, char *out, size_t size)
{
    if (step == SLURM_BATCH_SCRIPT)
        snprintf(out, size, "batch");
    else if (step == SLURM_EXTERN_CONT)
        snprintf(out, size, "extern");
    else if (step == SLURM_INTERACTIVE_STEP)
        snprintf(out, size, "interactive");
    else
        snprintf(out, size, "%u", step);
}

/* A JSON string of plain text (node names, step names): quotes and
 * backslashes escaped, control characters dropped. */
static void json_text(const char *in, char *out, size_t size)
{
    size_t n = 0;
    for (; *in && n + 3 < size; in++) {
        if (*in == '"' || *in == '\\')
            out[n++] = '\\';
        if ((unsigned char)*in >= 0x20)
            out[n++] = *in;
    }
    out[n] = '\0';
}

/* Says problem[] once per step and node: only the node's first task does. */
static void say_problem_once(spank_t sp)
{
    int local = -1;
    spank_get_item(sp, S_TASK_ID, &local);
    if (local == 0)
        dprintf(STDERR_FILENO, "tally: slurm: %s; the tasks run unmeasured\n", problem);
}

/* Just before the task is executed, in its own process, as the user:
 * becomes tally run with the task as its command. Returning means the
 * task runs as it would without the plugin. */
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
    if (!enabled || !spank_remote(sp))
        return 0;
    if (problem[0]) {
        say_problem_once(sp);
        return 0;
    }
    uint32_t job = 0, step = 0, task = 0;
    uint16_t ncpus = 0;
    uint64_t mem_mb = 0;
    int argc = 0;
    char **argv = NULL, **env = NULL;
    if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_TASK_GLOBAL_ID, &task) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS || argc < 1) {
        set_problem("cannot read the task's job, step, command or environment from Slurm");
        say_problem_once(sp);
        return 0;
    }
    spank_get_item(sp, S_JOB_NCPUS, &ncpus);
    if (spank_get_item(sp, S_JOB_ALLOC_MEM, &mem_mb) != ESPANK_SUCCESS)
        mem_mb = 0;

    char stepname[32], node[256] = "", node_json[512], cwd[PATH_MAX];
    step_name(step, stepname, sizeof stepname);
    if (spank_getenv(sp, "SLURMD_NODENAME", node, sizeof node) != ESPANK_SUCCESS || !node[0])
        gethostname(node, sizeof node - 1);
    json_text(node, node_json, sizeof node_json);
    const char *where = dir;
    if (!where[0]) {
        where = getcwd(cwd, sizeof cwd) ? cwd : ".";
        if (!can_create_in(where)) {
            set_problem("the working directory %s: %s (give --tally=DIR)", where, strerror(errno));
            say_problem_once(sp);
            return 0;
        }
    }

    char prefix[PATH_MAX + 64], app[64], level_text[4], annotate[2048], requested[512];
    snprintf(prefix, sizeof prefix, "%s/slurm-%u.%s.%u", where, job, stepname, task);
    snprintf(app, sizeof app, "slurm_%u", job);
    snprintf(level_text, sizeof level_text, "%d", level ? level : default_level);
    int n = snprintf(requested, sizeof requested, "\"cores\": [%u, \"cores\"]", (unsigned)ncpus);
    if (mem_mb > 0 && n > 0 && (size_t)n < sizeof requested)
        n += snprintf(requested + n, sizeof requested - (size_t)n, ", \"memory\": [%llu, \"MB\"]",
                      (unsigned long long)mem_mb);
    if (time_limit_s >= 0 && n > 0 && (size_t)n < sizeof requested)
        snprintf(requested + n, sizeof requested - (size_t)n, ", \"wall_time\": [%lld, \"s\"]",
                 time_limit_s);
    snprintf(annotate, sizeof annotate,
             "{\"slurm\": {\"job_id\": %u, \"step\": \"%s\", \"task\": %u, \"node\": \"%s\"}, "
             "\"requested\": {%s}}",
             job, stepname, task, node_json, requested);

    /* tally run's options, then -- and the task's own argv. */
    /* The batch script is measured too, but it is no MPI rank: the ranks
     * are the tasks of the steps it starts. */
    int mpi = with_mpi && step != SLURM_BATCH_SCRIPT;
    const char *head[] = {program, "run", "--unmeasured-on-error", "--level", level_text, "-o",
                          prefix, "--agent", "--app", app, "--annotate", annotate,
                          mpi ? "--mpi" : NULL};
    size_t nhead = sizeof head / sizeof head[0] - (mpi ? 0 : 1);
    char **args = calloc(nhead + 1 + (size_t)argc + 1, sizeof *args);
    if (!args) {
        set_problem("out of memory");
        say_problem_once(sp);
        return 0;
    }
    size_t k = 0;
    for (size_t i = 0; i < nhead; i++)
        args[k++] = (char *)head[i];
    args[k++] = "--";
    for (int i = 0; i < argc; i++)
        args[k++] = argv[i];
    args[k] = NULL;
    /* A hook for the MPI side: TALLY_SLURM_MPI=1 in the task tells
     * libtally-mpi (and tally run) that Slurm started the ranks. */
    if (mpi) {
        /* tally run of task 0 gathers the step's ranks into
         * DIR/slurm-JOB.STEP.mpi.summary and .mpi.paje (the others hand
         * theirs to their node's agent): src/cli/run_slurm_step.h */
        char step_prefix[PATH_MAX + 64];
        snprintf(step_prefix, sizeof step_prefix, "%s/slurm-%u.%s", where, job, stepname);
        spank_setenv(sp, "TALLY_SLURM_MPI", "1", 1);
        spank_setenv(sp, "TALLY_SLURM_STEP_PREFIX", step_prefix, 1);
    }
    spank_get_item(sp, S_JOB_ENV, &env);
    execve(program, args, env);
    set_problem("cannot execute %s: %s", program, strerror(errno));
    say_problem_once(sp);
    free(args);
    return 0;
}
