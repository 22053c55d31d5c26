/* libFuzzer harness for the contract file parser (src/contract/
 * contract_file.c, with the rulebases it embeds): no input may crash, leak
 * or read out of bounds; whatever is accepted can be evaluated by the
 * monitor. Build and run (self-contained, from the repository root):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *     tests/fuzz/contract_file_fuzz.c src/contract/[a-z]*.c src/util/atomic_file.c \
 *     -ljansson -lm -o build/contract_file_fuzz
 *   build/contract_file_fuzz tests/fuzz/corpus/contract_file -max_total_time=60 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "contract/contract.h"
#include "contract/monitor.h"

static void ignore(void *ctx, const struct contract_level *l)
{
    (void)ctx;
    if (l->level < 0 || l->level > 1)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct contract c;
    char why[512];
    if (contract_parse((const char *)data, size, "fuzz", &c, why, sizeof why) < 0)
        return 0;
    struct contract_sample s;
    sample_init(&s);
    strcpy(s.process, "p");
    strcpy(s.host, "h");
    s.time = 10;
    s.period = 1;
    for (int m = 0; m < CONTRACT_N_METRICS; m++)
        s.value[m] = (double)(m + 1);
    struct contract_monitor *mon = contract_monitor_new(&c, 0.5, NULL, 0);
    if (mon) {
        contract_monitor_set_live_factors(mon, (int)(size & 1));
        contract_monitor_feed(mon, &s, 1, ignore, NULL);
        contract_monitor_free(mon);
    }
    contract_free(&c);
    return 0;
}
