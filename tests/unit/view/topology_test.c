/* Topology layout: deterministic for a seed, filling the unit square, nodes
 * apart from each other, neighbours closer than non-neighbours; and the fit
 * into a pane that keeps every drawing inside it. */
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
    /* two unlinked nodes: side by side across the square, on its middle line */
    CHECK_NEAR(fabs(two[0].x - two[1].x), 1, 1e-9);
    CHECK_NEAR(two[0].y, 0.5, 1e-9);
    CHECK_NEAR(two[1].y, 0.5, 1e-9);
    /* the layout fills the square on both axes */
    double minx = 1, maxx = 0, miny = 1, maxy = 0;
    for (int i = 0; i < 12; i++)
        minx = fmin(minx, p[i].x), maxx = fmax(maxx, p[i].x), miny = fmin(miny, p[i].y), maxy = fmax(maxy, p[i].y);
    CHECK_NEAR(minx, 0, 1e-9);
    CHECK_NEAR(maxx, 1, 1e-9);
    CHECK_NEAR(miny, 0, 1e-9);
    CHECK_NEAR(maxy, 1, 1e-9);

    /* fitting into an 800 x 640 pane with a margin of 8: the two nodes' drawings
     * (one 100 px wide to the left, 200 px to the right; 20 up, 40 down) end at
     * the margin, and the empty axis is centred */
    struct topology_point unit[2] = {{0, 0.5}, {1, 0.5}}, at[2];
    struct topology_extent ext[2] = {{100, 100, 20, 40}, {200, 200, 20, 40}};
    topology_fit(2, unit, ext, 800, 640, 8, at);
    CHECK_NEAR(at[0].x - 100, 8, 1e-9);
    CHECK_NEAR(at[1].x + 200, 800 - 8, 1e-9);
    CHECK_NEAR(at[0].y, 320 - 10, 1e-9); /* drawing from y - 20 to y + 40 centred */
    CHECK_NEAR(at[1].y, at[0].y, 1e-9);
    /* every drawing of the 12-node layout inside, with labels 150 px wide */
    struct topology_extent wide[12];
    struct topology_point placed[12];
    for (int i = 0; i < 12; i++)
        wide[i] = (struct topology_extent){75, 75, 20, 35};
    topology_fit(12, p, wide, 800, 640, 8, placed);
    int fits = 1;
    for (int i = 0; i < 12; i++)
        fits &= placed[i].x - 75 >= 8 - 1e-9 && placed[i].x + 75 <= 792 + 1e-9 &&
                placed[i].y - 20 >= 8 - 1e-9 && placed[i].y + 35 <= 632 + 1e-9;
    CHECK(fits);
    return test_done();
}
