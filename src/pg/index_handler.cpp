// The access method's handler: what the simhash index can do.
#include "index.hpp"

#include "simhash64.hpp"

extern "C" {
#include "access/xlog.h"
#include "commands/progress.h"
#include "commands/vacuum.h"
}

// The index holds each whole fingerprint: index-only scans need no heap.
// Not on a hot standby: an index-only scan is safe because VACUUM needs a
// cleanup lock on the leaf the scan keeps pinned (see recheck_entry), and the
// replay of VACUUM's generic WAL records takes an exclusive lock only, so a
// standby's scan could return a row whose heap tuple the replay has freed
// and whose page it has set all-visible meanwhile.
static bool simhash_amcanreturn(Relation, int attno) { return attno == 1 && !RecoveryInProgress(); }

static char *simhash_ambuildphasename(int64 phase) {
    switch (phase) {
    case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
        return const_cast<char *>("initializing");
    case kPhaseScanHeap:
        return const_cast<char *>("scanning table");
    case kPhaseWriteTables:
        return const_cast<char *>("writing tables");
    default:
        return nullptr;
    }
}

SIMHASH_FUNCTION(simhash_index_handler) {
    IndexAmRoutine *am = makeNode(IndexAmRoutine);
    am->amstrategies = 3;
    am->amsupport = 0;
    am->amoptsprocnum = 0;
    am->amcanorder = false;
    am->amcanorderbyop = true;
    am->amcanbackward = false;
    am->amcanunique = false;
    am->amcanmulticol = false;
    // An ORDER BY fp <-> q scan has no qualifier; NULLs are never indexed.
    am->amoptionalkey = true;
    am->amsearcharray = false;
    am->amsearchnulls = false;
    am->amstorage = false;
    am->amclusterable = false;
    am->ampredlocks = false;
    am->amcanparallel = false;
    am->amcaninclude = false;
    am->amusemaintenanceworkmem = true;
    am->amparallelvacuumoptions = VACUUM_OPTION_PARALLEL_BULKDEL;
    am->amkeytype = InvalidOid;

    am->ambuild = simhash_ambuild;
    am->ambuildempty = simhash_ambuildempty;
    am->aminsert = simhash_aminsert;
    am->ambulkdelete = simhash_ambulkdelete;
    am->amvacuumcleanup = simhash_amvacuumcleanup;
    am->amcanreturn = simhash_amcanreturn;
    am->amcostestimate = simhash_amcostestimate;
    am->amoptions = simhash_amoptions;
    am->amproperty = nullptr;
    am->ambuildphasename = simhash_ambuildphasename;
    am->amvalidate = simhash_amvalidate;
    am->amadjustmembers = nullptr;
    am->ambeginscan = simhash_ambeginscan;
    am->amrescan = simhash_amrescan;
    am->amgettuple = simhash_amgettuple;
    am->amgetbitmap = simhash_amgetbitmap;
    am->amendscan = simhash_amendscan;
    am->ammarkpos = nullptr;
    am->amrestrpos = nullptr;
    am->amestimateparallelscan = nullptr;
    am->aminitparallelscan = nullptr;
    am->amparallelrescan = nullptr;
    PG_RETURN_POINTER(am);
}
