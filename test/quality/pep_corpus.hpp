// The PEP revisions (../shared/data/peps, see its README) as the quality tools
// read them: every version's text, and the consecutive-revision pairs with the
// edit-size bucket of their difflib line ratio.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace pep_corpus {

namespace fs = std::filesystem;

struct Version {
    int pep;
    std::string text;
};

struct Pair {
    std::size_t a, b;  // indexes into the versions
    int bucket;        // 0: ratio >= 0.99, 1: 0.95-0.99, 2: 0.8-0.95, 3: < 0.8
};


inline int bucket_of(double line_ratio) {
    if (line_ratio >= 0.99) return 0;
    if (line_ratio >= 0.95) return 1;
    if (line_ratio >= 0.8) return 2;
    return 3;
}

struct Corpus {
    std::vector<Version> versions;
    std::vector<Pair> pairs;
    std::size_t bytes = 0;
};

inline std::string read_file(const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::vector<std::string> split(const std::string &line, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= line.size(); ++i) {
        if (i == line.size() || line[i] == sep) {
            out.push_back(line.substr(start, i - start));
            start = i + 1;
        }
    }
    return out;
}

// Every version under root/versions (in path order) and every pair of the TSV.
// Exits with a message if the TSV names a file that is not there.
inline Corpus load(const fs::path &root, const fs::path &pairs_tsv) {
    Corpus c;
    std::unordered_map<std::string, std::size_t> index;  // path relative to root, as the TSV names it
    std::vector<fs::path> files;
    for (const auto &entry : fs::recursive_directory_iterator(root / "versions"))
        if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto &f : files) {
        const std::string dir = f.parent_path().filename().string();  // pep-NNNN
        index[fs::relative(f, root).generic_string()] = c.versions.size();
        c.versions.push_back(Version{std::atoi(dir.c_str() + 4), read_file(f)});
        c.bytes += c.versions.back().text.size();
    }

    std::ifstream in(pairs_tsv);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        const auto cols = split(line, '\t');
        if (cols.size() < 6) continue;
        const auto a = index.find(cols[1]), b = index.find(cols[2]);
        if (a == index.end() || b == index.end()) {
            std::fprintf(stderr, "pair names a missing file: %s\n", line.c_str());
            std::exit(1);
        }
        c.pairs.push_back(Pair{a->second, b->second, bucket_of(std::atof(cols[5].c_str()))});
    }
    return c;
}

}  // namespace pep_corpus
