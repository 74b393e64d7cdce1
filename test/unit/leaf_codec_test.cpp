#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <random>
#include <vector>

#include "leaf_codec.hpp"

using namespace simhash::index;

namespace {

constexpr std::size_t kArea = 8192;

struct Buf {
    std::vector<std::uint8_t> bytes = std::vector<std::uint8_t>(kArea + kLeafReadSlack);
    std::size_t n = 0;
};

Buf write(std::vector<EntryKey> packed, const std::vector<EntryKey> &tail = {}) {
    std::sort(packed.begin(), packed.end(), key_less);
    Buf b;
    b.n = leaf_write(packed.data(), packed.size(), tail.data(), tail.size(), b.bytes.data());
    return b;
}

std::vector<EntryKey> all_of(const Buf &b) {
    Leaf leaf(b.bytes.data(), b.n);
    std::vector<EntryKey> out(leaf.size());
    leaf.unpack(out.data());
    return out;
}

bool same(const EntryKey &a, const EntryKey &b) { return compare_keys(a, b) == 0; }

// The forms of near()'s loop this CPU runs: each test of near() checks them all.
std::vector<SweepForm> forms() {
    std::vector<SweepForm> out;
    for (SweepForm f : kSweepForms)
        if (sweep_form_supported(f)) out.push_back(f);
    return out;
}

// near() over the whole key range equals a brute-force filter of every entry,
// at radius 0, step, 2 * step, ... up to 64.
void expect_near_is_brute_force(const Buf &b, std::uint64_t q, int step = 1) {
    Leaf leaf(b.bytes.data(), b.n);
    std::vector<EntryKey> every = all_of(b);
    std::vector<std::uint16_t> out(every.size());
    for (int radius = 0; radius <= 64; radius += step) {
        std::vector<std::uint16_t> want;
        for (std::size_t i = 0; i < every.size(); ++i)
            if (__builtin_popcountll(every[i].key ^ q) <= radius) want.push_back(static_cast<std::uint16_t>(i));
        for (SweepForm form : forms()) {
            std::size_t m = leaf.near(0, ~0ull, q, radius, out.data(), form);
            ASSERT_EQ(std::vector<std::uint16_t>(out.begin(), out.begin() + m), want)
                << "radius " << radius << " form " << static_cast<int>(form);
        }
    }
}

void expect_round_trip(const std::vector<EntryKey> &in) {
    Buf b = write(in);
    std::vector<EntryKey> want = in;
    std::sort(want.begin(), want.end(), key_less);
    std::vector<EntryKey> got = all_of(b);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(same(got[i], want[i])) << i;
    std::size_t bad;
    EXPECT_EQ(leaf_check(b.bytes.data(), b.n, {0, 0, 0}, false, {}, &bad), nullptr);
    PackSizer sizer;
    for (const EntryKey &e : in) sizer.add(e);
    EXPECT_EQ(sizer.bytes(), b.n);
}

}  // namespace

TEST(LeafCodec, EmptyLeaf) {
    Buf b;
    b.n = leaf_init(b.bytes.data());
    EXPECT_EQ(b.n, kPackedHeaderSize);
    Leaf leaf(b.bytes.data(), b.n);
    EXPECT_EQ(leaf.size(), 0u);
    std::uint16_t out[1];
    EXPECT_EQ(leaf.near(0, ~0ull, 0, 64, out), 0u);
    EXPECT_FALSE(leaf.contains({0, 0, 0}));
}

TEST(LeafCodec, IdenticalKeysPackToTidBitsOnly) {
    std::vector<EntryKey> in;
    for (std::uint16_t o = 1; o <= 200; ++o) in.push_back({0xDEADBEEFCAFEF00Dull, 7, o});
    expect_round_trip(in);
    Buf b = write(in);
    EXPECT_EQ(packed_header(b.bytes.data()).suffix_bits(), 0);
    EXPECT_EQ(packed_header(b.bytes.data()).entry_bits(), 8);  // offsets up to 200, one block
}

TEST(LeafCodec, ExtremeWidths) {
    // Full 64-bit spread, the widest block range and offsets up to 2047.
    expect_round_trip({{0, 0, 1}, {~0ull, 0xFFFFFFFFu, 2047}, {1ull << 63, 5, 0xFFFF}});
    // One entry: every width zero except what the values need.
    expect_round_trip({{0x0123456789ABCDEFull, 0xFFFFFFFFu, 2047}});
    // The highest block, narrow range.
    expect_round_trip({{5, 0xFFFFFFFFu, 3}, {6, 0xFFFFFFFEu, 1}});
    Buf b = write({{0, 0, 0}, {~0ull, 0xFFFFFFFFu, 0xFFFF}});
    EXPECT_EQ(packed_header(b.bytes.data()).entry_bits(), 112);
}

