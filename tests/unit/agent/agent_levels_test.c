/* The agent's kept contract levels (src/agent/agent_levels.c): a message
 * replaces its application's levels and no other's, an empty list forgets
 * them, a malformed message is refused whole (what was kept stays), and the
 * exposition is one escaped gauge line per level; a process's levels are
 * found by pid with their overall and worst dimension; an agent reached over
 * NATS keeps only its own host's levels. */
#include <jansson.h>
#include <stdlib.h>

#include "agent/agent_levels.h"
#include "test.h"

static const char MSG1[] = "{\"op\":\"levels\",\"app\":\"mw\",\"levels\":["
                        "{\"process\":\"7\",\"host\":\"n1\",\"space\":\"intrinsic\",\"dimension\":\"compute\",\"level\":1},"
                        "{\"process\":\"7\",\"host\":\"n1\",\"space\":\"intrinsic\",\"dimension\":\"overall\",\"level\":1}]}";
static const char MSG2[] = "{\"op\":\"levels\",\"app\":\"x\\\"y\",\"levels\":["
                        "{\"process\":\"a\\nb\",\"host\":\"n2\",\"space\":\"execution\",\"dimension\":\"compute\",\"level\":0.25}]}";
static const char MSG3[] = "{\"op\":\"levels\",\"app\":\"mw\",\"levels\":["
                        "{\"process\":\"8\",\"host\":\"n1\",\"space\":\"intrinsic\",\"dimension\":\"compute\",\"level\":0}]}";
static const char MSG4[] = "{\"op\":\"levels\",\"app\":\"mw\",\"levels\":["
                        "{\"process\":\"9\",\"host\":\"n1\",\"space\":\"intrinsic\",\"dimension\":\"compute\",\"level\":1},"
                        "{\"process\":\"9\",\"host\":\"n1\",\"space\":\"intrinsic\",\"level\":1}]}";
static const char MSG5[] = "{\"op\":\"levels\",\"levels\":[]}";
static const char MSG6[] = "{\"op\":\"levels\",\"app\":\"mw\",\"levels\":{}}";
static const char MSG7[] = "{\"op\":\"levels\",\"app\":\"mw\",\"levels\":[]}";

/* a period of two processes on two hosts, with pids, threshold and time */
static const char MSG8[] = "{\"op\":\"levels\",\"app\":\"mw\",\"threshold\":0.4,\"time\":1700000000.5,\"levels\":["
                        "{\"process\":\"7\",\"host\":\"n1\",\"pid\":4242,\"space\":\"intrinsic\",\"dimension\":\"compute\",\"level\":0.75},"
                        "{\"process\":\"7\",\"host\":\"n1\",\"pid\":4242,\"space\":\"intrinsic\",\"dimension\":\"communicate\",\"level\":0.25},"
                        "{\"process\":\"7\",\"host\":\"n1\",\"pid\":4242,\"space\":\"intrinsic\",\"dimension\":\"overall\",\"level\":0.75},"
                        "{\"process\":\"7\",\"host\":\"n1\",\"pid\":4242,\"space\":\"execution\",\"dimension\":\"compute\",\"level\":0.5},"
                        "{\"process\":\"7\",\"host\":\"n1\",\"pid\":4242,\"space\":\"execution\",\"dimension\":\"overall\",\"level\":0.5},"
                        "{\"process\":\"3\",\"host\":\"n2\",\"pid\":99,\"space\":\"intrinsic\",\"dimension\":\"overall\",\"level\":0}]}";
static const char MSG9[] = "{\"op\":\"levels\",\"app\":\"mw\",\"levels\":["
                        "{\"process\":\"7\",\"host\":\"n1\",\"pid\":-3,\"space\":\"intrinsic\",\"dimension\":\"overall\",\"level\":0}]}";

static long apply_on(struct agent_levels **k, const char *text, const char *only_host, char *why,
                     size_t len)
{
    json_t *msg = json_loads(text, 0, NULL);
    long n = agent_levels_apply(k, msg, only_host, why, len);
    json_decref(msg);
    return n;
}

static long apply(struct agent_levels **k, const char *text, char *why, size_t len)
{
    json_t *msg = json_loads(text, 0, NULL);
    long n = agent_levels_apply(k, msg, NULL, why, len);
    json_decref(msg);
    return n;
}

static char *exposition(const struct agent_levels *k)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    agent_levels_write(k, "ann", out);
    fclose(out);
    return text;
}

static size_t count_lines(const char *text, const char *prefix)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, prefix)); p++)
        n++;
    return n;
}

