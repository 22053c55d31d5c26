/* Unit tests for the user's agent configuration (src/client/agent_conf.c):
 * the four keys, comments and blanks, and each refusal naming its line. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/agent_conf.h"
#include "test.h"

static int parse(const char *text, struct agent_conf *c, char *why)
{
    return agent_conf_parse(text, strlen(text), c, why, 300);
}

int main(void)
{
    struct agent_conf c;
    char why[300];
    CHECK(parse("# site alpha\n\nnats = nats://h:4222  # the hub\ncreds=alice.creds\n site = alpha\nuser = alice\n",
                &c, why) == 0);
    CHECK(!strcmp(c.nats, "nats://h:4222"));
    CHECK(!strcmp(c.creds, "alice.creds"));
    CHECK(!strcmp(c.site, "alpha"));
    CHECK(!strcmp(c.user, "alice"));
    CHECK(parse("", &c, why) == 0);
    CHECK(!strcmp(c.nats, ""));
    CHECK(parse("nats = nats://h:1\nsite alpha\n", &c, why) == -1);
    CHECK_STR(why, "line 2: expected 'key = value'");
    CHECK(parse("url = nats://h:1\n", &c, why) == -1);
    CHECK_STR(why, "line 1: unknown key 'url' (nats, creds, site, user)");
    CHECK(parse("site =\n", &c, why) == -1);
    CHECK_STR(why, "line 1: site: empty value");
    CHECK(parse("nats = http://h:1\n", &c, why) == -1);
    CHECK_STR(why, "nats: 'http://h:1' is not a nats:// URL");
    /* the file: relative creds are taken from the file's directory; absent: empty */
    char dir[] = "/tmp/agent-conf-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("XDG_CONFIG_HOME", dir, 1);
    CHECK(agent_conf_load(&c, why, sizeof why) == 0);
    CHECK(!strcmp(c.nats, ""));
    char path[200], expect[600];
    snprintf(path, sizeof path, "%s/tally", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/tally/agent.conf", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("nats = nats://127.0.0.1:4222\ncreds = me.creds\n", f);
    fclose(f);
    CHECK(agent_conf_load(&c, why, sizeof why) == 0);
    snprintf(expect, sizeof expect, "%s/tally/me.creds", dir);
    CHECK(!strcmp(c.creds, expect));
    f = fopen(path, "w");
    fputs("nats = nats://127.0.0.1:4222\nbogus\n", f);
    fclose(f);
    CHECK(agent_conf_load(&c, why, sizeof why) == -1);
    snprintf(expect, sizeof expect, "%s: line 2: expected 'key = value'", path);
    CHECK(!strcmp(why, expect));
    unlink(path);
    snprintf(path, sizeof path, "%s/tally", dir);
    rmdir(path);
    rmdir(dir);
    return test_done();
}