TEST(LeafCodec, ContainsInACrowdOfOneKey) {
    // 700 entries of one key (one bucket) between others: each found by its
    // TID, and a TID between two of them, or past the last, is not there.
    std::vector<EntryKey> in;
    const std::uint64_t crowd = 0x5A5A0000DEADBEEFull;
    for (std::uint16_t i = 0; i < 50; ++i) in.push_back({crowd - 1000 + i, i, 1});
    for (std::uint32_t i = 0; i < 700; ++i) in.push_back({crowd, 100 + i / 3, static_cast<std::uint16_t>(1 + 2 * (i % 3))});
    for (std::uint16_t i = 0; i < 50; ++i) in.push_back({crowd + 1 + i, i, 1});
    Buf b = write(in);
    Leaf leaf(b.bytes.data(), b.n);
    ASSERT_EQ(leaf.packed_count(), in.size());
    for (const EntryKey &e : in) EXPECT_TRUE(leaf.contains(e));
    EXPECT_FALSE(leaf.contains({crowd, 100, 2}));
    EXPECT_FALSE(leaf.contains({crowd, 100 + 700 / 3, 6}));
    EXPECT_FALSE(leaf.contains({crowd, 99, 5}));
    EXPECT_FALSE(leaf.contains({crowd + 100, 0, 1}));
}

TEST(LeafCodec, RandomRoundTripAndTail) {
    std::mt19937_64 rng(3);
    std::vector<EntryKey> in, tail;
    std::uint64_t prefix = rng() & 0xFFC0000000000000ull;
    for (int i = 0; i < 600; ++i)
        in.push_back({prefix | (rng() >> 10), static_cast<std::uint32_t>(rng() % 9000), static_cast<std::uint16_t>(1 + rng() % 180)});
    expect_round_trip(in);
    for (int i = 0; i < 30; ++i) tail.push_back({rng(), static_cast<std::uint32_t>(rng()), static_cast<std::uint16_t>(rng())});
    Buf b = write(in, tail);
    Leaf leaf(b.bytes.data(), b.n);
    EXPECT_EQ(leaf.packed_count(), 600u);
    EXPECT_EQ(leaf.tail_count(), 30u);
    for (std::size_t j = 0; j < tail.size(); ++j) EXPECT_TRUE(same(leaf.get(600 + j), tail[j]));
    for (const EntryKey &e : in) EXPECT_TRUE(leaf.contains(e));
    for (const EntryKey &e : tail) EXPECT_TRUE(leaf.contains(e));
    EXPECT_FALSE(leaf.contains({in[0].key, in[0].block, static_cast<std::uint16_t>(in[0].offset + 1000)}));
    // ~9.4 bytes per entry: 54 suffix bits, 14 block bits, 8 offset bits.
    EXPECT_LE(packed_header(b.bytes.data()).entry_bits(), 76);
}

TEST(LeafCodec, BoundsBinarySearch) {
    std::vector<EntryKey> in;
    for (std::uint32_t i = 0; i < 100; ++i) in.push_back({0x4000000000000000ull + (i / 3) * 10, i, 1});
    Buf b = write(in);
    Leaf leaf(b.bytes.data(), b.n);
    EXPECT_EQ(leaf.lower_bound(0), 0u);
    EXPECT_EQ(leaf.lower_bound(~0ull), 100u);
    EXPECT_EQ(leaf.upper_bound(~0ull), 100u);
    EXPECT_EQ(leaf.lower_bound(0x4000000000000000ull + 10), 3u);
    EXPECT_EQ(leaf.upper_bound(0x4000000000000000ull + 10), 6u);
    EXPECT_EQ(leaf.lower_bound(0x4000000000000000ull + 11), 6u);
}

