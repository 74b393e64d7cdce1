#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

#include "block_layout.hpp"
#include "hamming.hpp"
#include "near_pairs.hpp"

using simhash::BlockLayout;
using simhash::NearPair;
using simhash::NearPairsOptions;

namespace {

using Triple = std::tuple<std::uint32_t, std::uint32_t, int>;

std::vector<Triple> brute_pairs(const std::vector<std::uint64_t> &fp, int k) {
    std::vector<Triple> out;
    for (std::uint32_t a = 0; a < fp.size(); ++a)
        for (std::uint32_t b = a + 1; b < fp.size(); ++b) {
            int d = simhash::hamming_distance(fp[a], fp[b]);
            if (d <= k) out.emplace_back(a, b, d);
        }
    return out;
}

void collect(void *context, const NearPair *pairs, std::size_t count) {
    auto *out = static_cast<std::vector<Triple> *>(context);
    for (std::size_t i = 0; i < count; ++i) out->emplace_back(pairs[i].a, pairs[i].b, pairs[i].distance);
}

// Sorted, and duplicates kept: a pair reported twice must show up as a failure.
std::vector<Triple> fast_pairs(const std::vector<std::uint64_t> &fp, int k, int blocks) {
    std::vector<Triple> out;
    NearPairsOptions o;
    o.k = k;
    o.blocks = blocks;
    o.context = &out;
    o.emit = collect;
    simhash::find_near_pairs(fp.data(), fp.size(), o);
    std::sort(out.begin(), out.end());
    return out;
}

// Clusters by brute force: union of all pairs, representative = lowest row.
void brute_clusters(const std::vector<std::uint64_t> &fp, int k, std::vector<std::uint32_t> &rep,
                    std::vector<std::uint32_t> &size) {
    std::vector<std::uint32_t> label(fp.size());
    std::iota(label.begin(), label.end(), 0u);
    bool changed = true;
    auto pairs = brute_pairs(fp, k);
    while (changed) {
        changed = false;
        for (auto &[a, b, d] : pairs) {
            std::uint32_t m = std::min(label[a], label[b]);
            if (label[a] != m || label[b] != m) {
                label[a] = label[b] = m;
                changed = true;
            }
        }
    }
    rep = label;
    size.assign(fp.size(), 0);
    std::vector<std::uint32_t> count(fp.size(), 0);
    for (auto l : label) ++count[l];
    for (std::size_t i = 0; i < fp.size(); ++i) size[i] = count[label[i]];
}

// Families of near-duplicates: random centres, members a few bit flips away,
// some exact copies, plus a shared high prefix so prefix runs get long.
std::vector<std::uint64_t> clustered(std::mt19937_64 &rng, std::size_t n) {
    std::vector<std::uint64_t> fp;
    std::uint64_t common = rng() & 0xFFFF000000000000ull;
    while (fp.size() < n) {
        std::uint64_t centre = common | (rng() >> 16);
        std::size_t members = 1 + rng() % 6;
        for (std::size_t i = 0; i < members && fp.size() < n; ++i) {
            std::uint64_t v = centre;
            int flips = static_cast<int>(rng() % 7);
            for (int f = 0; f < flips; ++f) v ^= std::uint64_t{1} << (rng() % 64);
            fp.push_back(v);
        }
    }
    std::shuffle(fp.begin(), fp.end(), rng);
    return fp;
}

}  // namespace

TEST(BlockLayout, PigeonholeAndUniqueReporter) {
    std::mt19937_64 rng(7);
    for (int k = 1; k <= 8; ++k) {
        for (int blocks = k; blocks <= k + 4; ++blocks) {
            BlockLayout layout(k, blocks);
            ASSERT_EQ(layout.tables(), simhash::binomial(blocks, k));
            for (int trial = 0; trial < 2000; ++trial) {
                std::uint64_t a = rng(), x = 0;
                int flips = static_cast<int>(rng() % (k + 1));
                for (int f = 0; f < flips; ++f) x ^= std::uint64_t{1} << (rng() % 64);
                std::uint64_t b = a ^ x;
                int reporters = 0;
                for (std::size_t t = 0; t < layout.tables(); ++t) {
                    // The permutation keeps distances.
                    ASSERT_EQ(simhash::hamming_distance(layout.permute(t, a), layout.permute(t, b)),
                              simhash::hamming_distance(a, b));
                    int bits = layout.prefix_bits(t);
                    bool same_prefix = bits == 0 || (layout.permute(t, a) >> (64 - bits)) ==
                                                        (layout.permute(t, b) >> (64 - bits));
                    if (layout.reports_pair(t, x)) {
                        ++reporters;
                        EXPECT_TRUE(same_prefix) << "k=" << k << " blocks=" << blocks;
                    }
                }
                EXPECT_EQ(reporters, 1) << "k=" << k << " blocks=" << blocks << " x=" << x;
            }
        }
    }
}

