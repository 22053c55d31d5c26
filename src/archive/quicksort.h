/* An in-place quicksort with the comparison inlined, as a template: the
 * archive sorts 100k-element columns, where qsort's call per comparison is
 * most of the cost. Median-of-three pivot, Hoare partition, recursion on the
 * smaller side (bounded stack), insertion sort for short runs.
 *
 *   DEFINE_QUICKSORT(sort_doubles, double, KEY_SELF)
 *   DEFINE_QUICKSORT(sort_tasks, struct task, KEY_FIELD_PEAK)   with
 *   #define KEY_FIELD_PEAK(e) ((e).peak)                                    */
#ifndef TALLY_ARCHIVE_QUICKSORT_H
#define TALLY_ARCHIVE_QUICKSORT_H

#include <stddef.h>

#define KEY_SELF(e) (e)

#define DEFINE_QUICKSORT(name, type, key)                                                   \
    static void name(type *a, size_t n)                                                     \
    {                                                                                       \
        while (n > 16) {                                                                    \
            double x = key(a[0]), y = key(a[n / 2]), z = key(a[n - 1]);                     \
            double pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y)); \
            size_t i = 0, j = n - 1;                                                        \
            for (;;) {                                                                      \
                while (key(a[i]) < pivot)                                                   \
                    i++;                                                                    \
                while (key(a[j]) > pivot)                                                   \
                    j--;                                                                    \
                if (i >= j)                                                                 \
                    break;                                                                  \
                type t = a[i];                                                              \
                a[i] = a[j];                                                                \
                a[j] = t;                                                                   \
                i++;                                                                        \
                j--;                                                                        \
            }                                                                               \
            size_t left = j + 1; /* a[0..j] <= pivot <= a[j+1..n), 1 <= left < n */        \
            if (left < n - left) {                                                          \
                name(a, left);                                                              \
                a += left;                                                                  \
                n -= left;                                                                  \
            } else {                                                                        \
                name(a + left, n - left);                                                   \
                n = left;                                                                   \
            }                                                                               \
        }                                                                                   \
        for (size_t i = 1; i < n; i++) {                                                    \
            type v = a[i];                                                                  \
            size_t j = i;                                                                   \
            while (j > 0 && key(a[j - 1]) > key(v)) {                                       \
                a[j] = a[j - 1];                                                            \
                j--;                                                                        \
            }                                                                               \
            a[j] = v;                                                                       \
        }                                                                                   \
    }

#endif