TEST(LeafCodec, NearEqualsBruteForce) {
    std::mt19937_64 rng(11);
    const std::uint64_t q = rng();
    std::vector<EntryKey> in, tail;
    for (std::uint32_t i = 0; i < 500; ++i) {
        std::uint64_t flips = i % 65 == 64 ? ~0ull : (1ull << (i % 65)) - 1;
        std::uint64_t key = i % 3 == 0 ? q ^ flips : (q & 0xFFFF000000000000ull) | (rng() >> 16);
        in.push_back({key, i, 1});
    }
    for (std::uint32_t i = 0; i < 20; ++i) tail.push_back({i % 2 ? q ^ (1ull << i) : rng(), 1000 + i, 2});
    Buf b = write(in, tail);
    Leaf leaf(b.bytes.data(), b.n);
    std::vector<EntryKey> every = all_of(b);
    std::vector<std::uint16_t> out(every.size());
    const std::uint64_t ranges[][2] = {{0, ~0ull}, {q & 0xFFFF000000000000ull, q | 0x0000FFFFFFFFFFFFull}, {q, q}, {5, 4}};
    for (const auto &r : ranges) {
        for (int radius = -1; radius <= 64; ++radius) {
            std::vector<std::uint16_t> want;
            for (std::size_t i = 0; i < every.size(); ++i)
                if (r[0] <= r[1] && every[i].key >= r[0] && every[i].key <= r[1] &&
                    __builtin_popcountll(every[i].key ^ q) <= radius)
                    want.push_back(static_cast<std::uint16_t>(i));
            for (SweepForm form : forms()) {
                std::size_t m = leaf.near(r[0], r[1], q, radius, out.data(), form);
                ASSERT_EQ(std::vector<std::uint16_t>(out.begin(), out.begin() + m), want)
                    << "radius " << radius << " form " << static_cast<int>(form);
            }
        }
    }
}

TEST(LeafCodec, CheckFindsDisorderAndRange) {
    std::vector<EntryKey> in = {{10, 1, 1}, {20, 1, 1}, {30, 1, 1}};
    Buf b = write(in);
    std::size_t bad;
    EXPECT_EQ(leaf_check(b.bytes.data(), b.n, {10, 1, 1}, true, {31, 0, 0}, &bad), nullptr);
    EXPECT_NE(leaf_check(b.bytes.data(), b.n, {11, 0, 0}, false, {}, &bad), nullptr);
    EXPECT_EQ(bad, 0u);
    EXPECT_NE(leaf_check(b.bytes.data(), b.n, {0, 0, 0}, true, {30, 1, 1}, &bad), nullptr);
    EXPECT_EQ(bad, 2u);
    EXPECT_NE(leaf_check(b.bytes.data(), b.n - 1, {0, 0, 0}, false, {}, &bad), nullptr);
    // Unsorted input written as a segment.
    Buf u;
    u.n = leaf_write(std::vector<EntryKey>{{10, 1, 1}, {30, 1, 1}, {20, 1, 1}}.data(), 3, nullptr, 0, u.bytes.data());
    EXPECT_NE(leaf_check(u.bytes.data(), u.n, {0, 0, 0}, false, {}, &bad), nullptr);
    // A tail entry outside the range.
    Buf t = write(in, {{40, 0, 0}});
    EXPECT_NE(leaf_check(t.bytes.data(), t.n, {0, 0, 0}, true, {35, 0, 0}, &bad), nullptr);
    EXPECT_EQ(bad, 3u);
}

TEST(LeafCodec, SplitFullyPackedNearMedian) {
    std::mt19937_64 rng(5);
    std::vector<EntryKey> in, tail;
    for (std::uint32_t i = 0; i < 700; ++i) in.push_back({rng() >> 8, i, 1});
    for (std::uint32_t i = 0; i < 40; ++i) tail.push_back({rng() >> 8, 5000 + i, 2});
    Buf b = write(in, tail);
    std::vector<EntryKey> scratch(2 * (in.size() + tail.size()));
    Buf l, r;
    LeafSplit s;
    ASSERT_TRUE(leaf_split(b.bytes.data(), b.n, 7000, 8000, scratch.data(), l.bytes.data(), r.bytes.data(), &s));
    l.n = s.left_bytes;
    r.n = s.right_bytes;
    Leaf left(l.bytes.data(), l.n), right(r.bytes.data(), r.n);
    EXPECT_EQ(left.tail_count() + right.tail_count(), 0u);
    EXPECT_EQ(left.size() + right.size(), 740u);
    EXPECT_EQ(left.size(), 370u);
    std::size_t bad;
    EXPECT_EQ(leaf_check(l.bytes.data(), l.n, {0, 0, 0}, true, s.separator, &bad), nullptr);
    EXPECT_EQ(leaf_check(r.bytes.data(), r.n, s.separator, false, {}, &bad), nullptr);
    for (const EntryKey &e : tail) EXPECT_TRUE(left.contains(e) || right.contains(e));
}

