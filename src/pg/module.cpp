// The loadable module's identity.
extern "C" {
#include "postgres.h"
#include "fmgr.h"

PG_MODULE_MAGIC;
}