TEST(BlockLayout, RejectsBadLayouts) {
    EXPECT_THROW(BlockLayout(0, 1), simhash::Error);
    EXPECT_THROW(BlockLayout(3, 2), simhash::Error);
    EXPECT_THROW(BlockLayout(3, 65), simhash::Error);
    EXPECT_THROW(BlockLayout(8, 40), simhash::Error);  // C(40, 8) tables
    EXPECT_NO_THROW(BlockLayout(64, 64));
}

TEST(BlockLayout, ChoosesByTheData) {
    std::mt19937_64 rng(9);
    std::vector<std::uint64_t> few(10), many(300000), skewed(300000);
    for (auto &v : few) v = rng();
    for (auto &v : many) v = rng();
    // Low 16 bits carry 6 random bits only: a 16-bit block there is a poor prefix.
    for (auto &v : skewed) v = (rng() & ~std::uint64_t{0xFFFF}) | ((rng() & 0x3F) << 10);
    std::sort(many.begin(), many.end());
    std::sort(skewed.begin(), skewed.end());
    EXPECT_EQ(BlockLayout::choose_blocks(3, few.data(), few.size()), 3);  // tiny: all pairs
    EXPECT_EQ(BlockLayout::choose_blocks(3, many.data(), many.size()), 4);
    EXPECT_GT(BlockLayout::choose_blocks(3, skewed.data(), skewed.size()), 4);
    for (int k = 1; k <= 64; k += 7) {
        int blocks = BlockLayout::choose_blocks(k, many.data(), many.size());
        EXPECT_NO_THROW(BlockLayout(k, blocks)) << k;
    }
}

TEST(NearPairs, MatchesBruteForceEveryK) {
    std::mt19937_64 rng(11);
    for (int k = 0; k <= 8; ++k) {
        for (int round = 0; round < 3; ++round) {
            std::size_t n = 50 + rng() % 400;
            std::vector<std::uint64_t> fp = round == 0 ? std::vector<std::uint64_t>(n) : clustered(rng, n);
            if (round == 0)
                for (auto &v : fp) v = rng();
            auto expected = brute_pairs(fp, k);
            std::vector<int> layouts = {0};
            if (k > 0)
                for (int b = k; b <= k + 3; ++b) layouts.push_back(b);
            for (int blocks : layouts)
                EXPECT_EQ(fast_pairs(fp, k, blocks), expected) << "k=" << k << " blocks=" << blocks;
        }
    }
}

TEST(NearPairs, IdenticalFingerprintsAllReported) {
    // seomoz/simhash-cpp issue 53: equal fingerprints must not hide each other.
    std::vector<std::uint64_t> fp(30, 0x0123456789abcdefull);
    fp.push_back(0x0123456789abcdeeull);  // one bit away from all 30
    fp.push_back(0xfedcba9876543210ull);  // far from everything
    for (int blocks : {0, 3, 4, 5}) {
        auto got = fast_pairs(fp, 3, blocks);
        EXPECT_EQ(got.size(), 30u * 29 / 2 + 30);
        EXPECT_EQ(got, brute_pairs(fp, 3));
    }
}

TEST(NearPairs, EmptyAndSingle) {
    std::vector<std::uint64_t> none, one{42};
    EXPECT_TRUE(fast_pairs(none, 3, 0).empty());
    EXPECT_TRUE(fast_pairs(one, 3, 0).empty());
}

TEST(NearPairs, LargeKAndBadK) {
    std::mt19937_64 rng(3);
    std::vector<std::uint64_t> fp(60);
    for (auto &v : fp) v = rng();
    EXPECT_EQ(fast_pairs(fp, 64, 0).size(), 60u * 59 / 2);
    EXPECT_EQ(fast_pairs(fp, 30, 0), brute_pairs(fp, 30));
    EXPECT_THROW(fast_pairs(fp, -1, 0), simhash::Error);
    EXPECT_THROW(fast_pairs(fp, 65, 0), simhash::Error);
}

TEST(NearPairs, InterruptStops) {
    std::vector<std::uint64_t> fp(1000, 5);
    std::vector<Triple> out;
    NearPairsOptions o;
    o.interrupted = [] { return true; };
    o.context = &out;
    o.emit = collect;
    try {
        simhash::find_near_pairs(fp.data(), fp.size(), o);
        FAIL() << "not cancelled";
    } catch (const simhash::Error &e) {
        EXPECT_EQ(e.kind(), simhash::Error::Kind::cancelled);
    }
}