TEST(LeafCodec, MergeSegmentAndTailEqualsSortingAll) {
    // Tails of every length a leaf sees, with keys repeated between segment
    // and tail (the TID breaks the tie) and tails falling before, inside and
    // after the segment's range.
    std::mt19937_64 rng(17);
    for (std::size_t nt : {0u, 1u, 2u, 11u, 90u, 300u}) {
        for (int shape = 0; shape < 3; ++shape) {
            std::vector<EntryKey> entries;
            for (std::uint32_t i = 0; i < 500; ++i)
                entries.push_back({(rng() % 64) << 40, static_cast<std::uint32_t>(rng() % 4), static_cast<std::uint16_t>(i)});
            std::sort(entries.begin(), entries.end(), key_less);
            for (std::size_t j = 0; j < nt; ++j) {
                std::uint64_t key = shape == 0 ? (rng() % 64) << 40 : shape == 1 ? rng() % 1000 : ~0ull - rng() % 1000;
                entries.push_back({key, static_cast<std::uint32_t>(rng() % 4), static_cast<std::uint16_t>(1000 + j)});
            }
            std::vector<EntryKey> want = entries, got(entries.size());
            std::sort(want.begin(), want.end(), key_less);
            merge_segment_and_tail(entries.data(), 500, entries.size(), got.data());
            for (std::size_t i = 0; i < want.size(); ++i) ASSERT_TRUE(same(got[i], want[i])) << nt << " " << shape << " " << i;
        }
    }
}

TEST(LeafCodec, SplitKeepsTailWhenPackingWidens) {
    // A dense segment (identical keys: 9 bits each) and one far key at each
    // end in the tail: any half holding a far key needs ~80 bits per entry.
    std::vector<EntryKey> in, tail = {{0, 1, 1}, {~0ull, 1, 1}};
    for (std::uint32_t i = 0; i < 2400; ++i) in.push_back({1ull << 62, i / 200, static_cast<std::uint16_t>(1 + i % 200)});
    Buf b = write(in, tail);
    ASSERT_LT(b.n, 4000u);
    std::vector<EntryKey> scratch(2 * 2402);
    Buf l, r;
    LeafSplit s;
    ASSERT_TRUE(leaf_split(b.bytes.data(), b.n, 3000, 4000, scratch.data(), l.bytes.data(), r.bytes.data(), &s));
    Leaf left(l.bytes.data(), s.left_bytes), right(r.bytes.data(), s.right_bytes);
    EXPECT_EQ(left.tail_count(), 1u);
    EXPECT_EQ(right.tail_count(), 1u);
    EXPECT_EQ(left.size() + right.size(), 2402u);
    std::size_t bad;
    EXPECT_EQ(leaf_check(l.bytes.data(), s.left_bytes, {0, 0, 0}, true, s.separator, &bad), nullptr);
    EXPECT_EQ(leaf_check(r.bytes.data(), s.right_bytes, s.separator, false, {}, &bad), nullptr);
}

TEST(LeafCodec, NearEqualsBruteForceWhenBucketsPassAndFailInTurn) {
    // Keys that share the query's top 28 bits and, but for one bit, its low
    // 27; the 9 bits between take every value. Short entries make a leaf of
    // ~1,800 with 8 or more bucket bits, and at radii 3-6 the buckets close
    // enough to read alternate with the others in more runs than near() keeps
    // apart (up to 50 at 8 bits; 29 at most at 7).
    std::mt19937_64 rng(29);
    const std::uint64_t q = rng(), top = ~0ull << 36, low = (1ull << 27) - 1;
    std::vector<EntryKey> in;
    for (std::uint32_t i = 0; i < 8000; ++i) {
        std::uint64_t key = (q & top) | (static_cast<std::uint64_t>(i % 512) << 27) | ((q ^ (1ull << (rng() % 27))) & low);
        std::vector<EntryKey> more = in;
        more.push_back({key, i / 300, static_cast<std::uint16_t>(i % 300 + 1)});
        std::sort(more.begin(), more.end(), key_less);
        std::vector<std::uint8_t> area(kArea * 2 + kLeafReadSlack);
        if (leaf_write(more.data(), more.size(), nullptr, 0, area.data()) > kArea) break;
        in = more;
    }
    Buf b = write(in);
    ASSERT_GE(packed_header(b.bytes.data()).bucket_bits, 8);
    expect_near_is_brute_force(b, q);
}

TEST(LeafCodec, NearEqualsBruteForceOnNarrowSuffixes) {
    // Suffixes of 57 bits and fewer take the 8-byte-load loop.
    std::mt19937_64 rng(13);
    for (int prefix : {7, 10, 30, 63, 64}) {
        const std::uint64_t high = prefix == 0 ? 0 : ~0ull << (64 - prefix);
        const std::uint64_t base = rng() & high, q = base ^ (rng() & ~high & 0x0F0F0F0F0F0F0F0Full);
        std::vector<EntryKey> in;
        for (std::uint32_t i = 0; i < 300; ++i)
            in.push_back({base | ((i % 2 ? q : rng()) & ~high), static_cast<std::uint32_t>(rng() % 70000), static_cast<std::uint16_t>(i)});
        SCOPED_TRACE(prefix);
        expect_near_is_brute_force(write(in), q, 3);
    }
}

