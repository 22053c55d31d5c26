/* 'tally agent': the user's local monitor (src/agent/agent.c does the work).
 *   tally agent [--foreground] [options]     start it (detached by default)
 *   tally agent attach PID --app NAME        follow a running tree
 *   tally agent stop | status                ask the running agent
 * Only option parsing, detaching and signals live here. See man/tally-agent.1. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "agent/agent.h"
#include "client/agent_conf.h"
#include "client/agent_link.h"
#include "client/agent_socket.h"
#include "platform/platform.h"
#include "agent/metrics.h"
#include "util/error.h"
#include "core/units.h"

static const char usage_text[] =
    "usage: tally agent [options]                start the user's agent\n"
    "       tally agent attach PID --app NAME    follow a running process tree (the\n"
    "                                            agent is started when none runs)\n"
    "         [--launch ID --segments DIR]       ... a rank of another host's run\n"
    "         [--start] [--quiet]                (started by the libraries)\n"
    "       tally agent status                   is it running, what does it follow:\n"
    "                                            apps, tasks, processes, csrs, NATS\n"
    "       tally agent stop                     shut it down\n"
    "Options may come before or after the command (status --socket PATH).\n"
    "\n"
    "The local monitor of one user on one host: follows the tasks registered with\n"
    "it ('tally run --agent --app NAME -- CMD', or attach), keeps their processes'\n"
    "live values and series, answers requests ('tally request'), and writes each\n"
    "finished task's summary to the archive. Never needs root; serves only its user.\n"
    "\n"
    "  -f, --foreground        do not detach; log to stderr\n"
    "      --socket PATH       socket (default $TALLY_AGENT, else\n"
    "                          $XDG_RUNTIME_DIR/tally/agent.sock, else\n"
    "                          /tmp/tally-UID/agent.sock)\n"
    "      --archive DB        archive for finished tasks (default: tally archive's;\n"
    "                          a postgresql:// URL for a site's PostgreSQL)\n"
    "      --no-archive        do not archive summaries\n"
    "      --interval TIME     sampling interval (default 1 s)\n"
    "      --series N          points kept per process (default 120)\n"
    "      --time-series DIR   each tree attached by pid writes DIR/APP.HOST.PID.series\n"
    "                          (every interval, the host's cores, MemTotal, link speeds\n"
    "                          and counters included) and, when it ends, its .summary\n"
    "                          (category: the app): runs for 'tally trace from-runs'\n"
    "      --site NAME         site name in replies (default local)\n"
    "      --host NAME         node name in replies (default the host name)\n"
    "      --nats URL          also serve requests from other hosts through the site's\n"
    "                          nats-server (nats://host:port; see docs/agent-nats.md)\n"
    "      --creds FILE        NATS credentials: a .creds file or one line user:password\n"
    "      --nats-insecure     join a nats-server that admits clients without credentials\n"
    "                          (refused by default: anyone reaching it could command\n"
    "                          this agent, e.g. kill your tasks)\n"
    "      --user NAME         NATS subjects of this user (default: your login name)\n"
    "      --metrics [ADDR:]PORT serve OpenMetrics (Prometheus) at http://ADDR:PORT/metrics;\n"
    "                          ADDR defaults to 127.0.0.1. No authentication: any user\n"
    "                          of this host can read them (anyone who can reach ADDR)\n"
    "      --client-output SIZE  output kept for clients that do not read, all together\n"
    "                          (default 64 MB); past it, the one holding most is dropped\n"
    "      --app NAME          (attach) the application the tree belongs to\n"
    "      --launch ID         (attach) the 'tally run --mpi' on another host it belongs to\n"
    "      --segments DIR      (attach) its processes' segments on this host\n"
    "      --start             (attach) start the agent when none runs\n"
    "      --quiet             (attach) print nothing on success\n"
    "\n"
    "Without --nats, the agent takes --nats, --creds, --site and --user from\n"
    "$XDG_CONFIG_HOME/tally/agent.conf (else ~/.config/tally/agent.conf), lines\n"
    "'key = value' with keys nats, creds, site, user (see tally-agent(1)).\n"
    "TALLY_AGENT, when set, is the default socket of every tally command.\n"
    "  -h, --help              this help\n"
    "\n"
    "Exit status: 0; 125 on an error (another agent serves the socket, bad option).\n";

enum { OPT_SOCKET = 256, OPT_ARCHIVE_DB, OPT_NO_ARCHIVE, OPT_INTERVAL, OPT_SERIES, OPT_SITE,
       OPT_HOST, OPT_APP_NAME, OPT_NATS, OPT_CREDS, OPT_NATS_USER, OPT_METRICS,
       OPT_NATS_INSECURE, OPT_CLIENT_OUTPUT, OPT_LAUNCH, OPT_SEGMENTS, OPT_START, OPT_QUIET,
       OPT_TIME_SERIES };

static const struct option long_options[] = {
    {"foreground", no_argument, 0, 'f'},
    {"socket", required_argument, 0, OPT_SOCKET},
    {"archive", required_argument, 0, OPT_ARCHIVE_DB},
    {"no-archive", no_argument, 0, OPT_NO_ARCHIVE},
    {"interval", required_argument, 0, OPT_INTERVAL},
    {"series", required_argument, 0, OPT_SERIES},
    {"time-series", required_argument, 0, OPT_TIME_SERIES},
    {"site", required_argument, 0, OPT_SITE},
    {"host", required_argument, 0, OPT_HOST},
    {"app", required_argument, 0, OPT_APP_NAME},
    {"nats", required_argument, 0, OPT_NATS},
    {"creds", required_argument, 0, OPT_CREDS},
    {"nats-insecure", no_argument, 0, OPT_NATS_INSECURE},
    {"user", required_argument, 0, OPT_NATS_USER},
    {"metrics", required_argument, 0, OPT_METRICS},
    {"client-output", required_argument, 0, OPT_CLIENT_OUTPUT},
    {"launch", required_argument, 0, OPT_LAUNCH},
    {"segments", required_argument, 0, OPT_SEGMENTS},
    {"start", no_argument, 0, OPT_START},
    {"quiet", no_argument, 0, OPT_QUIET},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

/* Copies what the starting agent wrote on its stderr (its error, or where
 * it serves metrics) to ours, until it switched to its log. Returns whether
 * there was anything. */
