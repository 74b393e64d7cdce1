// The search of simhash_near_pairs and simhash_clusters for inputs that do
// not fit in work_mem (dedup_read_input spilled them): PostgreSQL's external
// sort per table of the block layout, one run of equal prefixes in memory at a
// time, and row numbers resolved to keys by merging sorted pairs with the
// spilled rows. See docs/dedup.md, "Memory".
#pragma once

#include "dedup_input.hpp"

extern "C" {
#include "nodes/execnodes.h"
}

// Both write their rows into rsinfo->setResult and free the spilled rows.
void dedup_spilled_near_pairs(DedupInput *in, int k, ReturnSetInfo *rsinfo);
void dedup_spilled_clusters(DedupInput *in, int k, ReturnSetInfo *rsinfo);