TEST(LeafCodec, TheBestSweepFormIsTheOneTested) {
    // Every test of near() compares each supported form with brute force; a
    // form this CPU lacks goes unchecked, and this test says which.
    EXPECT_TRUE(sweep_form_supported(SweepForm::portable));
    EXPECT_TRUE(sweep_form_supported(best_sweep_form()));
    for (SweepForm f : kSweepForms)
        if (!sweep_form_supported(f)) GTEST_SKIP() << "form " << static_cast<int>(f) << " (of portable, POPCNT, AVX2, AVX-512) is not supported on this CPU: it went unchecked";
    EXPECT_EQ(best_sweep_form(), SweepForm::avx512);
}

TEST(LeafCodec, NearEqualsBruteForceOnWideSuffixes) {
    // Keys spread over all 64 bits keep more than 57 bits each: every form
    // reads them entry by entry with 16-byte loads, none eight at a time.
    std::mt19937_64 rng(37);
    const std::uint64_t q = rng();
    std::vector<EntryKey> in;
    for (std::uint32_t i = 0; i < 300; ++i)
        in.push_back({i % 4 == 0 ? q ^ (rng() & rng() & rng()) : rng(), static_cast<std::uint32_t>(rng() % 9000),
                      static_cast<std::uint16_t>(1 + i % 100)});
    Buf b = write(in);
    PackedHeader h = packed_header(b.bytes.data());
    ASSERT_GT(h.low_bits(), 57);
    ASSERT_NE(h.entry_bits() % 8, 0);  // entries start at every bit of a byte
    expect_near_is_brute_force(b, q, 2);
}

namespace {

// n random keys under a shared 10-bit prefix: a leaf of a ~10M-row table.
std::vector<EntryKey> dense_leaf(std::mt19937_64 &rng, std::size_t n) {
    const std::uint64_t prefix = rng() & 0xFFC0000000000000ull;
    std::vector<EntryKey> in;
    for (std::size_t i = 0; i < n; ++i)
        in.push_back({prefix | (rng() >> 10), static_cast<std::uint32_t>(rng() % 60000),
                      static_cast<std::uint16_t>(1 + rng() % 180)});
    return in;
}

}  // namespace

TEST(LeafCodec, DenseLeafMovesKeyBitsToTheDirectory) {
    std::mt19937_64 rng(17);
    std::vector<EntryKey> in = dense_leaf(rng, 800);
    expect_round_trip(in);
    Buf b = write(in);
    PackedHeader h = packed_header(b.bytes.data());
    EXPECT_GE(h.bucket_bits, 5);
    // Without a directory each entry would keep all suffix bits.
    std::size_t flat = kPackedHeaderSize + (in.size() * (h.suffix_bits() + h.block_bits + h.offset_bits) + 7) / 8;
    EXPECT_LT(b.n + in.size() / 2, flat);  // at least 4 bits per entry saved, directory paid
}

TEST(LeafCodec, BoundsAndNearAcrossBuckets) {
    std::mt19937_64 rng(19);
    for (std::size_t n : {1u, 2u, 37u, 300u, 700u}) {
        std::vector<EntryKey> in = dense_leaf(rng, n);
        // Two clusters leave runs of empty buckets between them.
        for (std::size_t i = 0; i < n / 4; ++i) in[i].key = (in[i].key & ~0x00FFFFFFFFFFFFFFull) | (rng() >> 40);
        Buf b = write(in);
        Leaf leaf(b.bytes.data(), b.n);
        std::vector<EntryKey> every = all_of(b);
        std::vector<std::uint64_t> keys;
        for (const EntryKey &e : every) keys.push_back(e.key);
        std::vector<std::uint64_t> probes = {0, ~0ull};
        for (std::size_t i = 0; i < n; i += 1 + n / 50) {
            probes.push_back(keys[i]);
            probes.push_back(keys[i] - 1);
            probes.push_back(keys[i] + 1);
            probes.push_back((keys[i] & 0xFFC0000000000000ull) | (rng() >> 10));
        }
        for (std::uint64_t p : probes) {
            std::size_t lower = std::lower_bound(keys.begin(), keys.end(), p) - keys.begin();
            std::size_t upper = std::upper_bound(keys.begin(), keys.end(), p) - keys.begin();
            ASSERT_EQ(leaf.lower_bound(p), lower);
            ASSERT_EQ(leaf.upper_bound(p), upper);
        }
        std::vector<std::uint16_t> out(n);
        for (std::size_t t = 0; t < 20; ++t) {
            std::uint64_t q = keys[rng() % n] ^ (1ull << (rng() % 64)) ^ (1ull << (rng() % 64));
            std::uint64_t lo = std::min(q, keys[rng() % n]), hi = std::max(q, keys[rng() % n]);
            for (int radius : {0, 2, 3, 6, 20, 64}) {
                std::vector<std::uint16_t> want;
                for (std::size_t i = 0; i < n; ++i)
                    if (keys[i] >= lo && keys[i] <= hi && __builtin_popcountll(keys[i] ^ q) <= radius)
                        want.push_back(static_cast<std::uint16_t>(i));
                for (SweepForm form : forms()) {
                    std::size_t m = leaf.near(lo, hi, q, radius, out.data(), form);
                    ASSERT_EQ(std::vector<std::uint16_t>(out.begin(), out.begin() + m), want)
                        << n << " " << radius << " form " << static_cast<int>(form);
                    std::size_t cursor = 0;
                    for (std::size_t k = 0; k < m; ++k) ASSERT_TRUE(same(leaf.get(out[k], &cursor), every[out[k]]));
                }
            }
        }
    }
}

