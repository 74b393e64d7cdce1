#include "text_features.hpp"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

#include "feature_hash.hpp"
#include "html_strip.hpp"
#include "jenkins_hash.hpp"
#include "tokenizer.hpp"

namespace simhash {

namespace {

// Plain text is fed to the tokenizer in pieces of this size, polling in between.
constexpr std::size_t kPieceBytes = 16384;
// Features are handed on with a poll every this many bytes, each feature
// counted as at least kFeatureCost (hashing and counting it).
constexpr std::size_t kCheckBytes = std::size_t{1} << 20;
constexpr std::size_t kFeatureCost = 32;
// The vote over the distinct features, and the character n-grams of a word,
// poll every this many.
constexpr std::size_t kCheckFeatures = 65536;

FixedWeight weight_of(TextOptions::Weighting weighting, std::uint64_t count) {
    switch (weighting) {
        case TextOptions::Weighting::binary:
            return kUnitWeight;
        case TextOptions::Weighting::log_tf:
            return log1p_weight(count);
        case TextOptions::Weighting::tf:
            break;
    }
    return static_cast<FixedWeight>(count) * kUnitWeight;
}

// The feature hash the options name. Collectors keep a copy (the hot path then
// reads no option through a reference the vote's stores might alias).
class FeatureHasher {
public:
    explicit FeatureHasher(const TextOptions &options)
        : jenkins_(options.hash == TextOptions::Hash::jenkins), seed_(options.seed) {}
    std::uint64_t operator()(std::string_view feature) const {
        return jenkins_ ? jenkins_hash(feature) : feature_hash(feature, seed_);
    }

private:
    bool jenkins_;
    std::uint64_t seed_;
};

// Whether each feature needs its own count: every weighting but plain tf, and
// any idf factor or keyword selection.
bool counts_features(const TextOptions &options) {
    return options.weighting != TextOptions::Weighting::tf || options.idf != nullptr || options.top_n > 0;
}

// Counts -> final weights: weighting, then x idf, then the top_n heaviest (in
// the order given).
void weigh(std::vector<WeightedFeature> &features, const std::vector<std::uint64_t> &counts,
           const TextOptions &options) {
    for (std::size_t i = 0; i < features.size(); ++i) {
        FixedWeight w = weight_of(options.weighting, counts[i]);
        if (options.idf) w = scale_weight(w, options.idf->idf(features[i].hash));
        features[i].weight = w;
    }
    keep_top_n(features, static_cast<std::size_t>(options.top_n));
}

// Occurrences per feature hash: open addressing with linear probing, because
// std::unordered_map's node per entry made binary and log_tf several times
// slower than tf. Hashes are XXH3 or lookup3 outputs, already uniform: no mixing
// needed.
class CountMap {
public:
    void increment(std::uint64_t key) {
        if (2 * (size_ + 1) > slots_.size()) grow();
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = static_cast<std::size_t>(key) & mask;; i = (i + 1) & mask) {
            Slot &s = slots_[i];
            if (s.count == 0) {
                s = Slot{key, 1};
                ++size_;
                return;
            }
            if (s.key == key) {
                ++s.count;
                return;
            }
        }
    }

    std::size_t size() const { return size_; }

    template <class F>
    void for_each(F &&f) const {
        for (const Slot &s : slots_)
            if (s.count != 0) f(s.key, s.count);
    }

private:
    struct Slot {
        std::uint64_t key;
        std::uint64_t count;  // 0: empty
    };

    void grow() {
        std::vector<Slot> old(std::max<std::size_t>(64, slots_.size() * 2), Slot{0, 0});
        old.swap(slots_);
        const std::size_t mask = slots_.size() - 1;
        for (const Slot &s : old) {
            if (s.count == 0) continue;
            std::size_t i = static_cast<std::size_t>(s.key) & mask;
            while (slots_[i].count != 0) i = (i + 1) & mask;
            slots_[i] = s;
        }
    }

