// Cost of a simhash index scan: genericcostestimate with the number of
// entries the scan reads preset. Where the scan probes (sx::plan_scan, also
// beyond max_distance) it reads, in each table, the true matches plus the
// random rows that share its prefixes; anything else (no qualifier, radii
// the probes do not pay for) sweeps one table: its
// leaves in key order, which the build laid out one after another, and per
// entry an XOR and a popcount of packed keys, far less than a heap tuple's
// cost. Each match costs more: it is collected, sorted by TID and passed on,
// ~150 ns at 100k rows against ~50 ns per row of a sequential scan, so four
// heap tuples' CPU. Priced as random page reads of every table and an index
// tuple per entry, a sweep at k = 10 over 100k rows (0.2-0.5 ms) looked
// dearer than the sequential scan it beats tenfold; now the planner moves to
// the sequential scan about where they take the same time (k = 27 there;
// index-only scans pay more per match, below).
#include "index.hpp"

#include <algorithm>
#include <cmath>

extern "C" {
#include "access/genam.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/restrictinfo.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
}

#include "selectivity.hpp"
#include "simhash_ball.hpp"

// The query radius of one index qualifier, -1 when unknown at plan time.
// (A ball of a type the scan cannot read is left to the scan to refuse.)
static int clause_radius(PlannerInfo *root, RestrictInfo *rinfo, Relation index) {
    if (!IsA(rinfo->clause, OpExpr)) return -1;
    OpExpr *op = castNode(OpExpr, rinfo->clause);
    int strategy = get_op_opfamily_strategy(op->opno, index->rd_opfamily[0]);
    if (strategy == kStrategyEqual) return 0;
    if (strategy != kStrategyInBall || list_length(op->args) != 2 ||
        !simhash_reads_argument(index, kStrategyInBall, exprType(static_cast<Node *>(lsecond(op->args)))))
        return -1;
    Node *ball = estimate_expression_value(root, static_cast<Node *>(lsecond(op->args)));
    if (IsA(ball, Const) && !castNode(Const, ball)->constisnull)
        return DatumGetSimhashBall(castNode(Const, ball)->constvalue)->radius;
    return constructed_radius(root, ball);
}

extern "C" void simhash_amcostestimate(PlannerInfo *root, IndexPath *path, double loop_count, Cost *startup,
                                       Cost *total, Selectivity *selectivity, double *correlation, double *pages) {
    IndexOptInfo *index = path->indexinfo;
    Relation rel = index_open(index->indexoid, AccessShareLock);
    SimhashMeta meta = simhash_read_meta(rel);
    sx::Layout layout = simhash_layout(meta);

    double rows = index->rel->tuples > 0 ? index->rel->tuples : index->tuples;
    constexpr int kNoQualifier = -2;  // (clause_radius's unknown is -1)
    int radius = kNoQualifier;
    ListCell *lc;
    foreach (lc, path->indexclauses) {
        IndexClause *ic = lfirst_node(IndexClause, lc);
        ListCell *qc;
        foreach (qc, ic->indexquals) {
            int r = clause_radius(root, lfirst_node(RestrictInfo, qc), rel);
            if (r == -1) r = meta.max_distance;  // unknown: assume the layout's radius
            r = Min(r, 64);  // (a constructed ball's radius is checked only when the ball is made)
            if (radius < 0 || r < radius) radius = r;
        }
    }
    index_close(rel, AccessShareLock);

    GenericCosts costs;
    memset(&costs, 0, sizeof(costs));
    // (The same plan as the scan's, from the planner's page count.)
    double leaves = index->pages / static_cast<double>(meta.tables);
    sx::ScanPlan plan{};
    bool sweep = radius < 0 || (plan = sx::plan_scan(layout, radius, leaves)).sweep;
    if (!sweep) {
        List *quals = get_quals_from_indexclauses(path->indexclauses);
        double matches = clauselist_selectivity(root, quals, index->rel->relid, JOIN_INNER, nullptr) * rows;
        costs.numIndexTuples = meta.tables * matches + rows * plan.fraction + meta.tables;
        // Beyond max_distance each of the many probes reads a leaf at least:
        // a leaf's worth of rows each, so that genericcostestimate counts a
        // page more per probe.
        if (radius > meta.max_distance && index->pages > 0)
            costs.numIndexTuples += static_cast<double>(plan.probes) * index->tuples / index->pages;
    } else {
        costs.numIndexTuples = rows;
    }
    genericcostestimate(root, path, loop_count, &costs);
    double matches = costs.indexSelectivity * rows;
    // (The tables share the pages evenly; the NULL list holds one short entry
    // per NULL row, usually next to nothing.)
    double table_pages = std::ceil(index->pages / static_cast<double>(meta.tables));
    double sweep_cost = table_pages * seq_page_cost + rows * cpu_operator_cost;
    if (sweep) {
        // genericcostestimate's selectivity and startup cost (the qualifiers'
        // arguments) are kept; its page and per-entry costs are replaced.
        costs.numIndexPages = table_pages;
        costs.indexTotalCost = costs.indexStartupCost + sweep_cost + matches * 4 * cpu_tuple_cost;
    }
    // An index-only scan finds each match again in its leaf, pinned, before
    // returning it (recheck_entry): 0.37 us a match against a bitmap scan's
    // 0.18 at 100k rows. Unpriced, the planner kept index-only sweeps up to
    // k = 29, where they took 1.5x to 2.3x a sequential scan's time (k = 27 to 29).
    if (path->path.pathtype == T_IndexOnlyScan) costs.indexTotalCost += matches * 6 * cpu_tuple_cost;
    int norderbys = list_length(path->indexorderbys);
    // One ORDER BY distance and no qualifier: the rows beyond max_distance
    // come in batches doubling from kFirstSweepBatch, each a sweep of one
    // table pushing its rows through a bounded heap, so an answer read whole
    // takes log2(matches / 1,024) sweeps. Unpriced, the planner took the
    // index for a whole ORDER BY of 1M rows (800-850 ms, where the sequential
    // scan and its sort took 210-225); it interpolates a LIMIT's share of
    // this linearly. (Under a qualifier the scan may instead collect its
    // rows once and sort them, when the ball is not around the ORDER BY
    // point, which the plan does not tell here; such answers are few.)
    if (norderbys == 1 && radius == kNoQualifier) {
        double sweeps = std::ceil(std::log2(matches / kFirstSweepBatch + 1));
        costs.indexTotalCost += std::max(sweeps - 1, 0.0) * sweep_cost +
                                matches * std::log2(std::max(matches, 2.0)) * cpu_operator_cost;
    }
    // Ties of the first ORDER BY distance broken by the next: the scan
    // collects every row its qualifiers allow and sorts them before the first
    // is returned.
    if (norderbys > 1) {
        costs.indexTotalCost += matches * std::log2(std::max(matches, 2.0)) * norderbys * cpu_operator_cost;
        costs.indexStartupCost = costs.indexTotalCost;
    }
    *startup = costs.indexStartupCost;
    *total = costs.indexTotalCost;
    *selectivity = costs.indexSelectivity;
    *correlation = 0.0;
    *pages = costs.numIndexPages;
}
