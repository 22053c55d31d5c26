/* Differential unit tests of the archive's reader without a tree
 * (src/archive/summary_scan.c) against the jansson path it replaces on
 * ingest: for the repository's summaries, generated ones (escapes, unicode,
 * huge numbers, duplicated keys, nesting) and damaged copies of them, a
 * document the scanner takes gives the same archive row, byte for byte
 * (hash, columns, packed document), or the same error, as jansson's
 * json_loadb + summary_record_parse; what jansson refuses the scanner
 * declines. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/ingest.h"
#include "archive/summary_scan.h"
#include "test.h"

struct outcome {
    int status; /* 1: a record, 0: refused by the row builder, -1: not JSON (jansson) or
                 * declined (scanner) */
    size_t used;
    struct summary_record r;
    char why[512];
};

static void by_jansson(const char *text, size_t len, const struct ingest_options *options,
                       struct outcome *o)
{
    memset(o, 0, sizeof *o);
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_DISABLE_EOF_CHECK, &err);
    o->status = -1;
    if (!root)
        return;
    o->used = (size_t)err.position;
    o->status = summary_record_parse(root, text, o->used, options, &o->r, o->why, sizeof o->why) == 0;
    json_decref(root);
}

static void by_scan(const char *text, size_t len, const struct ingest_options *options,
                    struct summary_members *m, struct outcome *o)
{
    memset(o, 0, sizeof *o);
    o->status = -1;
    if (summary_scan(text, len, m, &o->used) != 1)
        return;
    o->status = summary_record_from_members(m, text, o->used, options, &o->r, o->why,
                                            sizeof o->why) == 0;
}