    std::vector<Slot> slots_;
    std::size_t size_ = 0;
};

// Turns features into a fingerprint. Plain term frequency votes once per
// occurrence and keeps no state per feature; the other forms need each
// feature's count, so their memory grows with the distinct features (never with
// the text).
class FingerprintCollector {
public:
    FingerprintCollector(const TextOptions &options, InterruptCheck interrupted)
        : options_(options), hash_(options), counting_(counts_features(options)), interrupted_(interrupted) {}

    void feature(std::string_view f) {
        const std::uint64_t h = hash_(f);
        if (counting_) {
            counts_.increment(h);
        } else {
            pending_[pending_count_++] = h;
            if (pending_count_ == pending_.size()) add_pending();
        }
    }

    // The vote is a sum and top_n orders by (weight, hash): the map's order
    // does not matter.
    std::uint64_t fingerprint() {
        add_pending();
        if (options_.idf == nullptr && options_.top_n == 0) {
            counts_.for_each([this](std::uint64_t hash, std::uint64_t count) {
                poll();
                vote_.add(hash, weight_of(options_.weighting, count));
            });
            return vote_.fingerprint();
        }
        std::vector<WeightedFeature> features;
        std::vector<std::uint64_t> counts;
        features.reserve(counts_.size());
        counts.reserve(counts_.size());
        counts_.for_each([&](std::uint64_t hash, std::uint64_t count) {
            poll();
            features.push_back(WeightedFeature{hash, 0});
            counts.push_back(count);
        });
        weigh(features, counts, options_);
        for (const auto &f : features) {
            poll();
            vote_.add(f.hash, f.weight);
        }
        return vote_.fingerprint();
    }

private:
    void poll() {
        if (++unpolled_ == kCheckFeatures) {
            unpolled_ = 0;
            if (interrupted_ && interrupted_()) throw Error(Error::Kind::cancelled, "canceling fingerprint");
        }
    }

    void add_pending() {
        vote_.add_units(pending_.data(), pending_count_);
        pending_count_ = 0;
    }

    const TextOptions &options_;
    const FeatureHasher hash_;
    const bool counting_;
    Vote vote_;
    CountMap counts_;
    // Unit votes are given to the vote in batches (see Vote::add_units).
    std::array<std::uint64_t, 64> pending_{};
    std::size_t pending_count_ = 0;
    const InterruptCheck interrupted_;
    std::size_t unpolled_ = 0;
};

// Features are distinct by hash: two strings with the same 64-bit hash are one
// feature, as the vote cannot tell them apart either.
class ExplainCollector {
public:
    explicit ExplainCollector(const TextOptions &options) : options_(options), hash_(options) {}

    void feature(std::string_view f) {
        const std::uint64_t h = hash_(f);
        const auto [it, inserted] = index_.try_emplace(h, rows_.size());
        if (inserted) {
            rows_.push_back(FeatureRow{std::string(f), h, 0});
            counts_.push_back(0);
        }
        ++counts_[it->second];
    }

    std::vector<FeatureRow> rows() {
        std::vector<WeightedFeature> features(rows_.size());
        for (std::size_t i = 0; i < rows_.size(); ++i) features[i].hash = rows_[i].hash;
        weigh(features, counts_, options_);
        // keep_top_n kept the original order: walk both lists together.
        std::size_t out = 0;
        for (std::size_t i = 0, k = 0; i < rows_.size() && k < features.size(); ++i) {
            if (rows_[i].hash != features[k].hash) continue;
            rows_[i].weight = features[k++].weight;
            if (out != i) rows_[out] = std::move(rows_[i]);
            ++out;
        }
        rows_.resize(out);
        return std::move(rows_);
    }

private:
    const TextOptions &options_;
    const FeatureHasher hash_;
    std::unordered_map<std::uint64_t, std::size_t> index_;
    std::vector<FeatureRow> rows_;
    std::vector<std::uint64_t> counts_;
};

class DistinctCollector {
public:
    explicit DistinctCollector(const TextOptions &options) : hash_(options) {}

