/* rank_cover: counting the ranks the agents' done lines say they hold. */
#include "client/rank_cover.h"

#include "test.h"

static void take(struct rank_cover *c, const char *text)
{
    json_t *line = json_loads(text, 0, NULL);
    rank_cover_take(c, line);
    json_decref(line);
}

int main(void)
{
    struct rank_cover c = {0};
    char missing[400];

    take(&c, "{\"done\": true, \"errors\": []}");
    CHECK(!rank_cover_known(&c));
    CHECK(!rank_cover_complete(&c));

    /* 4 ranks on 2 hosts: complete at the second agent */
    take(&c, "{\"done\": true, \"ranks_here\": [{\"of\": 4, \"ranks\": [0, 1]}]}");
    CHECK(rank_cover_known(&c));
    CHECK(!rank_cover_complete(&c));
    rank_cover_missing(&c, missing, sizeof missing);
    CHECK_STR(missing, "ranks 2-3 of 4");
    take(&c, "{\"done\": true, \"ranks_here\": [{\"of\": 4, \"ranks\": [3, 2]}]}");
    CHECK(rank_cover_complete(&c));
    rank_cover_missing(&c, missing, sizeof missing);
    CHECK_STR(missing, "");
    rank_cover_free(&c);

    /* a rank named twice (an agent reached twice) counts once; out of range, bad sizes, not numbers: passed over */
    take(&c, "{\"done\": true, \"ranks_here\": [{\"of\": 3, \"ranks\": [0, 0, 5, -1, \"1\", 1.0]}, "
             "{\"of\": 0, \"ranks\": [0]}, {\"of\": 99999999999, \"ranks\": [0]}]}");
    CHECK_INT(c.count, 1);
    CHECK_INT(c.worlds[0].named, 1);
    rank_cover_missing(&c, missing, sizeof missing);
    CHECK_STR(missing, "ranks 1-2 of 3");
    take(&c, "{\"done\": true, \"ranks_here\": [{\"of\": 3, \"ranks\": [0, 2]}]}");
    rank_cover_missing(&c, missing, sizeof missing);
    CHECK_STR(missing, "rank 1 of 3");
    CHECK(!rank_cover_complete(&c));

    /* two worlds of one size (two launches of one application): both must be complete */
    rank_cover_free(&c);
    take(&c, "{\"done\": true, \"ranks_here\": [{\"world\": \"a1\", \"of\": 2, \"ranks\": [0, 1]}]}");
    take(&c, "{\"done\": true, \"ranks_here\": [{\"world\": \"b2\", \"of\": 2, \"ranks\": [1]}]}");
    CHECK_INT(c.count, 2);
    CHECK(!rank_cover_complete(&c));
    take(&c, "{\"done\": true, \"ranks_here\": [{\"world\": \"b2\", \"of\": 2, \"ranks\": [0]}]}");
    CHECK(rank_cover_complete(&c));
    rank_cover_free(&c);
    take(&c, "{\"done\": true, \"ranks_here\": [{\"of\": 3, \"ranks\": [0, 2]}]}");

    /* two world sizes: both must be complete */
    take(&c, "{\"done\": true, \"ranks_here\": [{\"of\": 3, \"ranks\": [1]}, {\"of\": 2, \"ranks\": [1]}]}");
    CHECK(!rank_cover_complete(&c));
    rank_cover_missing(&c, missing, sizeof missing);
    CHECK_STR(missing, "rank 0 of 2");
    take(&c, "{\"done\": true, \"ranks_here\": [{\"of\": 2, \"ranks\": [0]}]}");
    CHECK(rank_cover_complete(&c));
    rank_cover_free(&c);

    /* many gaps: the first eight runs are named, then "..." */
    take(&c, "{\"done\": true, \"ranks_here\": [{\"of\": 40, \"ranks\": [1, 3, 5, 7, 9, 11, 13, 15, 17, 19]}]}");
    rank_cover_missing(&c, missing, sizeof missing);
    CHECK_STR(missing, "ranks 0, 2, 4, 6, 8, 10, 12, 14, ... of 40");
    /* a small buffer is cut with "..." */
    char small[12];
    rank_cover_missing(&c, small, sizeof small);
    CHECK_STR(small, "ranks 0,...");
    rank_cover_free(&c);

    /* an agent that began to answer (another launch's, n3) must end its answer too */
    static const char *const lines[] = {
        "{\"node\": \"n1\", \"object\": \"p_1@n1\", \"result\": {}}",
        "{\"node\": \"n3\", \"object\": \"p_7@n3\", \"result\": {}}",
        "{\"node\": \"n1\", \"done\": true, \"ranks_here\": [{\"world\": \"a1\", \"of\": 1, \"ranks\": [0]}]}",
        "{\"node\": \"n3\", \"done\": true, \"ranks_here\": [{\"world\": \"b2\", \"of\": 1, \"ranks\": [0]}]}",
    };
    CHECK(!rank_cover_line(&c, lines[0], strlen(lines[0])));
    CHECK(!rank_cover_line(&c, lines[1], strlen(lines[1])));
    CHECK(rank_cover_line(&c, lines[2], strlen(lines[2])));
    CHECK(!rank_cover_complete(&c)); /* a1 complete, n3 not done */
    CHECK(rank_cover_line(&c, lines[3], strlen(lines[3])));
    CHECK(rank_cover_complete(&c));
    CHECK_INT(c.agent_count, 2);
    rank_cover_free(&c);

    /* at most RANK_COVER_MAX_WORLDS sizes are counted */
    for (int of = 1; of <= RANK_COVER_MAX_WORLDS + 1; of++) {
        char text[100];
        snprintf(text, sizeof text, "{\"done\": true, \"ranks_here\": [{\"of\": %d, \"ranks\": [0]}]}", of);
        take(&c, text);
    }
    CHECK_INT(c.count, RANK_COVER_MAX_WORLDS);
    rank_cover_free(&c);
    return test_done();
}
