/* rm_limits_parse: resource_monitor's -L and --limits-file text onto tally's
 * limits (old names, skipped fields, comments, errors naming the item). */
#include "rmcompat/rm_limits.h"
#include "test.h"

int main(void)
{
    struct limit_set l;
    char why[256], skipped[128];

    limits_clear(&l);
    skipped[0] = '\0';
    CHECK_INT(rm_limits_parse(&l, "memory: 50", why, sizeof why, skipped, sizeof skipped), 0);
    CHECK(l.set[FIELD_MEMORY]);
    CHECK_NEAR(l.max[FIELD_MEMORY], 50, 1e-9); /* a bare number is in MB, as Makeflow writes it */

    limits_clear(&l);
    CHECK_INT(rm_limits_parse(&l, "# from the man page\nresident_memory: 1 GB\nworkdir_footprint: 10\n"
                                  "workdir_number_files_dirs = 7 # trailing comment\n",
                              why, sizeof why, skipped, sizeof skipped), 0);
    CHECK_NEAR(l.max[FIELD_MEMORY], 1024, 1e-9);
    CHECK_NEAR(l.max[FIELD_DISK], 10, 1e-9);
    CHECK_NEAR(l.max[FIELD_TOTAL_FILES], 7, 1e-9);

    limits_clear(&l);
    skipped[0] = '\0';
    CHECK_INT(rm_limits_parse(&l, "bandwidth: 5, wall_time: 2 min; end: 1795426401", why, sizeof why,
                              skipped, sizeof skipped), 0);
    CHECK_STR(skipped, "bandwidth end");
    CHECK_NEAR(l.max[FIELD_WALL_TIME], 120, 1e-9);
    CHECK(!limits_any(&(struct limit_set){0}));

    limits_clear(&l);
    CHECK_INT(rm_limits_parse(&l, "cores: 2, memry: 5", why, sizeof why, NULL, 0), -1);
    CHECK_CONTAINS(why, "'memry'");
    CHECK(!l.set[FIELD_CORES]); /* the set is unchanged after an error */
    CHECK_INT(rm_limits_parse(&l, "memory 5", why, sizeof why, NULL, 0), -1);
    CHECK_CONTAINS(why, "'memory 5'");
    CHECK_INT(rm_limits_parse(&l, "memory: lots", why, sizeof why, NULL, 0), -1);
    CHECK_CONTAINS(why, "memory");
    CHECK_INT(rm_limits_parse(&l, "", why, sizeof why, NULL, 0), 0);
    CHECK_INT(rm_limits_parse(&l, "#only a comment", why, sizeof why, NULL, 0), 0);
    CHECK(!limits_any(&l));
    return test_done();
}
