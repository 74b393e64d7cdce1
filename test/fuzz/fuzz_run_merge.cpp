// Fuzzes the k-way merge of the index build's external sort: arbitrary bytes
// become entries cut into runs (each sorted, as the build writes them); the
// merge must give back exactly the sorted whole, equal entries in run order.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "index_page.hpp"
#include "run_merge.hpp"

using namespace simhash::index;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size < 1) return 0;
    // Entries of 3 bytes (1 key byte, 1 block byte, 1 run selector): small
    // domains, so equal keys across runs are common.
    std::size_t nruns = 1 + data[0] % 64;
    std::vector<std::vector<EntryKey>> runs(nruns);
    std::vector<EntryKey> all;
    for (std::size_t i = 1; i + 3 <= size; i += 3) {
        EntryKey e{data[i], data[i + 1], 0};
        runs[data[i + 2] % nruns].push_back(e);
        all.push_back(e);
    }
    for (auto &run : runs) std::sort(run.begin(), run.end(), key_less);
    std::sort(all.begin(), all.end(), key_less);

    std::vector<simhash::RunHead<EntryKey>> heads(nruns);
    std::vector<std::size_t> pos(nruns, 0);
    simhash::RunMerge<EntryKey, key_less> merge(heads.data());
    for (std::uint32_t r = 0; r < nruns; ++r)
        if (!runs[r].empty()) merge.push(runs[r][pos[r]++], r);
    std::size_t out = 0;
    EntryKey prev{};
    std::uint32_t prev_run = 0;
    while (!merge.empty()) {
        auto head = merge.top();
        if (out >= all.size() || compare_keys(head.record, all[out]) != 0) __builtin_trap();
        if (out > 0 && compare_keys(prev, head.record) == 0 && prev_run > head.run) __builtin_trap();
        prev = head.record;
        prev_run = head.run;
        ++out;
        if (pos[head.run] < runs[head.run].size())
            merge.replace_top(runs[head.run][pos[head.run]++]);
        else
            merge.pop();
    }
    if (out != all.size()) __builtin_trap();
    return 0;
}
