/* Recording for the MPI wrappers (record.h): per-function calls, time and
 * bytes, per-link bytes and messages, communication and blocking time, the
 * window's call and time limits, and a monitor's switch taken at the next call.
 * Single-threaded updates: MPI calls of one rank come from one thread in the
 * common MPI_THREAD_SINGLE/FUNNELED programs; a MULTIPLE program may lose an
 * increment under a race, never corrupt the segment. */
#include "record.h"

#include "../probe/perf_counters.h"

#include <stdio.h>
#include <string.h>

HIDDEN union tally_mpi_control_page tally_mpi_control __attribute__((aligned(TALLY_SEG_PAGE)));

static struct tally_segment *segment;
static MPI_Group world_group = MPI_GROUP_NULL;

__attribute__((constructor)) static void mpi_library_loaded(void)
{
    tally__segment_map_control(&tally_mpi_control);
}

static void close_window_if_over(struct tally_segment *s, uint64_t now)
{
    struct tally_seg_window *w = &s->d.window;
    if (w->state != TALLY_WINDOW_OPEN)
        return;
    if ((w->call_limit > 0 && w->calls >= (uint64_t)w->call_limit) ||
        (w->time_limit_ns > 0 && now - w->t_on >= (uint64_t)w->time_limit_ns))
        tally__window_close(s, now);
}

/* The segment, registered at MPI_Init (looked up once if a call came first). */
static struct tally_segment *current_segment(void)
{
    return segment ? segment : (segment = tally__segment());
}

void record_call(enum tally_mpi_function fn, uint64_t t0, uint64_t t1, uint64_t bytes,
                 enum call_kind kind)
{
    struct tally_segment *s = current_segment();
    if (!s)
        return;
    struct tally_seg_function *f = &s->d.functions[fn];
    uint64_t dt = t1 - t0;
    f->calls++;
    f->ns += dt;
    f->bytes += bytes;
    if (kind != CALL_SETUP) {
        s->d.comm_ns += dt;
        if (kind == CALL_BLOCKING)
            s->d.wait_ns += dt;
        s->d.window.calls++;
    }
    close_window_if_over(s, t1);
}

struct tally_segment *record_segment(void) { return current_segment(); }

uint32_t record_switched(void)
{
    struct tally_segment *s = current_segment();
    if (!s) /* not registered: no monitor can have switched it */
        return tally_mpi_control.c.on & ~TALLY_ON_PENDING;
    return tally__acknowledge(s);
}

void comm_position(MPI_Comm comm, int *rank, int *size)
{
    PMPI_Comm_rank(comm, rank);
    PMPI_Comm_size(comm, size);
}

static int world_rank_of(MPI_Comm comm, int rank)
{
    if (comm == MPI_COMM_WORLD || world_group == MPI_GROUP_NULL)
        return rank;
    MPI_Group group;
    int world = MPI_UNDEFINED;
    if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS)
        return -1;
    PMPI_Group_translate_ranks(group, 1, &rank, world_group, &world);
    PMPI_Group_free(&group);
    return world == MPI_UNDEFINED ? -1 : world;
}

void record_link(MPI_Comm comm, int dest, uint64_t bytes)
{
    struct tally_segment *s = segment;
    if (!s || dest < 0) /* MPI_PROC_NULL, MPI_ANY_SOURCE */
        return;
    int world = world_rank_of(comm, dest);
    if (world < 0 || world == s->d.rank)
        return;
    if (world >= TALLY_SEG_MAX_RANKS) {
        s->d.flags |= TALLY_SEG_LINKS_TRUNCATED;
        return;
    }
    s->d.links[world].bytes += bytes;
    s->d.links[world].messages++;
}

uint64_t type_bytes(MPI_Datatype type, MPI_Count count)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (uint64_t)size * (uint64_t)count;
}

/* "Open MPI v4.1.4, package: ..." → "Open MPI 4.1.4"; "MPICH Version:\t4.0.2\n..." → "MPICH 4.0.2". */
static void library_name(char *out, size_t len)
{
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0;
    PMPI_Get_library_version(text, &n);
    char *end = strpbrk(text, ",\n");
    if (end)
        *end = '\0';
    char *version = strstr(text, "Version:");
    if (version) { /* MPICH */
        version += strlen("Version:");
        version += strspn(version, " \t");
        snprintf(out, len, "MPICH %s", version);
        return;
    }
    char *v = strstr(text, " v");
    if (v && v[2] >= '0' && v[2] <= '9')
        memmove(v + 1, v + 2, strlen(v + 2) + 1);
    snprintf(out, len, "%s", text);
}

void record_register(void)
{
    int rank = 0, size = 1;
    comm_position(MPI_COMM_WORLD, &rank, &size);
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    char library[96];
    library_name(library, sizeof library);
    segment = tally__segment_register_mpi(rank, size, library);
    if (!segment)
        return;
    segment->d.t_init_end = tally__now_ns();
    if (segment->d.window.start < 0 && segment->d.window.driver == TALLY_WINDOW_BY_MARKER)
        segment->d.window.t_on = segment->d.window.t_first_on = segment->d.t_init_end; /* the whole run: from MPI_Init on */
}

void record_finalize(uint64_t now, int aborted)
{
    struct tally_segment *s = segment;
    if (!s)
        return;
    s->d.t_finalize = now;
    if (s->control.c.on & TALLY_ON_PENDING)
        tally__acknowledge(s);
    if (aborted)
        __atomic_or_fetch(&s->d.flags, TALLY_SEG_ABORTED, __ATOMIC_RELEASE);
    if (s->d.window.state == TALLY_WINDOW_OPEN) { /* the end, or a window cut short */
        s->d.window.how |= TALLY_WINDOW_CLOSED_AT_END;
        tally__window_close(s, now);
    }
    tally__perf_finish(s); /* the whole run ends at MPI_Finalize's entry */
}
