// The loadable module's identity.
extern "C" {
#include "postgres.h"
#include "fmgr.h"

PG_MODULE_MAGIC;
}

void simhash_register_reloptions();
void simhash_define_test_hooks();

extern "C" void _PG_init(void) {
    simhash_register_reloptions();
    simhash_define_test_hooks();
}
