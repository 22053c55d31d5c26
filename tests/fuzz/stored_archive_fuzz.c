/* Fuzzes the readers of what the archive stores in its own binary forms, as
 * a damaged or foreign archive would hand them over: a packed document
 * (document_unpack, src/archive/document_pack.c) and an aggregate
 * (aggregate_decode_merge, src/archive/aggregate.c). A packed document that
 * unpacks is an object that packs and unpacks again to the same text; an
 * aggregate that decodes has no more bins than its bytes can hold. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "archive/aggregate.h"
#include "archive/document_pack.h"

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
    int flags = JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17);
    char *a = json_dumps(doc, flags), *b = again ? json_dumps(again, flags) : NULL;
    if (!a || !b || strcmp(a, b))
        abort();
    free(a);
    free(b);
    free(packed);
    json_decref(again);
    json_decref(doc);
}

static void aggregate(const uint8_t *data, size_t size)
{
    struct aggregate a;
    aggregate_init(&a);
    if (aggregate_decode_merge(&a, data, size) == 0) {
        for (size_t f = 0; f < FIELD_COUNT; f++) /* a bin takes 3 bytes or more */
            if (a.fields[f].nbins > size / 3)
                abort();
    }
    aggregate_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    document(data, size);
    aggregate(data, size);
    return 0;
}
