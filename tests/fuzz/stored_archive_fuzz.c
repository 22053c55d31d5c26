/* Fuzzes the readers of what the archive stores in its own binary forms, as
 * a damaged or foreign archive would hand them over: a packed document,
 * whole or with its shape (document_unpack and document_unpack_shaped,
 * src/archive/document_pack.c), and an aggregate
 * (aggregate_decode_merge, src/archive/aggregate_codec.c). A packed
 * document that unpacks is an object that packs and unpacks again to the
 * same text; an aggregate that decodes has no more bins than its bytes can
 * hold, and stored again (version 4) and read back is the same to the bit. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "archive/aggregate.h"
#include "archive/document_pack.h"
#include "../unit/archive/aggregate_same.h"

/* again (NULL: it did not unpack) must print as doc does; both are freed. */
static void expect_same(json_t *doc, json_t *again)
{
    int flags = JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17);
    char *a = json_dumps(doc, flags), *b = again ? json_dumps(again, flags) : NULL;
    if (!a || !b || strcmp(a, b))
        abort();
    free(a);
    free(b);
    json_decref(again);
    json_decref(doc);
}

static void document(const uint8_t *data, size_t size)
{
    struct document_columns cols;
    memset(&cols, 0, sizeof cols);
    cols.strings[DOC_NAME] = "align";
    cols.strings[DOC_HOST] = "c7";
    cols.has_integer[DOC_LEVEL] = true;
    cols.integers[DOC_LEVEL] = 2;
    for (int f = 0; f < FIELD_COUNT; f += 2) {
        cols.present[f] = true;
        cols.values[f] = f * 10.5;
    }
    json_t *doc = document_unpack(data, size, &cols);
    if (!doc)
        return;
    if (!json_is_object(doc))
        abort();
    size_t len;
    unsigned char *packed = document_pack(doc, &cols, &len);
    json_t *again = packed ? document_unpack(packed, len, &cols) : NULL;
    free(packed);
    expect_same(doc, again);
}

/* The input as a version 3 document and its shape, split at its first byte's
 * position: what unpacks is an object that packs and unpacks again to the
 * same text. */
static void shaped_document(const uint8_t *data, size_t size)
{
    if (size < 2)
        return;
    size_t split = 1 + data[0] % (size - 1);
    struct document_columns cols;
    memset(&cols, 0, sizeof cols);
    cols.strings[DOC_NAME] = "align";
    cols.has_integer[DOC_LEVEL] = true;
    cols.integers[DOC_LEVEL] = 2;
    for (int f = 0; f < FIELD_COUNT; f += 3) {
        cols.present[f] = true;
        cols.values[f] = f * 0.25;
    }
    /* the document: data[1, split); the shape: data[split, size) */
    json_t *doc = document_unpack_shaped(data + 1, split - 1, data + split, size - split, &cols);
    if (!doc)
        return;
    if (!json_is_object(doc))
        abort();
    struct summary_members m = {0};
    size_t len = 0, shape_len = 0;
    unsigned char *packed = summary_members_from_json(&m, doc) == 0
                                ? document_pack_shaped(&m, &cols, &len, &shape_len) : NULL;
    summary_members_free(&m);
    json_t *again = packed ? document_unpack_shaped(packed, len, packed + len, shape_len, &cols) : NULL;
    free(packed);
    expect_same(doc, again);
}

static void aggregate(const uint8_t *data, size_t size)
{
    struct aggregate a;
    aggregate_init(&a);
    if (aggregate_decode_merge(&a, data, size) == 0) {
        for (size_t f = 0; f < FIELD_COUNT; f++) /* a bin takes 2 bytes or more */
            if (a.fields[f].nbins > size / 2)
                abort();
        size_t len;
        unsigned char *stored = aggregate_encode(&a, &len);
        struct aggregate back;
        aggregate_init(&back);
        if (!stored || aggregate_decode_merge(&back, stored, len) != 0 || !same_aggregate(&a, &back))
            abort();
        free(stored);
        aggregate_free(&back);
    }
    aggregate_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    document(data, size);
    shaped_document(data, size);
    aggregate(data, size);
    return 0;
}
