// The external sort of index keys for a build that does not fit in
// maintenance_work_mem: the caller sorts each memory-load in memory and adds
// it as a run; runs live on one logical tape set (temp files owned by the
// transaction's resource owner, so an error removes them) and come back as
// one sorted stream through a k-way merge (src/core/run_merge.hpp), in passes
// when there are more runs than read buffers fit in the memory allowed.
#pragma once

#include "index.hpp"

struct KeySpill;

// `sorts` independent sorts share the tape set (one per table of the index).
KeySpill *key_spill_create(int sorts);
// Appends `n` keys, already sorted, as one run of sort `sort`.
void key_spill_add_run(KeySpill *spill, int sort, const sx::EntryKey *keys, Size n);
// Merges sort `sort`'s runs down to as many as `memory` bytes of read buffers
// allow, then starts reading it; one sort is read at a time.
void key_spill_begin_read(KeySpill *spill, int sort, Size memory);
// The next key of the sort being read, false after the last.
bool key_spill_next(KeySpill *spill, sx::EntryKey *key);
// Releases the sort being read (its tape space is reused by the next).
void key_spill_end_read(KeySpill *spill);
void key_spill_close(KeySpill *spill);