    void feature(std::string_view f) { seen_.insert(hash_(f)); }
    std::vector<std::uint64_t> hashes() const { return std::vector<std::uint64_t>(seen_.begin(), seen_.end()); }

private:
    const FeatureHasher hash_;
    std::unordered_set<std::uint64_t> seen_;
};

// Words -> features: stop-word removal and word shingles, or character n-grams.
template <class Collector>
class Pipeline final : public WordSink, public HtmlSink {
public:
    Pipeline(const TextOptions &options, Collector &collector, InterruptCheck interrupted)
        : chars_(options.tokens == TextOptions::Tokens::chars),
          n_(static_cast<std::size_t>(options.shingle)),
          stop_words_(options.stop_words),
          collector_(collector),
          interrupted_(interrupted),
          tokenizer_(*this, interrupted),
          ring_(chars_ ? 0 : n_) {}

    void run(std::string_view utf8, bool html) {
        if (html) {
            strip_html(utf8, *this, interrupted_);
        } else {
            std::size_t pos = 0;
            while (pos < utf8.size()) {
                if (interrupted_ && interrupted_()) throw Error(Error::Kind::cancelled, "canceling fingerprint");
                std::size_t end = pos + kPieceBytes;
                if (end >= utf8.size()) {
                    end = utf8.size();
                } else {
                    // Never split a valid UTF-8 sequence (at most 3 continuation bytes).
                    for (int i = 0; i < 3 && end < utf8.size() && (static_cast<unsigned char>(utf8[end]) & 0xC0) == 0x80; ++i)
                        ++end;
                }
                tokenizer_.feed(utf8.substr(pos, end - pos));
                pos = end;
            }
        }
        tokenizer_.separator();
        // A text with fewer words than the shingle size still has one feature.
        if (!chars_ && n_ > 1 && words_ > 0 && words_ < n_) emit_shingle(0, static_cast<std::size_t>(words_));
    }

    void word(std::string_view w) override {
        if (chars_) {
            char_grams(w);
            return;
        }
        if (stop_words_ && stop_words_->contains(w)) return;
        if (n_ == 1) {
            emit(w);
            return;
        }
        ring_[words_ % n_].assign(w.data(), w.size());
        ++words_;
        if (words_ >= n_) emit_shingle(static_cast<std::size_t>(words_ - n_), n_);
    }

    // The default form (words, no stop words, n = 1) makes its checks and its
    // poll once per batch, then feeds the words straight to the collector; the
    // others go word by word.
    void words(const std::string_view *w, std::size_t count) override {
        if (chars_ || stop_words_ || n_ != 1) {
            WordSink::words(w, count);
            return;
        }
        // (Polled per word all the same: in HTML mode a word can be a whole text run.)
        for (std::size_t i = 0; i < count; ++i) emit(w[i]);
    }

    void text(std::string_view run) override { tokenizer_.feed(run); }
    void separator() override { tokenizer_.separator(); }

private:
    // Words first .. first + count - 1 (counted from the start of the text), joined by one space.
    void emit_shingle(std::size_t first, std::size_t count) {
        joined_.clear();
        for (std::size_t i = 0; i < count; ++i) {
            if (i) joined_.push_back(' ');
            joined_ += ring_[(first + i) % n_];
        }
        emit(joined_);
    }

    // One word of hundreds of megabytes makes shingles as long, or as many
    // character n-grams: the pieces of the text no longer bound the work
    // between two polls, the bytes handed on do.
    void emit(std::string_view feature) {
        unchecked_bytes_ += feature.size() + kFeatureCost;
        if (unchecked_bytes_ > kCheckBytes) poll();
        collector_.feature(feature);
    }

    void poll() {
        unchecked_bytes_ = 0;
        if (interrupted_ && interrupted_()) throw Error(Error::Kind::cancelled, "canceling fingerprint");
    }

