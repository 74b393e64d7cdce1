#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "index_page.hpp"
#include "run_merge.hpp"

using simhash::RunHead;
using simhash::index::EntryKey;
using simhash::index::key_less;

namespace {

using KeyMerge = simhash::RunMerge<EntryKey, key_less>;

// Merges `runs` the way the glue does: pull the next record of the top's run.
std::vector<std::pair<EntryKey, std::uint32_t>> merge(const std::vector<std::vector<EntryKey>> &runs) {
    std::vector<RunHead<EntryKey>> storage(runs.size() + 1);
    std::vector<std::size_t> pos(runs.size(), 0);
    KeyMerge m(storage.data());
    for (std::uint32_t r = 0; r < runs.size(); ++r)
        if (!runs[r].empty()) m.push(runs[r][pos[r]++], r);
    std::vector<std::pair<EntryKey, std::uint32_t>> out;
    while (!m.empty()) {
        auto head = m.top();
        out.emplace_back(head.record, head.run);
        if (pos[head.run] < runs[head.run].size())
            m.replace_top(runs[head.run][pos[head.run]++]);
        else
            m.pop();
    }
    return out;
}

bool same(const EntryKey &a, const EntryKey &b) { return !key_less(a, b) && !key_less(b, a); }

}  // namespace

TEST(RunMerge, RandomRunsMergeToTheSortedWhole) {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 50; ++trial) {
        std::size_t nruns = 1 + rng() % 40;
        std::vector<std::vector<EntryKey>> runs(nruns);
        std::vector<EntryKey> all;
        for (auto &run : runs) {
            std::size_t n = rng() % 200;  // some runs empty
            for (std::size_t i = 0; i < n; ++i) {
                // Few distinct keys: equal keys across runs, ordered by TID.
                EntryKey e{rng() % 16, static_cast<std::uint32_t>(rng() % 8), static_cast<std::uint16_t>(rng() % 4)};
                run.push_back(e);
                all.push_back(e);
            }
            std::sort(run.begin(), run.end(), key_less);
        }
        std::stable_sort(all.begin(), all.end(), key_less);
        auto out = merge(runs);
        ASSERT_EQ(out.size(), all.size());
        for (std::size_t i = 0; i < all.size(); ++i) ASSERT_TRUE(same(out[i].first, all[i])) << i;
        // Stable: equal records leave in run order.
        for (std::size_t i = 1; i < out.size(); ++i) {
            if (same(out[i - 1].first, out[i].first)) {
                ASSERT_LE(out[i - 1].second, out[i].second);
            }
        }
    }
}

TEST(RunMerge, NoRunsAndOneRun) {
    EXPECT_TRUE(merge({}).empty());
    EXPECT_TRUE(merge({{}, {}}).empty());
    std::vector<EntryKey> one{{1, 0, 1}, {1, 0, 2}, {5, 3, 1}};
    auto out = merge({one});
    ASSERT_EQ(out.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(same(out[i].first, one[i]));
}

TEST(RunMerge, FanInAtLeastTwo) {
    EXPECT_EQ(simhash::merge_fan_in(1 << 20, 8192), 128u);
    EXPECT_EQ(simhash::merge_fan_in(1000, 8192), 2u);
    EXPECT_EQ(simhash::merge_fan_in(1000, 0), 1000u);
}
