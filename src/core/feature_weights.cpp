#include "feature_weights.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "error.hpp"
#include "radix_guide.hpp"

namespace simhash {

std::size_t sort_df_entries(DfEntry *entries, std::size_t count, InterruptCheck interrupted) {
    std::uint32_t comparisons = 0;
    std::sort(entries, entries + count, [&](const DfEntry &a, const DfEntry &b) {
        if ((++comparisons & 0xFFFF) == 0 && interrupted && interrupted())
            throw Error(Error::Kind::cancelled, "canceling the sort of an idf table");
        return a.hash < b.hash;
    });
    std::size_t out = 0;
    for (std::size_t i = 0; i < count; ++i) {
        if (out > 0 && entries[out - 1].hash == entries[i].hash)
            entries[out - 1].df += entries[i].df;
        else
            entries[out++] = entries[i];
    }
    return out;
}

std::uint64_t DocumentFrequencies::df(std::uint64_t hash) const noexcept {
    const DfEntry *first = entries_, *last = entries_ + count_;
    if (guide_ != nullptr) {
        const GuideSpan span = radix_guide_span(guide_, bits_, hash);
        first = entries_ + span.first;
        last = entries_ + span.last;
    }
    const DfEntry *it = std::lower_bound(first, last, hash, [](const DfEntry &e, std::uint64_t h) { return e.hash < h; });
    return it != last && it->hash == hash ? it->df : 0;
}

FixedWeight DocumentFrequencies::idf(std::uint64_t hash) const {
    std::uint64_t d = df(hash);
    if (d == 0) d = 1;
    const double value = std::log1p(static_cast<double>(documents_) / static_cast<double>(d));
    FixedWeight fixed = 0;
    if (!to_fixed_weight(value, &fixed)) throw Error(Error::Kind::limit_exceeded, "idf out of range");
    return fixed;
}

FixedWeight scale_weight(FixedWeight weight, FixedWeight idf) {
    const __int128 product = (static_cast<__int128>(weight) * idf) >> kWeightFractionBits;
    if (product >= static_cast<__int128>(kMaxWeight * static_cast<double>(kUnitWeight)))
        throw Error(Error::Kind::limit_exceeded, "feature weight tf x idf exceeds 2^31");
    return static_cast<FixedWeight>(product);
}

void keep_top_n(std::vector<WeightedFeature> &features, std::size_t n) {
    if (n == 0 || features.size() <= n) return;
    std::vector<std::size_t> order(features.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto heavier = [&](std::size_t a, std::size_t b) {
        if (features[a].weight != features[b].weight) return features[a].weight > features[b].weight;
        return features[a].hash < features[b].hash;
    };
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n - 1), order.end(), heavier);
    std::vector<bool> keep(features.size(), false);
    for (std::size_t i = 0; i < n; ++i) keep[order[i]] = true;
    std::size_t out = 0;
    for (std::size_t i = 0; i < features.size(); ++i)
        if (keep[i]) features[out++] = features[i];
    features.resize(out);
}

int top_n_for_length(std::int64_t characters) {
    if (characters < 0) throw Error(Error::Kind::invalid_argument, "characters must not be negative");
    const double n = std::floor(kTopNPerRootCharacter * std::sqrt(static_cast<double>(characters)));
    // Beyond 2^31 - 1 the cap keeps every feature all the same.
    return static_cast<int>(std::clamp(n, static_cast<double>(kMinTopN), static_cast<double>(INT32_MAX)));
}

}  // namespace simhash
