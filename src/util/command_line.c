/* A command's words as one line of text and back (see command_line.h). */
#include "util/command_line.h"
#include "util/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the UTF-8 sequence at s, or 0 when it is not a valid one. */
static size_t utf8_sequence(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n;
    unsigned min;
    unsigned cp;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        n = 2, min = 0x80, cp = s[0] & 0x1f;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        n = 3, min = 0x800, cp = s[0] & 0x0f;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        n = 4, min = 0x10000, cp = s[0] & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

bool command_line_is_utf8(const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        size_t n = utf8_sequence(s);
        if (!n)
            return false;
        s += n;
    }
    return true;
}

/* A growing string written through a memstream. */
struct text {
    char *data;
    size_t len;
    FILE *out;
};

static bool text_open(struct text *t)
{
    t->data = NULL;
    t->len = 0;
    t->out = open_memstream(&t->data, &t->len);
    return t->out != NULL;
}

static char *text_close(struct text *t)
{
    if (fclose(t->out) != 0) {
        free(t->data);
        return NULL;
    }
    return t->data;
}

static bool is_plain(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("_@%+=:,./-", c);
}

/* How a word must be written: 0 bare, 1 '...', 2 $'...'. */
static int word_form(const char *word)
{
    if (!*word)
        return 1;
    int form = 0;
    for (const unsigned char *s = (const unsigned char *)word; *s;) {
        size_t n = utf8_sequence(s);
        if (!n || *s < 0x20 || *s == 0x7f)
            return 2;
        if (n > 1 || !is_plain(*s))
            form = 1;
        s += n;
    }
    return form;
}

static void write_ansi_c(FILE *out, const char *word)
{
    fputs("$'", out);
    for (const unsigned char *s = (const unsigned char *)word; *s;) {
        size_t n = utf8_sequence(s);
        if (n > 1) {
            fwrite(s, 1, n, out);
            s += n;
            continue;
        }
        unsigned char c = *s++;
        if (c == '\\' || c == '\'')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c == '\r')
            fputs("\\r", out);
        else if (n == 0 || c < 0x20 || c == 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
    fputc('\'', out);
}

char *command_line_quote(char *const *words)
{
    struct text t;
    if (!text_open(&t))
        return NULL;
    for (char *const *w = words; *w; w++) {
        if (w != words)
            fputc(' ', t.out);
        switch (word_form(*w)) {
        case 0:
            fputs(*w, t.out);
            break;
        case 1:
            fputc('\'', t.out);
            for (const char *c = *w; *c; c++)
                fputs(*c == '\'' ? "'\\''" : (char[]){*c, 0}, t.out);
            fputc('\'', t.out);
            break;
        default:
            write_ansi_c(t.out, *w);
        }
    }
    return text_close(&t);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* One escape of $'...' at *p (after the backslash) into out; advances *p. */
static void read_ansi_c_escape(const char **p, FILE *out)
{
    static const char from[] = "ntrabefv\\'\"?", to[] = "\n\t\r\a\b\x1b\f\v\\'\"?";
    char c = **p;
    const char *k = c ? strchr(from, c) : NULL;
    if (k) {
        fputc(to[k - from], out);
        (*p)++;
    } else if (c == 'x' && hex_digit((*p)[1]) >= 0) {
        int v = hex_digit((*p)[1]);
        *p += 2;
        if (hex_digit(**p) >= 0)
            v = v * 16 + hex_digit(*(*p)++);
        fputc(v, out);
    } else if (c >= '0' && c <= '7') {
        int v = 0;
        for (int i = 0; i < 3 && **p >= '0' && **p <= '7'; i++)
            v = v * 8 + *(*p)++ - '0';
        fputc(v & 0xff, out);
    } else { /* unknown: kept as written, as bash does */
        fputc('\\', out);
    }
}

/* Reads one word starting at *p (not a blank) of LINE into a malloc'd
 * string; advances *p. NULL with why on error. */
static char *read_word(const char *line, const char **p, char *why, size_t why_size)
{
    struct text t;
    if (!text_open(&t)) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    const char *s = *p;
    const char *open = NULL;
    while (*s && *s != ' ' && *s != '\t' && *s != '\n') {
        if (*s == '\'') {
            open = s++;
            while (*s && *s != '\'')
                fputc(*s++, t.out);
            if (!*s)
                break;
            s++, open = NULL;
        } else if (s[0] == '$' && s[1] == '\'') {
            open = s;
            s += 2;
            while (*s && *s != '\'') {
                if (*s == '\\' && s[1]) {
                    s++;
                    read_ansi_c_escape(&s, t.out);
                } else {
                    fputc(*s++, t.out);
                }
            }
            if (!*s)
                break;
            s++, open = NULL;
        } else if (*s == '"') {
            open = s++;
            while (*s && *s != '"') {
                if (*s == '\\' && s[1] && strchr("\\\"$`\n", s[1])) {
                    if (s[1] != '\n')
                        fputc(s[1], t.out);
                    s += 2;
                } else {
                    fputc(*s++, t.out);
                }
            }
            if (!*s)
                break;
            s++, open = NULL;
        } else if (*s == '\\') {
            if (s[1] && s[1] != '\n')
                fputc(s[1], t.out);
            s += s[1] ? 2 : 1;
        } else {
            fputc(*s++, t.out);
        }
    }
    char *word = text_close(&t);
    if (!word) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    if (open) {
        snprintf(why, why_size, "unterminated %s at byte %zu", *open == '$' ? "$'" : *open == '"' ? "\"" : "'",
                 (size_t)(open - line) + 1);
        free(word);
        return NULL;
    }
    *p = s;
    return word;
}

void command_line_free(char **words)
{
    if (!words)
        return;
    for (char **w = words; *w; w++)
        free(*w);
    free(words);
}

int command_line_split(const char *line, char ***words, char *why, size_t why_size)
{
    size_t n = 0, cap = 4;
    char **list = malloc(cap * sizeof *list);
    if (!list) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    for (const char *p = line;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        char *word = read_word(line, &p, why, why_size);
        if (!word || VEC_RESERVE(list, cap, n + 2) < 0) {
            if (word)
                snprintf(why, why_size, "out of memory");
            free(word);
            list[n] = NULL;
            command_line_free(list);
            return -1;
        }
        list[n++] = word;
    }
    list[n] = NULL;
    *words = list;
    return (int)n;
}

char *command_line_one_line(const char *text)
{
    struct text t;
    if (!text_open(&t))
        return NULL;
    for (const unsigned char *s = (const unsigned char *)text; *s;) {
        size_t n = utf8_sequence(s);
        if (n > 1) {
            fwrite(s, 1, n, t.out);
            s += n;
            continue;
        }
        unsigned char c = *s++;
        if (c == '\n')
            fputs("\\n", t.out);
        else if (c == '\t')
            fputs("\\t", t.out);
        else if (c == '\r')
            fputs("\\r", t.out);
        else if (n == 0 || c < 0x20 || c == 0x7f)
            fprintf(t.out, "\\x%02x", c);
        else
            fputc(c, t.out);
    }
    return text_close(&t);
}