TEST(LeafCodec, CheckFindsABrokenDirectory) {
    std::mt19937_64 rng(23);
    Buf b = write(dense_leaf(rng, 800));
    PackedHeader h = packed_header(b.bytes.data());
    ASSERT_GT(h.buckets, 2u);
    std::size_t bad;
    ASSERT_EQ(leaf_check(b.bytes.data(), b.n, {0, 0, 0}, false, {}, &bad), nullptr);
    // The first bucket's end moved past the count.
    b.bytes[kPackedHeaderSize] = 0xFF;
    b.bytes[kPackedHeaderSize + 1] |= 0x3F;
    EXPECT_NE(leaf_check(b.bytes.data(), b.n, {0, 0, 0}, false, {}, &bad), nullptr);
    // A bucket range wider than the bucket bits allow.
    Buf c = write(dense_leaf(rng, 800));
    c.bytes[20] = 0xFF;
    c.bytes[21] = 0xFF;
    EXPECT_NE(leaf_check(c.bytes.data(), c.n, {0, 0, 0}, false, {}, &bad), nullptr);
}

TEST(LeafCodec, FitsWithAgreesWithBytes) {
    std::mt19937_64 rng(29);
    std::vector<EntryKey> in = dense_leaf(rng, 1200);
    in.push_back({0, 0, 1});  // a far key late: the smallest bucket width changes
    for (std::size_t limit : {2000u, 7000u, 8000u, 20000u}) {
        PackSizer sizer;
        for (const EntryKey &e : in) {
            PackSizer with = sizer;
            with.add(e);
            ASSERT_EQ(sizer.fits_with(e, limit), with.bytes() <= limit) << limit << " " << sizer.count();
            sizer.add(e);
        }
    }
}

TEST(LeafCodec, HeaderProblemsAreFoundInConstantTime) {
    std::mt19937_64 rng(29);
    Buf b = write(dense_leaf(rng, 800));
    EXPECT_EQ(leaf_header_problem(b.bytes.data(), b.n), nullptr);
    EXPECT_NE(leaf_header_problem(b.bytes.data(), kPackedHeaderSize - 1), nullptr);
    EXPECT_NE(leaf_header_problem(b.bytes.data(), b.n - 1), nullptr);  // a length between entries
    Buf count = b;
    count.bytes[0] = count.bytes[1] = 0xFF;  // 65535 packed entries
    EXPECT_NE(leaf_header_problem(count.bytes.data(), count.n), nullptr);
    Buf length = b;
    std::uint16_t bytes = 7400;
    std::memcpy(length.bytes.data() + 2, &bytes, 2);
    EXPECT_NE(leaf_header_problem(length.bytes.data(), length.n), nullptr);
}

namespace {

// near() on a leaf with a damaged directory, in every form, at each radius:
// only positions of the segment, no more of them than it has entries (the
// caller's room is the leaf's size).
void expect_near_stays_inside(const Leaf &leaf, std::uint64_t q, std::initializer_list<int> radii) {
    const std::size_t count = leaf.packed_count();
    std::vector<std::uint16_t> out(leaf.size());
    for (int radius : radii)
        for (SweepForm form : forms()) {
            std::size_t m = leaf.near(0, ~0ull, q, radius, out.data(), form);
            ASSERT_LE(m, count);
            for (std::size_t k = 0; k < m; ++k) ASSERT_LT(out[k], count);
        }
}

}  // namespace