    // Every run of n consecutive code points of the word; a shorter word is one feature.
    void char_grams(std::string_view w) {
        if (std::all_of(w.begin(), w.end(), [](char c) { return (static_cast<unsigned char>(c) & 0x80) == 0; })) {
            // ASCII: code points are bytes.
            if (w.size() <= n_) {
                emit(w);
                return;
            }
            in_polled_blocks(w.size() - n_ + 1, [&](std::size_t i) { collector_.feature(w.substr(i, n_)); });
            return;
        }
        starts_.clear();
        for (std::size_t i = 0; i < w.size(); ++i)
            if ((static_cast<unsigned char>(w[i]) & 0xC0) != 0x80) starts_.push_back(i);
        if (starts_.size() <= n_) {
            emit(w);
            return;
        }
        starts_.push_back(w.size());
        in_polled_blocks(starts_.size() - n_, [&](std::size_t i) {
            collector_.feature(w.substr(starts_[i], starts_[i + n_] - starts_[i]));
        });
    }

    // each(0) .. each(n - 1), polling per block of kCheckFeatures: a test per
    // call cost 10% of a run of character n-grams.
    template <class F>
    void in_polled_blocks(std::size_t n, F &&each) {
        for (std::size_t i = 0; i < n; poll())
            for (const std::size_t block_end = std::min(n, i + kCheckFeatures); i < block_end; ++i) each(i);
    }

    const bool chars_;
    const std::size_t n_;
    const StopWords *stop_words_;
    Collector &collector_;
    const InterruptCheck interrupted_;
    std::size_t unchecked_bytes_ = 0;
    Tokenizer tokenizer_;
    std::vector<std::string> ring_;
    std::uint64_t words_ = 0;
    std::string joined_;
    std::vector<std::size_t> starts_;
};

}  // namespace

void validate(const TextOptions &options) {
    if (options.tokens != TextOptions::Tokens::words && options.tokens != TextOptions::Tokens::chars)
        throw Error(Error::Kind::invalid_argument, "tokens must be words or chars");
    if (options.weighting != TextOptions::Weighting::tf && options.weighting != TextOptions::Weighting::binary &&
        options.weighting != TextOptions::Weighting::log_tf)
        throw Error(Error::Kind::invalid_argument, "weighting must be tf, binary or log_tf");
    if (options.shingle < 1 || options.shingle > kMaxShingle)
        throw Error(Error::Kind::invalid_argument, "shingle must be between 1 and " + std::to_string(kMaxShingle) +
                                                       ", got " + std::to_string(options.shingle));
    if (options.hash != TextOptions::Hash::xxh3 && options.hash != TextOptions::Hash::jenkins)
        throw Error(Error::Kind::invalid_argument, "hash must be xxh3 or jenkins");
    if (options.hash == TextOptions::Hash::jenkins && options.seed != 0)
        throw Error(Error::Kind::invalid_argument, "seed applies to hash xxh3 only: jenkins is unseeded, seed must be 0");
    if (options.top_n < 0)
        throw Error(Error::Kind::invalid_argument, "top_n must be at least 1, got " + std::to_string(options.top_n));
    if (options.stop_words && options.tokens == TextOptions::Tokens::chars)
        throw Error(Error::Kind::invalid_argument, "stop words apply to tokens = words only, not to tokens = chars");
}

std::uint64_t fingerprint_text(std::string_view utf8, const TextOptions &options, InterruptCheck interrupted) {
    validate(options);
    FingerprintCollector collector(options, interrupted);
    Pipeline<FingerprintCollector>(options, collector, interrupted).run(utf8, options.html);
    return collector.fingerprint();
}

std::vector<FeatureRow> explain_text(std::string_view utf8, const TextOptions &options, InterruptCheck interrupted) {
    validate(options);
    ExplainCollector collector(options);
    Pipeline<ExplainCollector>(options, collector, interrupted).run(utf8, options.html);
    return collector.rows();
}

std::vector<std::uint64_t> distinct_feature_hashes(std::string_view utf8, const TextOptions &options,
                                                   InterruptCheck interrupted) {
    validate(options);
    DistinctCollector collector(options);
    Pipeline<DistinctCollector>(options, collector, interrupted).run(utf8, options.html);
    return collector.hashes();
}

}  // namespace simhash
