/* What 'tally contract check' and 'watch' print for a level and their
 * --on-violation action (see contract_output.h). */
#include "cli/contract_output.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"

static void set_env_number(const char *name, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.6g", v);
    setenv(name, buf, 1);
}

/* --on-violation: sh -c CMD with the violation in the environment, once per
 * process and space each time its overall level rises to the threshold. */
static void run_action(struct check_output *out, const struct contract_level *l)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        tally_error_errno("%s: --on-violation: fork", out->command);
        out->actions_failed++;
        return;
    }
    if (pid == 0) {
        setenv("TALLY_CONTRACT_PROCESS", l->process, 1);
        setenv("TALLY_CONTRACT_HOST", l->host, 1);
        setenv("TALLY_CONTRACT_SPACE", space_name(l->space), 1);
        set_env_number("TALLY_CONTRACT_LEVEL", l->level);
        set_env_number("TALLY_CONTRACT_TIME", l->time);
        setenv("TALLY_CONTRACT_EXPLANATION", l->explanation ? l->explanation : "", 1);
        execl("/bin/sh", "sh", "-c", out->on_violation, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        tally_error("%s: --on-violation command failed (status %d)", out->command,
                    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        out->actions_failed++;
    }
}

void contract_print_level(void *ctx, const struct contract_level *l)
{
    struct check_output *out = ctx;
    if (out->json) {
        json_t *o = json_pack("{s:s,s:s,s:f,s:f,s:s,s:s,s:f,s:I,s:f,s:f}", "process", l->process, "host", l->host,
                              "t", l->time, "period", l->period, "space", space_name(l->space), "dimension",
                              l->dimension, "level", round(l->level * 1e4) / 1e4, "cluster", (json_int_t)l->cluster,
                              "distance", l->distance, "cluster_distance", l->cluster_distance);
        if (o && !l->overall) {
            json_object_set_new(o, "value", json_real(l->value));
            json_object_set_new(o, "expected", json_real(l->expected));
            if (l->service != 1)
                json_object_set_new(o, "service", json_real(l->service));
            if (l->window != l->period)
                json_object_set_new(o, "window", json_real(l->window));
        }
        if (o && !isnan(l->since))
            json_object_set_new(o, "since", json_real(l->since));
        if (o && l->explanation)
            json_object_set_new(o, "explanation", json_string(l->explanation));
        char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
        if (text)
            puts(text);
        free(text);
        json_decref(o);
    } else if (l->overall && l->level >= out->threshold) {
        printf("%s\n", l->explanation);
    }
    if (l->overall && l->onset && out->on_violation)
        run_action(out, l);
}