static int same_string(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The two rows are the same, to the bit. */
static int same_record(const struct summary_record *a, const struct summary_record *b)
{
    if (memcmp(a->hash, b->hash, sizeof a->hash) || a->start_day != b->start_day ||
        a->packed_len != b->packed_len || memcmp(a->packed, b->packed, a->packed_len) ||
        !same_string(a->name, b->name) || !same_string(a->category, b->category) ||
        !same_string(a->set, b->set) || !same_string(a->host, b->host) ||
        !same_string(a->tool, b->tool) || !same_string(a->command, b->command) ||
        !same_string(a->exit_type, b->exit_type) || !same_string(a->taskid, b->taskid) ||
        a->has_level != b->has_level || a->level != b->level ||
        a->has_exit_status != b->has_exit_status || a->exit_status != b->exit_status)
        return 0;
    for (size_t i = 0; i < MAX_SUMMARY_FIELDS; i++)
        if (a->present[i] != b->present[i] ||
            (a->present[i] && memcmp(&a->values[i], &b->values[i], sizeof a->values[i])))
            return 0;
    return 1;
}

static int scanned, declined;

/* Reads text both ways; 1 when the scanner took it. Any difference fails. */
static int compare(const char *text, size_t len, struct summary_members *m)
{
    struct ingest_options options = {0};
    struct outcome j, s;
    by_jansson(text, len, &options, &j);
    by_scan(text, len, &options, m, &s);
    int took = s.status >= 0;
    if (took) {
        scanned++;
        int same = j.status == s.status && j.used == s.used &&
                   (s.status == 1 ? same_record(&j.r, &s.r) : !strcmp(j.why, s.why));
        if (!same)
            fprintf(stderr, "differs (jansson %d, scan %d: %s / %s): %.*s\n", j.status, s.status,
                    j.why, s.why, (int)len, text);
        CHECK(same);
    } else {
        declined++;
    }
    if (j.status == 1)
        summary_record_free(&j.r);
    if (s.status == 1)
        summary_record_free(&s.r);
    return took;
}

/* A small deterministic generator (xorshift). */
static unsigned long long rng = 88172645463325252ULL;
static unsigned pick(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static const char *const keys[] = {
    "name", "category", "set", "host", "command", "exit_type", "taskid", "level",
    "exit_status", "tally_version", "monitor_version", "start", "end", "wall_time", "cpu_time",
    "memory", "disk", "cores", "bytes_read", "total_files", "x", "a\\u00e9", "k\\n\\\"q", "",
    "caf\xc3\xa9", "\\ud83d\\ude00", "peak_times", "limits_exceeded",
};
static const char *const numbers[] = {
    "0", "-0", "1", "-1", "42", "1.5", "-2.25", "2.0", "1e5", "1E5", "1e+05", "1e-7", "0.1",
    "1e400", "-1e400", "1e-400", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "-9223372036854775809", "9007199254740993", "123456789012345678901234567890",
    "01", "1.", ".5", "-", "1e", "0x10", "1795000000.123", "3.14159265358979323846", "5e-324",
    "1.7976931348623157e308", "100000000000000000000.0", "-0.0", "0e0",
};
static const char *const strings[] = {
    "\"\"", "\"bwa\"", "\"align\"", "\"normal\"", "\"limits\"", "\"c1\"", "\"/usr/bin/bwa mem x\"",
    "\"a\\\"b\"", "\"back\\\\slash\"", "\"\\/slash\"", "\"tab\\there\"", "\"\\b\\f\\n\\r\\t\"",
    "\"\\u00e9t\\u00C9\"", "\"\\ud83d\\ude00\"", "\"\\u001f\\u007f\"", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"",
    "\"\\ud800\"", "\"\\udc00x\"", "\"\\ud800\\u0041\"", "\"\\u0000\"", "\"\\x\"", "\"\\u12g4\"",
    "\"bad \xff byte\"", "\"overlong \xc0\xaf\"", "\"surrogate \xed\xa0\x80\"", "\"ctl \x01\"",
    "\"del \x7f\"", "\"'/opt/my tools/x' -y\"", "\"unterminated",
};
static const char *const units[] = {"s", "ms", "MB", "GB", "KB", "cores", "procs", "files", "bogus", "", "M\\u0042"};

static void put_blank(char **p)
{
    static const char *const blanks[] = {"", "", "", " ", "\n", "\t ", "\r\n  "};
    *p += sprintf(*p, "%s", blanks[pick(7)]);
}

static void put_value(char **p, int depth);

static void put_number(char **p)
{
    *p += sprintf(*p, "%s", numbers[pick(sizeof numbers / sizeof numbers[0])]);
}

static void put_value(char **p, int depth)
{
    switch (pick(depth > 3 ? 4 : 8)) {
    case 0: case 1:
        put_number(p);
        break;
    case 2:
        *p += sprintf(*p, "%s", strings[pick(sizeof strings / sizeof strings[0])]);
        break;
    case 3: {
        static const char *const lits[] = {"true", "false", "null", "nul", "truex"};
        *p += sprintf(*p, "%s", lits[pick(5)]);
        break;
    }
    case 4: case 5: /* a pair, or something near one */
        *p += sprintf(*p, "[");
        put_blank(p);
        put_number(p);
        put_blank(p);
        *p += sprintf(*p, ",");
        put_blank(p);
        *p += sprintf(*p, "\"%s\"", units[pick(sizeof units / sizeof units[0])]);
        if (!pick(8))
            *p += sprintf(*p, ",1");
        put_blank(p);
        *p += sprintf(*p, "]");
        break;
    case 6: {
        unsigned n = pick(4);
        *p += sprintf(*p, "[");
        for (unsigned i = 0; i < n; i++) {
            if (i)
                *p += sprintf(*p, ",");
            put_blank(p);
            put_value(p, depth + 1);
        }
        *p += sprintf(*p, "]");
        break;
    }
    default: {
        unsigned n = pick(4);
        *p += sprintf(*p, "{");
        for (unsigned i = 0; i < n; i++) {
            if (i)
                *p += sprintf(*p, ",");
            put_blank(p);
            *p += sprintf(*p, "\"%s\":", keys[pick(6) + 18]);
            put_value(p, depth + 1);
        }
        *p += sprintf(*p, "}");
        break;
    }
    }
}

static size_t generate(char *buf)
{
    char *p = buf;
    put_blank(&p);
    *p++ = '{';
    unsigned n = pick(12);
    for (unsigned i = 0; i < n; i++) {
        if (i)
            *p++ = ',';
        put_blank(&p);
        *p += 0;
        p += sprintf(p, "\"%s\"", keys[pick(sizeof keys / sizeof keys[0])]);
        put_blank(&p);
        *p++ = ':';
        put_blank(&p);
        put_value(&p, 1);
        put_blank(&p);
    }
    *p++ = '}';
    put_blank(&p);
    if (!pick(4))
        p += sprintf(p, "{\"name\":\"next\"}");
    *p = '\0';
    return (size_t)(p - buf);
}

/* The summaries of the fuzz corpus, each read whole. */
static void corpus(struct summary_members *m)
{
    const char *dir = "tests/fuzz/corpus/summary";
    const char *names[] = {"resource_monitor", "tally_run", "two_jsonl", "generated"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "r");
        CHECK(f != NULL);
        if (!f)
            continue;
        static char text[1 << 16];
        size_t len = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[len] = '\0';
        /* every document of the file (JSON Lines are several) */
        for (size_t off = strspn(text, " \t\r\n"); off < len;) {
            CHECK(compare(text + off, len - off, m)); /* taken, not declined */
            size_t used = 0;
            if (summary_scan(text + off, len - off, m, &used) != 1)
                break;
            off += used;
            off += strspn(text + off, " \t\r\n");
        }
    }
}

int main(void)
{
    struct summary_members m = {0};
    corpus(&m);

    /* the benchmark's generator's line, and hand-picked cases */
    const char *taken[] = {
        "{\"name\":\"task-7\",\"category\":\"cat7\",\"host\":\"c311\",\"command\":\"task-7 -i in7\","
        "\"exit_status\":0,\"exit_type\":\"normal\",\"tally_version\":\"0.1\",\"level\":1,"
        "\"seq\":\"7-1\",\"start\":[1795000070.000,\"s\"],\"end\":[1795000427.219,\"s\"],"
        "\"wall_time\":[357.219,\"s\"],\"cpu_time\":[301.553,\"s\"],\"memory\":[1163,\"MB\"],"
        "\"virtual_memory\":[1363,\"MB\"],\"disk\":[53,\"MB\"],\"cores\":[0.844,\"cores\"],"
        "\"bytes_read\":[47.81,\"MB\"],\"bytes_written\":[3.85,\"MB\"],\"total_processes\":[2,\"procs\"],"
        "\"max_concurrent_processes\":[1,\"procs\"],\"total_files\":[41,\"files\"]}",
        "{\"category\":\"rmapper\",\"taskid\":17,\"monitor_version\":\"7.4\",\"memory\":[2,\"GB\"]}",
        "{\"command\":\"'/opt/my tools/x' -y\",\"level\":2.0,\"exit_status\":-0}",
        "{\"name\":\"caf\\u00e9\",\"set\":\"s\\\"1\",\"x\":{\"a\":[1,2.5,{\"b\":null}],\"c\":\"\\u001f\"}}",
        "{\"name\":\"n\",\"start\":1e-400,\"wall_time\":[1e308,\"s\"],\"memory\":[9223372036854775807,\"MB\"]}",
        "{\"name\":\"n\",\"memory\":[1e308,\"TB\"]}",             /* the builder's error, both ways */
        "{\"name\":\"n\",\"level\":2.5}",
        "{\"name\":\"n\",\"disk\":\"lots\"}",
        "{\"name\":\"n\",\"cores\":[1,\"parsecs\"]}",
        "{}",
        "{\"name\":\"n\",\"memory\":null,\"taskid\":\"\",\"host\":\"\"}",
        "{\"name\":\"\\ud83d\\ude00\",\"peak\":[-0.0,1E+2,1e-05,123456789.125]}",
    };
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
        CHECK(compare(taken[i], strlen(taken[i]), &m));

    /* what the scanner leaves to jansson: duplicated keys (jansson keeps the
     * last value at the first place), \u0000, not an object, bad JSON */
    const char *left[] = {
        "{\"name\":\"a\",\"name\":\"b\"}", "{\"x\":{\"k\":1,\"k\":2},\"name\":\"n\"}",
        "{\"name\":\"a\\u0000b\"}", "[1,2]", "{\"name\":\"n\",}", "{\"name\":\"n\" \"x\":1}",
        "{\"n\":1e400}", "{\"n\":9223372036854775808}", "{\"n\":\"\\ud800\"}", "{\"n\":\"\xff\"}",
        "{\"n\":01}", "{\"n\":tru}",
    };
    for (size_t i = 0; i < sizeof left / sizeof left[0]; i++)
        CHECK(!compare(left[i], strlen(left[i]), &m));

    /* each member's field id, remembered by position from the documents
     * before: keys the same, moved, longer, shorter, a prefix of a field's
     * name, fewer and more members; always summary_field_id's answer */
    {
        static const char *const docs[] = {
            "{\"name\":\"n\",\"memory\":[1,\"MB\"],\"x\":1,\"wall_time\":[2,\"s\"]}",
            "{\"name\":\"n\",\"memory\":[1,\"MB\"],\"x\":1,\"wall_time\":[2,\"s\"]}",
            "{\"memory\":[1,\"MB\"],\"name\":\"n\",\"wall_time\":[2,\"s\"],\"x\":1}",
            "{\"memor\":1,\"name\":\"n\",\"wall_time_\":2,\"cores\":1,\"disk\":[3,\"MB\"]}",
            "{\"memory\":1}",
            "{\"memory\":1,\"name\":\"n\",\"wall_tim\":2,\"cores\":1,\"disk\":[3,\"MB\"],\"start\":4}",
            "{\"memorz\":1,\"name\":\"n\",\"wall_time\":2,\"cores\":1,\"disk\":[3,\"MB\"],\"start\":4}",
        };
        struct summary_members fm = {0};
        for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
            size_t used;
            CHECK_INT(summary_scan(docs[d], strlen(docs[d]), &fm, &used), 1);
            for (size_t i = 0; i < fm.count; i++) {
                const char *key = summary_members_at(&fm, fm.items[i].key);
                CHECK_INT(summary_members_field_id(&fm, i), summary_field_id(key));
            }
            CHECK_INT(fm.nseen, fm.count);
        }
        CHECK(fm.seen[0].field == -1 && fm.seen[2].field == FIELD_WALL_TIME && fm.seen[5].field == FIELD_START);
        /* asked out of turn: the right id, nothing remembered past the turn */
        size_t used;
        CHECK_INT(summary_scan(docs[3], strlen(docs[3]), &fm, &used), 1);
        summary_members_free(&fm);
        CHECK_INT(summary_scan(docs[3], strlen(docs[3]), &fm, &used), 1);
        CHECK_INT(summary_members_field_id(&fm, 3), FIELD_CORES);
        CHECK_INT(fm.nseen, 0);
        CHECK_INT(summary_members_field_id(&fm, 0), -1);
        CHECK_INT(summary_members_field_id(&fm, 1), -1);
        CHECK_INT(fm.nseen, 2);
        summary_members_free(&fm);
    }

    /* strings read 8 bytes at a time: a byte the plain run stops at (quote,
     * backslash, control, UTF-8, DEL which is not one) at every place of
     * strings of 0 to 24 bytes, in a key, a string value and a unit */
    {
        static const char *const stops[] = {"\\\"", "\\\\", "\\n", "\\u00e9", "\x01", "\x1f",
                                            "\xc3\xa9", "\xff", "\x7f", "~", " ", "\"x"};
        char doc[256], str[64];
        int taken_here = 0;
        for (size_t k = 0; k < sizeof stops / sizeof stops[0]; k++)
            for (int len = 0; len <= 24; len++)
                for (int at = 0; at <= len; at++) {
                    int n = 0;
                    for (int i = 0; i < len; i++)
                        n += i == at ? sprintf(str + n, "%s", stops[k]) : sprintf(str + n, "%c", 'a' + i % 26);
                    if (at == len)
                        n += sprintf(str + n, "%s", stops[k]);
                    int dn = snprintf(doc, sizeof doc, "{\"name\":\"%s\",\"k%s\":1,\"memory\":[1,\"%s\"]}", str, str, str);
                    taken_here += compare(doc, (size_t)dn, &m);
                }
        CHECK(taken_here > 2000); /* (the others jansson refuses too, or the scanner leaves to it) */
    }

    /* numbers read without libc where that is exact (up to 18 digits, a
     * power of ten up to 10^22) and with it beyond: the same values to the
     * bit as jansson's strtod and strtoll, at the edges and at random */
    {
        static const char *const edges[] = {
            "0.1", "0.30000000000000004", "9007199254740992.0", "9007199254740993.0",
            "900719925474099.3", "123456789012345678", "1234567890123456789", "-123456789012345678",
            "999999999999999999", "1e22", "1e23", "1.5e-22", "15e-23", "4.9406564584124654e-324",
            "8.98846567431158e307", "2.2250738585072014e-308", "0.000000000000000000001", "-0.0",
            "1795000484.809", "0.919", "43.64", "1E+22", "1e-0", "100e-24", "-7.0e+0",
        };
        char doc[160];
        int same = 0, total = 0;
        for (int i = 0; i < 4000; i++) {
            char number[64], *q = number;
            if (i < (int)(sizeof edges / sizeof edges[0])) {
                snprintf(number, sizeof number, "%s", edges[i]);
            } else {
                if (pick(4) == 0)
                    *q++ = '-';
                unsigned digits = 1 + pick(20), point = pick(digits + 1);
                for (unsigned d = 0; d < digits; d++) {
                    if (d == point && d > 0)
                        *q++ = '.';
                    *q++ = (char)((d == 0 && (digits > 1 && point != 1) ? 1 + pick(9) : pick(10)) + '0');
                }
                if (point == digits && pick(2))
                    q += sprintf(q, ".%u", pick(1000));
                if (pick(3) == 0)
                    q += sprintf(q, "e%s%u", pick(2) ? "-" : pick(2) ? "+" : "", pick(40));
                else if (digits > 18 && !memchr(number, '.', (size_t)(q - number)))
                    q += sprintf(q, ".5"); /* no integer beyond a long long (refused both ways) */
                *q = '\0';
            }
            int n = snprintf(doc, sizeof doc, "{\"name\":\"n\",\"start\":%s,\"memory\":[%s,\"MB\"],\"x\":%s}",
                             number, number, number);
            total++;
            same += compare(doc, (size_t)n, &m);
        }
        CHECK_INT(same, total); /* every one taken (and the same as jansson's) */
    }

    /* generated documents, and damaged copies of them */
    static char buf[1 << 16];
    int generated_taken = 0;
    for (int round = 0; round < 30000; round++) {
        size_t len = generate(buf);
        generated_taken += compare(buf, len, &m);
        for (int k = 0; k < 2 && len > 0; k++) {
            size_t at = pick((unsigned)len);
            static const char bytes[] = "{}[]\",:\\ 0e.-aux\x80\xff";
            switch (pick(3)) {
            case 0: buf[at] = bytes[pick(sizeof bytes - 1)]; break;
            case 1: memmove(buf + at, buf + at + 1, len - at); len--; break;
            default:
                memmove(buf + at + 1, buf + at, len - at + 1);
                buf[at] = bytes[pick(sizeof bytes - 1)];
                len++;
                break;
            }
            compare(buf, len, &m);
        }
    }
    fprintf(stderr, "scanned %d, declined %d, generated taken %d of 30000\n", scanned, declined,
            generated_taken);
    /* the generator gives many documents the scanner takes (and compares) */
    CHECK(generated_taken > 3000);
    summary_members_free(&m);
    return test_done();
}