static bool relay(int fd)
{
    char buf[4096];
    ssize_t n;
    bool any = false;
    while ((n = read(fd, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        any = true;
        (void)!write(2, buf, (size_t)n);
    }
    return any;
}

/* Detaches: the caller returns (exit 0) once the agent listens; the agent
 * goes on in a grandchild with its log in the socket's directory. Until it
 * listens, the agent's stderr is a pipe to the caller, which prints it: an
 * agent that cannot start says why on the terminal that started it, not in
 * a log. Returns 1 in the agent, 0 in the caller after success, -1 on
 * failure (*said: the agent's own message was printed). */
static int detach(struct agent_options *o, const char *socket_path, bool *said)
{
    int ready[2], err[2];
    if (pipe2(ready, O_CLOEXEC) < 0)
        return -1;
    if (pipe2(err, O_CLOEXEC) < 0) {
        close(ready[0]);
        close(ready[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid > 0) {
        close(ready[1]);
        close(err[1]);
        char byte;
        ssize_t n;
        while ((n = read(ready[0], &byte, 1)) < 0 && errno == EINTR)
            ;
        close(ready[0]);
        *said = relay(err[0]);
        close(err[0]);
        return n == 1 ? 0 : -1;
    }
    close(ready[0]);
    close(err[0]);
    setsid();
    if (fork() > 0)
        _exit(0); /* the agent is not a session leader: no terminal can take it */
    char log[4200];
    snprintf(log, sizeof log, "%s", socket_path);
    char *slash = strrchr(log, '/');
    snprintf(slash ? slash + 1 : log, sizeof log - (size_t)(slash ? slash + 1 - log : 0),
             "agent.log");
    int null = open("/dev/null", O_RDWR);
    int logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        close(null);
    }
    dup2(err[1], 2); /* to the caller until the agent listens, then to the log */
    close(err[1]);
    o->log_fd = logfd >= 0 ? logfd : open("/dev/null", O_WRONLY | O_CLOEXEC);
    (void)!chdir("/");
    o->ready_fd = ready[1];
    return 1;
}

/* Without --nats: the user's agent.conf says whether and how to join NATS. */
static int take_conf(struct agent_options *o, struct agent_conf *conf)
{
    if (o->nats_url)
        return 0;
    char why[4400];
    if (agent_conf_load(conf, why, sizeof why) < 0) {
        tally_error("agent: %s", why);
        return -1;
    }
    if (!conf->nats[0])
        return 0;
    o->nats_url = conf->nats;
    if (!o->nats_creds && conf->creds[0])
        o->nats_creds = conf->creds;
    if (!o->site && conf->site[0])
        o->site = conf->site;
    if (!o->nats_user && conf->user[0])
        o->nats_user = conf->user;
    return 0;
}

static int serve(struct agent_options *o, bool foreground)
{
    char path[4096];
    static struct agent_conf conf; /* the options point into it for the agent's life */
    if (take_conf(o, &conf) < 0)
        return TALLY_EXIT_ERROR;
    if (!o->socket_path) {
        if (agent_socket_default_path(path, sizeof path) < 0) {
            tally_error("agent: the default socket path is too long");
            return TALLY_EXIT_ERROR;
        }
        o->socket_path = path;
    }
    /* Refuse early (in the caller) when another agent serves the socket. */
    struct agent_link probe;
    char why[256];
    if (agent_link_open(&probe, o->socket_path, false, why, sizeof why) == 0) {
        agent_link_close(&probe);
        tally_error("agent: another agent (pid %d) already serves %s",
                    (int)agent_socket_owner(o->socket_path), o->socket_path);
        return TALLY_EXIT_ERROR;
    }
    /* Before anything is put there (the log when detached): the directory
     * must be the user's own, mode 0700, or is made so. Another user may
     * have made /tmp/tally-UID first, with agent.log a symbolic link. */
    char dir_why[4600];
    if (agent_socket_prepare(o->socket_path, dir_why, sizeof dir_why) < 0) {
        tally_error("agent: %s", dir_why);
        return TALLY_EXIT_ERROR;
    }
    if (!foreground) {
        bool said = false;
        int d = detach(o, o->socket_path, &said);
        if (d < 0) {
            if (!said)
                tally_error("agent: could not start: it ended without a message");
            return TALLY_EXIT_ERROR;
        }
        if (d == 0)
            return TALLY_EXIT_OK;
    }
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    o->stop_fd = signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK);
    int rc = agent_run(o);
    close(o->stop_fd);
    return rc < 0 ? TALLY_EXIT_ERROR : TALLY_EXIT_OK;
}

/* One message to the running agent and its reply printed (status, stop,
 * attach); START: start the agent first when none serves the socket. */
enum ask_then { ASK_PRINT, ASK_QUIET, ASK_WAIT_CLOSE }; /* after the reply */

static int ask(const char *socket_path, json_t *message, enum ask_then then, bool start)
{
    bool print = then == ASK_PRINT;
    struct agent_link link;
    char why[512];
    if (agent_link_open(&link, socket_path, start, why, sizeof why) < 0) {
        json_decref(message);
        tally_error("agent: %s", why);
        return TALLY_EXIT_ERROR;
    }
    agent_link_send(&link, message);
    json_t *reply = agent_link_read(&link, 10);
    int status = TALLY_EXIT_OK;
    const char *error = reply ? json_string_value(json_object_get(reply, "error")) : NULL;
    if (error) {
        tally_error("agent: %s", error);
        status = TALLY_EXIT_FAILURE;
    } else if (reply && print) {
        char *text = json_dumps(reply, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (text)
            puts(text);
        free(text);
    }
    json_decref(reply);
    if (then == ASK_WAIT_CLOSE) /* stop: until the agent has closed everything */
        while ((reply = agent_link_read(&link, 10)))
            json_decref(reply);
    agent_link_close(&link);
    return status;
}

int cmd_agent(int argc, char **argv)
{
    struct agent_options o;
    agent_options_init(&o);
    bool foreground = false;
    const char *app = NULL;
    const char *launch = NULL, *segments = NULL; /* attach: a rank of another host's run */
    bool quiet = false;
    char why[256];
    static char time_series_dir[4096]; /* --time-series, made absolute */
    optind = 1;
    opterr = 0;
    int c;
    /* options may come before or after the command and its PID
     * ('tally agent stop --socket S', as the man page writes it) */
    const char *words[3] = {NULL, NULL, NULL};
    int n_words = 0;
    for (;;) {
        c = optind < argc ? getopt_long(argc, argv, "+fh", long_options, NULL) : -1;
        if (c == -1) {
            if (optind >= argc)
                break;
            if (n_words == 3) {
                tally_error("agent: unexpected '%s' (see 'tally agent --help')", argv[optind]);
                return TALLY_EXIT_ERROR;
            }
            words[n_words++] = argv[optind++];
            continue;
        }
        switch (c) {
        case 'f':
            foreground = true;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return TALLY_EXIT_OK;
        case OPT_SOCKET:
            o.socket_path = optarg;
            break;
        case OPT_ARCHIVE_DB:
            o.archive = optarg;
            break;
        case OPT_NO_ARCHIVE:
            o.no_archive = true;
            break;
        case OPT_INTERVAL:
            if (units_parse(optarg, DIM_TIME, NULL, &o.interval, why, sizeof why) < 0 ||
                o.interval < 0.01) {
                tally_error("agent: --interval: %s", o.interval < 0.01 ? "at least 10 ms" : why);
                return TALLY_EXIT_ERROR;
            }
            break;
        case OPT_SERIES: {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || n < 1 || n > 100000) {
                tally_error("agent: --series: '%s' is not a count from 1 to 100000", optarg);
                return TALLY_EXIT_ERROR;
            }
            o.series_points = (size_t)n;
            break;
        }
        case OPT_TIME_SERIES: {
            /* absolute: the detached agent leaves the working directory */
            struct stat st;
            if (!realpath(optarg, time_series_dir) || stat(time_series_dir, &st) < 0 ||
                !S_ISDIR(st.st_mode)) {
                tally_error("agent: --time-series %s: %s", optarg,
                            errno && errno != EEXIST ? strerror(errno) : "not a directory");
                return TALLY_EXIT_ERROR;
            }
            o.time_series_dir = time_series_dir;
            break;
        }
        case OPT_SITE:
            o.site = optarg;
            break;
        case OPT_HOST:
            o.host = optarg;
            break;
        case OPT_APP_NAME:
            app = optarg;
            break;
        case OPT_NATS:
            o.nats_url = optarg;
            break;
        case OPT_CREDS:
            o.nats_creds = optarg;
            break;
        case OPT_LAUNCH:
            launch = optarg;
            break;
        case OPT_SEGMENTS:
            segments = optarg;
            break;
        case OPT_START: /* attach starts the agent when none runs in any case */
            break;
        case OPT_QUIET:
            quiet = true;
            break;
        case OPT_NATS_INSECURE:
            o.nats_insecure = true;
            break;
        case OPT_NATS_USER:
            o.nats_user = optarg;
            break;
        case OPT_CLIENT_OUTPUT: {
            double mb = 0;
            int bad = units_parse(optarg, DIM_BYTES, NULL, &mb, why, sizeof why);
            if (bad < 0 || mb < 1.0 / 16 || mb > 65536) {
                tally_error("agent: --client-output: %s",
                            bad < 0 ? why : "give a size from 64 KB to 64 GB");
                return TALLY_EXIT_ERROR;
            }
            o.client_output = (size_t)(mb * BYTES_PER_MB);
            break;
        }
        case OPT_METRICS: {
            struct sockaddr_in sa;
            if (metrics_parse_address(optarg, &sa, why, sizeof why) < 0) {
                tally_error("agent: --metrics %s", why);
                return TALLY_EXIT_ERROR;
            }
            o.metrics = optarg;
            break;
        }
        default:
            tally_error("agent: unknown or incomplete option '%s' (see 'tally agent --help')",
                        argv[optind - 1]);
            return TALLY_EXIT_ERROR;
        }
    }
    const char *verb = words[0];
    if (!verb)
        return serve(&o, foreground);
    if (strcmp(verb, "attach") && n_words > 1) {
        tally_error("agent: %s: unexpected '%s' (see 'tally agent --help')", verb, words[1]);
        return TALLY_EXIT_ERROR;
    }
    if (!strcmp(verb, "status"))
        return ask(o.socket_path, json_pack("{s:s}", "op", "ping"), ASK_PRINT, false);
    if (!strcmp(verb, "stop"))
        return ask(o.socket_path, json_pack("{s:s}", "op", "shutdown"), ASK_WAIT_CLOSE, false);
    if (!strcmp(verb, "attach")) {
        if (!launch != !segments) {
            tally_error("agent: attach: --launch and --segments go together");
            return TALLY_EXIT_ERROR;
        }
        if (!words[1] || n_words > 2) {
            tally_error("agent: attach needs a PID (see 'tally agent --help')");
            return TALLY_EXIT_ERROR;
        }
        pid_t pid;
        if (proc_pid_parse(words[1], &pid) < 0) {
            tally_error("agent: attach: '%s' is not a pid (a number from 1 to %lld)", words[1],
                        proc_pid_max());
            return TALLY_EXIT_ERROR;
        }
        if (!app || !*app) {
            tally_error("agent: attach needs --app NAME");
            return TALLY_EXIT_ERROR;
        }
        json_t *message = json_pack("{s:s, s:i, s:s}", "op", "attach", "pid", (int)pid, "app", app);
        if (launch) {
            json_object_set_new(message, "launch", json_string(launch));
            json_object_set_new(message, "segments", json_string(segments));
        }
        /* as tally run --agent: the agent is started when none runs */
        return ask(o.socket_path, message, quiet ? ASK_QUIET : ASK_PRINT, true);
    }
    tally_error("agent: unknown command '%s' (see 'tally agent --help')", verb);
    return TALLY_EXIT_ERROR;
}