TEST(LeafCodec, ReadersStayInsideASegmentWhoseDirectoryPointsPastIt) {
    std::mt19937_64 rng(31);
    std::vector<EntryKey> in = dense_leaf(rng, 800);
    Buf b = write(in);
    PackedHeader h = packed_header(b.bytes.data());
    ASSERT_GT(h.buckets, 2u);
    // Every directory position set to its largest value, far past the count.
    std::memset(b.bytes.data() + kPackedHeaderSize, 0xFF, h.directory_bytes());
    ASSERT_EQ(leaf_header_problem(b.bytes.data(), b.n), nullptr);  // (not a header problem)
    Leaf leaf(b.bytes.data(), b.n);
    expect_near_stays_inside(leaf, in[rng() % in.size()].key, {0, 3, 64});
    for (std::uint64_t key : {std::uint64_t{0}, in[7].key, ~std::uint64_t{0}}) {
        EXPECT_LE(leaf.lower_bound(key), h.count);
        EXPECT_LE(leaf.upper_bound(key), h.count);
    }
    leaf.prefetch(0, ~0ull);
}

TEST(LeafCodec, NearWritesNoMorePositionsThanEntriesWhenTheDirectoryGoesBack) {
    // Bucket starts that go back and forth (count - 1, 0, count - 1, ...)
    // pass the header check; a sweep must still not read a position twice,
    // or it writes past the room its caller gave (the leaf's size). Under
    // AddressSanitizer an overrun fails here.
    std::mt19937_64 rng(41);
    std::vector<EntryKey> in = dense_leaf(rng, 800);
    Buf b = write(in);
    PackedHeader h = packed_header(b.bytes.data());
    ASSERT_GT(h.buckets, 4u);
    const int bits = h.directory_bits();
    std::uint8_t *dir = b.bytes.data() + kPackedHeaderSize;
    std::memset(dir, 0, h.directory_bytes());
    for (std::size_t j = 1; j < h.buckets; j += 2)
        for (int k = 0; k < bits; ++k)
            if (((h.count - 1) >> k) & 1) {
                std::size_t bit = (j - 1) * bits + k;
                dir[bit / 8] |= static_cast<std::uint8_t>(1u << (bit % 8));
            }
    ASSERT_EQ(leaf_header_problem(b.bytes.data(), b.n), nullptr);
    expect_near_stays_inside(Leaf(b.bytes.data(), b.n), in[0].key, {3, 64});
}

// Keys that differ in their leading bits and share their last 16: no prefix
// of the leaf tells a query flipped in those 16 bits is far, the summary does.
TEST(LeafCodec, NearUsesTheBitsEveryKeyShares) {
    std::mt19937_64 rng(31);
    std::vector<EntryKey> in;
    for (std::uint32_t i = 0; i < 700; ++i) in.push_back({(rng() << 16) | 0xBEEF, i, 1});
    const std::uint64_t q = in[100].key ^ 0x0101;  // two of the shared bits flipped
    std::vector<EntryKey> tail = {{in[5].key, 902, 2}, {(rng() << 16) | 0xBEEF, 903, 1}};
    Buf b = write(in, tail);
    PackedHeader h = packed_header(b.bytes.data());
    EXPECT_EQ(h.keys_and & 0xFFFF, 0xBEEFu);
    EXPECT_EQ(h.keys_or & 0xFFFF, 0xBEEFu);
    EXPECT_EQ(h.distance_floor(q), 2);
    EXPECT_EQ(h.distance_floor(in[7].key), 0);
    std::size_t bad;
    ASSERT_EQ(leaf_check(b.bytes.data(), b.n, {0, 0, 0}, false, {}, &bad), nullptr);
    for (std::uint64_t query : {q, in[100].key, in[100].key ^ 1}) expect_near_is_brute_force(b, query);
    std::vector<std::uint16_t> out(800);
    EXPECT_EQ(Leaf(b.bytes.data(), b.n).near(0, ~0ull, q, 1, out.data()), 0u);

    // Appending q to the tail weakens the summary first; appending a key that
    // shares every shared bit leaves it alone.
    EXPECT_FALSE(leaf_summarize_append(b.bytes.data(), b.n, in[9].key));
    EXPECT_TRUE(leaf_summarize_append(b.bytes.data(), b.n, q));
    leaf_put(b.bytes.data() + b.n, 0, {q, 904, 3});
    b.n += kLeafEntrySize;
    ASSERT_EQ(leaf_check(b.bytes.data(), b.n, {0, 0, 0}, false, {}, &bad), nullptr);
    EXPECT_EQ(packed_header(b.bytes.data()).distance_floor(q), 0);
    expect_near_is_brute_force(b, q);
    EXPECT_EQ(Leaf(b.bytes.data(), b.n).near(0, ~0ull, q, 1, out.data()), 1u);
}

