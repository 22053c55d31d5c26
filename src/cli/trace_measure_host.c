/* 'tally trace measure-host [--dir DIR] [--size MB]': this host's disk and
 * network bandwidths as one line of trace from-runs' --capacity file
 * ("HOST disk=MB/s network=MB/s"), after a comment saying how each was
 * found: the disk measured in DIR (platform's disk_measure_speed: the faster
 * of a sequential write, synced, and its read back), the network from the
 * link speeds of /sys/class/net. Run it once on each host and gather the
 * lines: the hosts of a trace from runs then have their own disk capacity
 * instead of the peak seen. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/trace_common.h"
#include "platform/platform.h"
#include "util/error.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: tally trace measure-host [--dir DIR] [--size MB]\n"
                 "Prints this host's line of 'tally trace from-runs --capacity FILE':\n"
                 "'HOST disk=MB/s network=MB/s', after a comment saying how each was found.\n"
                 "  --dir DIR   where the disk is measured (default: the current directory):\n"
                 "              SIZE MB written (direct I/O where the file system allows it),\n"
                 "              synced and read back; the file is unlinked at once\n"
                 "  --size MB   how much (default 256; 1 to 65536)\n"
                 "disk is the faster of the write and the read; network the link speeds of\n"
                 "/sys/class/net (left out when no interface says).\n");
}

int trace_cmd_measure_host(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"dir", required_argument, NULL, 'd'},
        {"size", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *dir = ".";
    double size_mb = 256;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        char *end = NULL;
        switch (opt) {
        case 'd': dir = optarg; break;
        case 's':
            size_mb = strtod(optarg, &end);
            if (end == optarg || *end || !(size_mb >= 1 && size_mb <= 65536) || size_mb != floor(size_mb)) {
                tally_error("trace measure-host: --size '%s': expected a whole number of MB from 1 to 65536",
                            optarg);
                return TALLY_EXIT_ERROR;
            }
            break;
        case 'h': usage(stdout); return TALLY_EXIT_OK;
        default: usage(stderr); return TALLY_EXIT_ERROR;
        }
    }
    if (optind != argc) {
        tally_error("trace measure-host: unexpected argument '%s'", argv[optind]);
        return TALLY_EXIT_ERROR;
    }
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) < 0 || !host[0]) {
        tally_error_errno("trace measure-host: the host's name");
        return TALLY_EXIT_ERROR;
    }
    struct disk_speed disk;
    char why[512];
    if (disk_measure_speed(dir, (size_t)size_mb << 20, &disk, why, sizeof why) < 0) {
        tally_error("trace measure-host: %s", why);
        return TALLY_EXIT_ERROR;
    }
    double net = host_network_bandwidth();
    printf("# %s: disk measured in %s with %.0f MB: write %.1f MB/s (synced), read %.1f MB/s (%s);"
           " network: %s",
           host, dir, size_mb, disk.write_mbs, disk.read_mbs,
           disk.direct ? "direct I/O" : "the file system refused direct I/O: the read came from memory",
           net > 0 ? "the link speeds of /sys/class/net" : "no interface says its speed");
    printf("\n%s disk=%.1f", host, fmax(disk.write_mbs, disk.read_mbs));
    if (net > 0)
        printf(" network=%.1f", net);
    printf("\n");
    return TALLY_EXIT_OK;
}
