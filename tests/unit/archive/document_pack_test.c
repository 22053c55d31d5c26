/* Unit tests for packing a summary's document against its row
 * (src/archive/document_pack.c): whatever the document, unpacking gives back
 * the same object, members in the same order, numbers to the bit, packed
 * whole (version 2) or against its shape (version 3); version 1 packings
 * still unpack. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "archive/document_pack.h"
#include "test.h"

/* Writers kept from one round trip to the next, as ingest keeps them from
 * one document to the next (document_pack_shaped_into). */
static struct byte_writer kept_values, kept_shape;

/* Packs text against cols, unpacks it, and compares the dumps (17 digits). */
static void round_trip(const char *text, const struct document_columns *cols, size_t *packed_len)
{
    json_t *root = json_loads(text, 0, NULL);
    CHECK(root != NULL);
    size_t len = 0;
    unsigned char *packed = document_pack(root, cols, &len);
    CHECK(packed != NULL);
    json_t *back = packed ? document_unpack(packed, len, cols) : NULL;
    CHECK(back != NULL);
    int flags = JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17);
    char *want = json_dumps(root, flags), *got = back ? json_dumps(back, flags) : NULL;
    CHECK_STR(got ? got : "(null)", want);
    /* a cut or damaged packing is refused, never read past its end */
    for (size_t cut = 0; packed && cut + 1 < len; cut += 3) {
        json_t *partial = document_unpack(packed, cut, cols);
        CHECK(partial == NULL);
        json_decref(partial);
    }
    if (packed_len)
        *packed_len = len;
    /* version 3: the member order apart, the same object back */
    struct summary_members m = {0};
    CHECK_INT(summary_members_from_json(&m, root), 0);
    size_t shape_len = 0;
    unsigned char *shaped = document_pack_shaped(&m, cols, &len, &shape_len);
    /* into the kept writers (holding the document before): the same bytes */
    CHECK_INT(document_pack_shaped_into(&m, cols, &kept_values, &kept_shape), 0);
    CHECK(shaped && kept_values.len == len && kept_shape.len == shape_len &&
          !memcmp(kept_values.data, shaped, len) &&
          !memcmp(kept_shape.data, shaped + len, shape_len));
    summary_members_free(&m);
    CHECK(shaped != NULL);
    json_t *again = shaped ? document_unpack_shaped(shaped, len, shaped + len, shape_len, cols) : NULL;
    char *got3 = again ? json_dumps(again, flags) : NULL;
    CHECK_STR(got3 ? got3 : "(null)", want);
    free(got3);
    json_decref(again);
    /* without its shape, or with either part cut, it is refused */
    CHECK(shaped && document_unpack(shaped, len, cols) == NULL);
    for (size_t cut = 0; shaped && cut + 1 < len; cut++)
        CHECK(document_unpack_shaped(shaped, cut, shaped + len, shape_len, cols) == NULL);
    for (size_t cut = 0; shaped && cut + 1 < shape_len; cut++)
        CHECK(document_unpack_shaped(shaped, len, shaped + len, cut, cols) == NULL);
    free(shaped);
    free(want);
    free(got);
    free(packed);
    json_decref(root);
    json_decref(back);
}

int main(void)
{
    struct document_columns cols;
    memset(&cols, 0, sizeof cols);
    cols.strings[DOC_NAME] = "align";
    cols.strings[DOC_CATEGORY] = "bio";
    cols.strings[DOC_HOST] = "c7";
    cols.has_integer[DOC_EXIT_STATUS] = true;
    cols.integers[DOC_EXIT_STATUS] = 0;
    cols.present[FIELD_MEMORY] = true;
    cols.values[FIELD_MEMORY] = 400;
    cols.present[FIELD_WALL_TIME] = true;
    cols.values[FIELD_WALL_TIME] = 409.647;
    cols.present[FIELD_START] = true;
    cols.values[FIELD_START] = 1795000030.0;
    cols.present[FIELD_CORES] = true;
    cols.values[FIELD_CORES] = 3;

    /* a tally summary: every column-held member becomes a reference */
    const char *tally = "{\"name\":\"align\",\"category\":\"bio\",\"host\":\"c7\",\"exit_status\":0,"
                        "\"start\":[1795000030.000,\"s\"],\"wall_time\":[409.647,\"s\"],"
                        "\"memory\":[400,\"MB\"],\"seq\":\"1-3\"}";
    size_t len = 0;
    round_trip(tally, &cols, &len);
    /* version, 4 strings/integers and 3 fields of one byte each, "seq" as text (11), end
     * (30 bytes in version 1) */
    CHECK_INT(len, 20);
    /* tally's own members name their key by its number */
    round_trip("{\"tally_version\":\"0.1\",\"peak_times\":{\"memory\":[1.5,\"s\"]}}", &cols, &len);
    CHECK_INT(len, 1 + (2 + 1 + 5) + (2 + 1 + 20) + 1); /* tag, key number, length, text */

    /* a document packed by version 1 (archives written before) still unpacks */
    static const unsigned char v1[] = {1, 2, 0, 3, 1, 1, FIELD_MEMORY, 1, 4, 3, 's', 'e', 'q', 5,
                                       '"', '1', '-', '3', '"', 0};
    json_t *old = document_unpack(v1, sizeof v1, &cols);
    char *old_text = old ? json_dumps(old, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    CHECK_STR(old_text ? old_text : "(null)",
              "{\"name\":\"align\",\"exit_status\":0,\"memory\":[400,\"MB\"],\"seq\":\"1-3\"}");
    free(old_text);
    json_decref(old);

    /* members that differ from their column stay as text: an overridden name,
     * another unit, a real where the column has an integer's value, a bare
     * number, -0, a nested object, a string where a number is expected */
    round_trip("{\"name\":\"other\",\"memory\":[0.390625,\"GB\"],\"cores\":3.0,\"host\":\"c7\"}", &cols,
               NULL);
    round_trip("{\"cores\":3,\"wall_time\":409.647,\"exit_status\":1,\"mystery\":{\"a\":[1,2.5,null]}}",
               &cols, NULL);
    round_trip("{\"memory\":[400.0,\"MB\"],\"category\":\"bio\\ttab\\nline\\\\\\\"q\",\"x\":-0.0}", &cols,
               NULL);
    round_trip("{\"disk\":[5,\"MB\"],\"memory\":\"lots\",\"level\":2,\"\":true}", &cols, NULL);
    round_trip("{\"wall_time\":[0.1,\"s\"],\"end\":[1e300,\"s\"],\"taskid\":17}", &cols, NULL);
    round_trip("{}", &cols, NULL);

    /* not a packed document */
    CHECK(document_unpack((const unsigned char *)"\x07", 1, &cols) == NULL);
    CHECK(document_unpack((const unsigned char *)"\x01\x09", 2, &cols) == NULL);
    /* a reference to a column the row does not have */
    CHECK(document_unpack((const unsigned char *)"\x01\x01\x0e\x00\x00", 5, &cols) == NULL);
    CHECK(document_unpack((const unsigned char *)"\x02\x8e\x00", 3, &cols) == NULL);
    /* version 1 has no one-byte references, no known key beyond the list */
    CHECK(document_unpack((const unsigned char *)"\x01\x99\x00", 3, &cols) == NULL);
    CHECK(document_unpack((const unsigned char *)"\x02\x05\x63\x01\x31\x00", 6, &cols) == NULL);
    free(kept_values.data);
    free(kept_shape.data);
    return test_done();
}
