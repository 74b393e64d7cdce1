// The k-way merge of an external sort: a binary min-heap of the head record
// of each sorted run. The caller owns the storage and reads the runs (the
// glue reads them from temp files, which may raise a PostgreSQL error), so the
// heap allocates nothing and holds nothing needing a destructor.
#pragma once
#include <cstddef>
#include <cstdint>

namespace simhash {

// Heads of equal records come out in run order, so the merge is stable when
// runs are numbered in input order.
template <class Record>
struct RunHead {
    Record record;
    std::uint32_t run;
};

template <class Record, bool (*Less)(const Record &, const Record &)>
class RunMerge {
public:
    // `storage` holds at least as many heads as there are runs.
    explicit RunMerge(RunHead<Record> *storage) noexcept : heads_(storage), count_(0) {}

    bool empty() const noexcept { return count_ == 0; }
    std::size_t size() const noexcept { return count_; }
    // The smallest head: the next record of the merged output.
    const RunHead<Record> &top() const noexcept { return heads_[0]; }

    // Adds run `run`'s first record.
    void push(const Record &record, std::uint32_t run) noexcept {
        std::size_t i = count_++;
        RunHead<Record> h{record, run};
        while (i > 0) {
            std::size_t parent = (i - 1) / 2;
            if (!before(h, heads_[parent])) break;
            heads_[i] = heads_[parent];
            i = parent;
        }
        heads_[i] = h;
    }

    // The top's run yielded its next record.
    void replace_top(const Record &record) noexcept { sift_down(RunHead<Record>{record, heads_[0].run}); }

    // The top's run is exhausted.
    void pop() noexcept {
        if (--count_ > 0) sift_down(heads_[count_]);
    }

private:
    static bool before(const RunHead<Record> &a, const RunHead<Record> &b) noexcept {
        if (Less(a.record, b.record)) return true;
        if (Less(b.record, a.record)) return false;
        return a.run < b.run;
    }

    // Places `h` at the root and moves it down to its place.
    void sift_down(const RunHead<Record> &h) noexcept {
        std::size_t i = 0;
        for (;;) {
            std::size_t child = 2 * i + 1;
            if (child >= count_) break;
            if (child + 1 < count_ && before(heads_[child + 1], heads_[child])) ++child;
            if (!before(heads_[child], h)) break;
            heads_[i] = heads_[child];
            i = child;
        }
        heads_[i] = h;
    }

    RunHead<Record> *heads_;
    std::size_t count_;
};

// Runs merged at once when each needs `buffer` bytes of `memory` (at least 2,
// so a multi-pass merge always progresses).
inline std::size_t merge_fan_in(std::size_t memory, std::size_t buffer) noexcept {
    std::size_t n = buffer == 0 ? memory : memory / buffer;
    return n < 2 ? 2 : n;
}

}  // namespace simhash