// near() trusts the summary: one that claims a bit every key lacks hides
// the keys a query without that bit is near (what leaf_check is for). Each
// key then counts two bits farther: the claimed bit in the floor, and again
// against the query given the bit.
TEST(LeafCodec, NearSkipsALeafOnItsSummaryAlone) {
    std::vector<EntryKey> in = {{0x10, 1, 1}, {0x30, 1, 2}, {0x50, 1, 3}};
    Buf b = write(in, {{0x70, 2, 1}});
    std::uint16_t out[4];
    EXPECT_EQ(Leaf(b.bytes.data(), b.n).near(0, ~0ull, 0x10, 0, out), 1u);
    b.bytes[kSummaryOffset] |= 0x01;  // bit 0, below the prefix: "every key has it"
    b.bytes[kSummaryOffset + 8] |= 0x01;
    EXPECT_EQ(leaf_header_problem(b.bytes.data(), b.n), nullptr);
    EXPECT_EQ(Leaf(b.bytes.data(), b.n).near(0, ~0ull, 0x10, 0, out), 0u);
    EXPECT_EQ(Leaf(b.bytes.data(), b.n).near(0, ~0ull, 0x10, 1, out), 0u);
    EXPECT_EQ(Leaf(b.bytes.data(), b.n).near(0, ~0ull, 0x10, 2, out), 1u);  // 0x10
    EXPECT_EQ(Leaf(b.bytes.data(), b.n).near(0, ~0ull, 0x10, 3, out), 3u);  // 0x10, 0x30, 0x50
    EXPECT_EQ(Leaf(b.bytes.data(), b.n).near(0, ~0ull, 0x10, 4, out), 4u);  // and the tail's 0x70
}

// A leaf that holds only a tail: its summary is its tail's keys'.
TEST(LeafCodec, AppendsToAnEmptyLeafStartTheSummary) {
    Buf b;
    b.n = leaf_init(b.bytes.data());
    const std::uint64_t keys[] = {0xF0F0000000000001ull, 0xF0F0000000000003ull};
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_TRUE(leaf_summarize_append(b.bytes.data(), b.n, keys[i]));
        leaf_put(b.bytes.data() + b.n, 0, {keys[i], 1, static_cast<std::uint16_t>(i + 1)});
        b.n += kLeafEntrySize;
        std::size_t bad;
        ASSERT_EQ(leaf_check(b.bytes.data(), b.n, {0, 0, 0}, false, {}, &bad), nullptr) << i;
    }
    PackedHeader h = packed_header(b.bytes.data());
    EXPECT_EQ(h.keys_and, 0xF0F0000000000001ull);
    EXPECT_EQ(h.keys_or, 0xF0F0000000000003ull);
    std::uint16_t out[2];
    EXPECT_EQ(Leaf(b.bytes.data(), b.n).near(0, ~0ull, 0x0F0F000000000001ull, 15, out), 0u);
    EXPECT_EQ(Leaf(b.bytes.data(), b.n).near(0, ~0ull, 0x0F0F000000000001ull, 16, out), 1u);
}

TEST(LeafCodec, CheckFindsAWrongKeySummary) {
    std::mt19937_64 rng(37);
    std::vector<EntryKey> in;
    for (std::uint32_t i = 0; i < 300; ++i) in.push_back({(0xA5ull << 56) | ((rng() >> 16) << 8) | 0x5A, i, 1});
    std::size_t bad;
    // A summary weaker than the keys (a bit no key has counted in the OR)
    // is no danger to a reader, but the writer never makes one: corruption.
    Buf weaker = write(in);
    weaker.bytes[32] |= 0x01;
    EXPECT_EQ(leaf_header_problem(weaker.bytes.data(), weaker.n), nullptr);
    EXPECT_STREQ(leaf_check(weaker.bytes.data(), weaker.n, {0, 0, 0}, false, {}, &bad),
                 "packed key summary disagrees with the keys");
    // A stronger one (a bit not every key has in the AND) would hide keys.
    Buf stronger = write(in);
    stronger.bytes[24] |= 0x80;
    stronger.bytes[32] |= 0x80;
    EXPECT_STREQ(leaf_check(stronger.bytes.data(), stronger.n, {0, 0, 0}, false, {}, &bad),
                 "packed key summary disagrees with the keys");
    // An AND with a bit the OR lacks, or one that contradicts the prefix, is
    // found from the header alone.
    Buf torn = write(in);
    torn.bytes[32] &= static_cast<std::uint8_t>(~0x02);
    EXPECT_STREQ(leaf_header_problem(torn.bytes.data(), torn.n), "packed key summary inconsistent");
    Buf prefix = write(in);
    ASSERT_GE(packed_header(prefix.bytes.data()).prefix_len, 8);
    prefix.bytes[31] ^= 0x80;  // the top bit of the AND and of the OR: a bit of the prefix
    prefix.bytes[39] ^= 0x80;
    EXPECT_STREQ(leaf_header_problem(prefix.bytes.data(), prefix.n), "packed key summary disagrees with the prefix");
}