TEST(Clusters, MatchBruteForce) {
    std::mt19937_64 rng(5);
    for (int k = 0; k <= 8; ++k) {
        std::size_t n = 100 + rng() % 300;
        auto fp = clustered(rng, n);
        std::vector<std::uint32_t> rep_expected, size_expected;
        brute_clusters(fp, k, rep_expected, size_expected);
        for (int blocks : {0, k, k + 1}) {
            if (k == 0 && blocks != 0) continue;
            std::vector<std::uint32_t> rep(n), size(n);
            NearPairsOptions o;
            o.k = k;
            o.blocks = blocks;
            simhash::find_clusters(fp.data(), n, o, rep.data(), size.data());
            EXPECT_EQ(rep, rep_expected) << "k=" << k << " blocks=" << blocks;
            EXPECT_EQ(size, size_expected) << "k=" << k << " blocks=" << blocks;
        }
    }
}

TEST(NearPairs, LargeInputUsesWideRadixDigits) {
    // Above 2^18 entries the radix sorts take 16-bit digits. Random values, then
    // planted pairs 0, 1 and 3 bits apart: the planted pairs are the answer (a
    // chance pair among the random values has odds ~1e-4 and the seed is fixed),
    // under the chosen layout and under the classic k + 1 blocks.
    std::mt19937_64 rng(2024);
    const std::uint32_t random_rows = 297000, pairs = 1500;
    std::vector<std::uint64_t> fp(random_rows);
    for (auto &v : fp) v = rng();
    std::vector<Triple> expected;
    for (std::uint32_t j = 0; j < pairs; ++j) {
        const int flips = static_cast<int>(j % 3) == 2 ? 3 : static_cast<int>(j % 3);
        std::uint64_t base = rng(), near = base;
        for (int f = 0; f < flips; ++f) near ^= std::uint64_t{1} << ((j * 7 + static_cast<std::uint32_t>(f) * 21) % 64);
        const auto row = static_cast<std::uint32_t>(fp.size());
        fp.push_back(base);
        fp.push_back(near);
        expected.emplace_back(row, row + 1, flips);
    }
    ASSERT_GE(fp.size(), std::size_t{1} << 18);
    EXPECT_EQ(fast_pairs(fp, 3, 0), expected);
    EXPECT_EQ(fast_pairs(fp, 3, 4), expected);
}

