/* Topology layout: deterministic for a seed, inside the unit square, nodes
 * apart from each other, neighbours closer than non-neighbours. */
#include "test.h"
#include "view/topology.h"

static double dist(struct topology_point a, struct topology_point b)
{
    return sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y));
}

int main(void)
{
    /* two stars of 5 leaves each, their centres joined: 12 nodes */
    struct topology_edge e[11];
    size_t ne = 0;
    for (size_t i = 1; i <= 5; i++)
        e[ne++] = (struct topology_edge){0, i};
    for (size_t i = 7; i <= 11; i++)
        e[ne++] = (struct topology_edge){6, i};
    e[ne++] = (struct topology_edge){0, 6};
    struct topology_point p[12], q[12], r[12];
    CHECK_INT(topology_layout(12, e, ne, 7, p), 0);
    CHECK_INT(topology_layout(12, e, ne, 7, q), 0);
    CHECK_INT(topology_layout(12, e, ne, 8, r), 0);
    int same = 1, inside = 1, differ = 0;
    double closest = INFINITY;
    for (int i = 0; i < 12; i++) {
        same &= p[i].x == q[i].x && p[i].y == q[i].y;
        differ |= p[i].x != r[i].x;
        inside &= p[i].x >= 0 && p[i].x <= 1 && p[i].y >= 0 && p[i].y <= 1;
        for (int j = i + 1; j < 12; j++)
            closest = fmin(closest, dist(p[i], p[j]));
    }
    CHECK(same);
    CHECK(differ);
    CHECK(inside);
    CHECK(closest > 0.03);
    /* leaves sit nearer their own centre than the other star's centre */
    int near_own = 1;
    for (int i = 1; i <= 5; i++)
        near_own &= dist(p[i], p[0]) < dist(p[i], p[6]);
    for (int i = 7; i <= 11; i++)
        near_own &= dist(p[i], p[6]) < dist(p[i], p[0]);
    CHECK(near_own);
    /* degenerate inputs */
    struct topology_point one;
    CHECK_INT(topology_layout(1, NULL, 0, 1, &one), 0);
    CHECK_NEAR(one.x, 0.5, 1e-12);
    CHECK_INT(topology_layout(0, NULL, 0, 1, NULL), 0);
    struct topology_edge bad = {0, 99};
    struct topology_point two[2];
    CHECK_INT(topology_layout(2, &bad, 1, 1, two), 0);
    CHECK(dist(two[0], two[1]) > 0.5);
    return test_done();
}