int main(void)
{
    struct agent_levels *k = NULL;
    char why[300];
    CHECK_INT(apply(&k, MSG1, why, sizeof why), 2);
    CHECK_INT(apply(&k, MSG2, why, sizeof why), 1);
    char *text = exposition(k);
    CHECK_CONTAINS(text, "# TYPE tally_contract_violation gauge\n");
    CHECK_CONTAINS(text, "tally_contract_violation{app=\"mw\",process=\"7\",host=\"n1\",space=\"intrinsic\","
                         "dimension=\"compute\",user=\"ann\"} 1\n");
    CHECK_CONTAINS(text, "{app=\"x\\\"y\",process=\"a\\nb\",host=\"n2\"");
    CHECK_CONTAINS(text, "} 0.25\n");
    CHECK_INT(count_lines(text, "\ntally_contract_violation{"), 3);
    free(text);
    /* a new batch replaces mw's levels only */
    CHECK_INT(apply(&k, MSG3, why, sizeof why), 1);
    text = exposition(k);
    CHECK(!strstr(text, "process=\"7\""));
    CHECK_CONTAINS(text, "process=\"8\"");
    CHECK_CONTAINS(text, "app=\"x\\\"y\"");
    free(text);
    /* refused whole: a bad entry, a missing app, a non-finite level */
    CHECK_INT(apply(&k, MSG4, why, sizeof why), -1);
    CHECK_CONTAINS(why, "entry 2 needs");
    CHECK_INT(apply(&k, MSG5, why, sizeof why), -1);
    CHECK_CONTAINS(why, "needs \"app\"");
    CHECK_INT(apply(&k, MSG6, why, sizeof why), -1);
    text = exposition(k);
    CHECK_CONTAINS(text, "process=\"8\""); /* what was kept stays */
    CHECK(!strstr(text, "process=\"9\""));
    free(text);
    /* an empty list forgets the application */
    CHECK_INT(apply(&k, MSG7, why, sizeof why), 0);
    text = exposition(k);
    CHECK(!strstr(text, "app=\"mw\""));
    CHECK_INT(count_lines(text, "\ntally_contract_violation{"), 1);
    free(text);
    /* none kept yet: only the family's header */
    text = exposition(NULL);
    CHECK_INT(count_lines(text, "tally_contract_violation{"), 0);
    free(text);
    agent_levels_free(k);

    /* a process's levels by pid: overall the largest overall, worst the
     * largest other dimension */
    k = NULL;
    CHECK_INT(apply(&k, MSG8, why, sizeof why), 6);
    json_t *p = agent_levels_of_process(k, 4242);
    CHECK(p != NULL);
    CHECK_STR(json_string_value(json_object_get(p, "process")), "7");
    CHECK_STR(json_string_value(json_object_get(p, "app")), "mw");
    CHECK_NEAR(json_number_value(json_object_get(p, "overall")), 0.75, 1e-12);
    CHECK_NEAR(json_number_value(json_object_get(p, "threshold")), 0.4, 1e-12);
    CHECK_NEAR(json_number_value(json_object_get(p, "time")), 1700000000.5, 1e-6);
    json_t *worst = json_object_get(p, "worst");
    CHECK_STR(json_string_value(json_object_get(worst, "space")), "intrinsic");
    CHECK_STR(json_string_value(json_object_get(worst, "dimension")), "compute");
    CHECK_NEAR(json_number_value(json_object_get(worst, "level")), 0.75, 1e-12);
    CHECK_INT(json_array_size(json_object_get(p, "levels")), 5);
    json_decref(p);
    p = agent_levels_of_process(k, 99);
    CHECK_NEAR(json_number_value(json_object_get(p, "overall")), 0, 1e-12);
    CHECK(!json_object_get(p, "worst")); /* only an overall was sent */
    json_decref(p);
    CHECK(agent_levels_of_process(k, 4243) == NULL);
    CHECK(agent_levels_of_process(k, 0) == NULL);
    CHECK(agent_levels_of_process(NULL, 4242) == NULL);
    /* a bad pid refuses the message */
    CHECK_INT(apply(&k, MSG9, why, sizeof why), -1);
    CHECK_CONTAINS(why, "\"pid\" (a pid)");
    agent_levels_free(k);

    /* the agent of n2 keeps only n2's levels */
    k = NULL;
    CHECK_INT(apply_on(&k, MSG8, "n2", why, sizeof why), 1);
    CHECK(agent_levels_of_process(k, 4242) == NULL);
    p = agent_levels_of_process(k, 99);
    CHECK_STR(json_string_value(json_object_get(p, "process")), "3");
    json_decref(p);
    text = exposition(k);
    CHECK_INT(count_lines(text, "\ntally_contract_violation{"), 1);
    CHECK_CONTAINS(text, "host=\"n2\"");
    free(text);
    /* its empty list (the watch stopping) forgets them */
    CHECK_INT(apply_on(&k, MSG7, "n2", why, sizeof why), 0);
    CHECK(agent_levels_of_process(k, 99) == NULL);
    agent_levels_free(k);
    return test_done();
}