namespace {

// The streaming search as the PostgreSQL glue runs it: per table, entries
// sorted by permuted value, cut into runs of equal prefixes.
std::vector<Triple> run_pairs(const std::vector<std::uint64_t> &fp, int k, int blocks, bool spanning = false) {
    std::vector<Triple> out;
    NearPairsOptions o;
    o.k = k;
    o.spanning = spanning;
    o.context = &out;
    o.emit = collect;
    std::vector<simhash::RunEntry> entries(fp.size());
    if (k == 0) {
        for (std::uint32_t i = 0; i < fp.size(); ++i) entries[i] = {fp[i], i};
        std::sort(entries.begin(), entries.end(), [](auto &a, auto &b) { return a.value < b.value; });
        for (std::size_t s = 0; s < entries.size();) {
            std::size_t e = s;
            while (e < entries.size() && entries[e].value == entries[s].value) ++e;
            simhash::sweep_near_pair_run(nullptr, 0, entries.data() + s, e - s, o);
            s = e;
        }
    } else {
        BlockLayout layout(k, blocks);
        for (std::size_t t = 0; t < layout.tables(); ++t) {
            for (std::uint32_t i = 0; i < fp.size(); ++i) entries[i] = {layout.permute(t, fp[i]), i};
            std::sort(entries.begin(), entries.end(), [](auto &a, auto &b) { return a.value < b.value; });
            const int bits = layout.prefix_bits(t);
            const std::uint64_t mask = bits == 0 ? 0 : ~std::uint64_t{0} << (64 - bits);
            for (std::size_t s = 0; s < entries.size();) {
                std::size_t e = s;
                while (e < entries.size() && ((entries[e].value ^ entries[s].value) & mask) == 0) ++e;
                simhash::sweep_near_pair_run(&layout, t, entries.data() + s, e - s, o);
                s = e;
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(BlockLayout, UnpermuteInvertsPermute) {
    std::mt19937_64 rng(3);
    for (int k = 1; k <= 6; ++k)
        for (int blocks = k; blocks <= k + 3; ++blocks) {
            BlockLayout layout(k, blocks);
            for (std::size_t t = 0; t < layout.tables(); ++t)
                for (int i = 0; i < 50; ++i) {
                    std::uint64_t v = rng();
                    ASSERT_EQ(layout.unpermute(t, layout.permute(t, v)), v) << k << " " << blocks << " " << t;
                }
        }
}

TEST(BlockLayout, SampledChoiceCanRequireAPrefix) {
    std::vector<std::uint64_t> few(10);
    std::mt19937_64 rng(5);
    for (auto &v : few) v = rng();
    EXPECT_EQ(BlockLayout::choose_blocks_sampled(3, few.data(), few.size(), few.size(), false), 3);
    EXPECT_GT(BlockLayout::choose_blocks_sampled(3, few.data(), few.size(), few.size(), true), 3);
    EXPECT_GT(BlockLayout::choose_blocks_sampled(3, few.data(), few.size(), 10000000, true), 3);
    EXPECT_EQ(BlockLayout::choose_blocks_sampled(64, few.data(), few.size(), 100, true), 64);
}

TEST(NearPairRuns, StreamingMatchesBruteForce) {
    std::mt19937_64 rng(13);
    for (int k = 0; k <= 7; ++k) {
        for (int round = 0; round < 3; ++round) {
            std::size_t n = 50 + rng() % 400;
            std::vector<std::uint64_t> fp = round == 0 ? std::vector<std::uint64_t>(n) : clustered(rng, n);
            if (round == 0)
                for (auto &v : fp) v = rng();
            if (round == 2)  // identical fingerprints under many rows
                for (std::size_t i = 0; i < n; i += 3) fp[i] = fp[0];
            auto expected = brute_pairs(fp, k);
            if (k == 0) {
                EXPECT_EQ(run_pairs(fp, 0, 0), expected);
                continue;
            }
            for (int blocks = k; blocks <= k + 3; ++blocks)
                EXPECT_EQ(run_pairs(fp, k, blocks), expected) << "k=" << k << " blocks=" << blocks;
        }
    }
}

// Each row's cluster representative (lowest row) under `pairs`.
std::vector<std::uint32_t> components(std::size_t n, const std::vector<Triple> &pairs) {
    std::vector<std::uint32_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0u);
    auto root = [&](std::uint32_t x) {
        while (parent[x] != x) x = parent[x];
        return x;
    };
    for (auto &[a, b, d] : pairs) {
        std::uint32_t ra = root(a), rb = root(b);
        parent[std::max(ra, rb)] = std::min(ra, rb);
    }
    std::vector<std::uint32_t> rep(n);
    for (std::uint32_t i = 0; i < n; ++i) rep[i] = root(i);
    return rep;
}

TEST(NearPairRuns, SpanningPairsConnectTheSameClusters) {
    std::mt19937_64 rng(17);
    for (int k = 0; k <= 6; ++k) {
        std::size_t n = 100 + rng() % 300;
        auto fp = clustered(rng, n);
        for (std::size_t i = 0; i < n; i += 4) fp[i] = fp[1];  // one value under a quarter of the rows
        std::vector<std::uint32_t> rep_expected, size_expected;
        brute_clusters(fp, k, rep_expected, size_expected);
        for (int blocks = std::max(k, 1); blocks <= k + 2; ++blocks) {
            auto pairs = run_pairs(fp, k, k == 0 ? 0 : blocks, true);
            EXPECT_EQ(components(n, pairs), rep_expected) << "k=" << k << " blocks=" << blocks;
            for (auto &[a, b, d] : pairs) EXPECT_LE(simhash::hamming_distance(fp[a], fp[b]), k);
            if (k == 0) break;
        }
    }
}

TEST(NearPairRuns, SpanningPairsAreLinearInIdenticalRows) {
    std::vector<std::uint64_t> fp(3000, 0x0123456789abcdefULL);
    fp.push_back(0x0123456789abcdeeULL);  // one row a bit away
    EXPECT_EQ(run_pairs(fp, 0, 0, true).size(), fp.size() - 2);
    // r - 1 pairs in the group, one to the near row
    EXPECT_EQ(run_pairs(fp, 3, 4, true).size(), fp.size() - 1);
    EXPECT_EQ(run_pairs(fp, 3, 4, false).size(), fp.size() * (fp.size() - 1) / 2);
}

TEST(NearPairRuns, RejectsAMismatchedLayout) {
    BlockLayout layout(3, 4);
    simhash::RunEntry e[2] = {{1, 0}, {1, 1}};
    NearPairsOptions o;
    o.k = 2;
    o.emit = collect;
    EXPECT_THROW(simhash::sweep_near_pair_run(&layout, 0, e, 2, o), simhash::Error);
    o.k = 3;
    EXPECT_THROW(simhash::sweep_near_pair_run(&layout, 4, e, 2, o), simhash::Error);
}
