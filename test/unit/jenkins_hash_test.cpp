#include "jenkins_hash.hpp"

#include "vote.hpp"

#include <gtest/gtest.h>

#include <string>

using simhash::jenkins_hash;

// Values published with the interoperability proposal and reproduced by
// yanyiwu/simhash: an empty key returns the untouched initial state.
TEST(JenkinsHash, KnownValues) {
    EXPECT_EQ(jenkins_hash(""), 0xdeadbeefdeadbeefULL);
    EXPECT_EQ(jenkins_hash("hello"), 0x34cbbc6e5c04b779ULL);
}

// lookup3's own self-test vector: hashlittle2("Four score and seven years ago", 30, 0, 0)
// gives c = 0x17770551, b = 0xce7226e6.
TEST(JenkinsHash, Lookup3SelfTestVector) {
    EXPECT_EQ(jenkins_hash("Four score and seven years ago"), 0x17770551ce7226e6ULL);
}

// Every tail length 0..12 and the block boundary: each byte must change the result.
TEST(JenkinsHash, EveryLengthDependsOnEveryByte) {
    std::string key;
    for (int n = 1; n <= 40; ++n) {
        key.push_back(static_cast<char>('a' + n % 26));
        for (int i = 0; i < n; ++i) {
            std::string flipped = key;
            flipped[i] ^= 0x01;
            EXPECT_NE(jenkins_hash(key), jenkins_hash(flipped)) << "length " << n << " byte " << i;
        }
    }
}

TEST(JenkinsHash, HighBytesAreUnsigned) {
    // UTF-8 continuation bytes are >= 0x80: a signed char would sign-extend into the word.
    EXPECT_NE(jenkins_hash("\xc3\xa9"), jenkins_hash("\x43\x29"));
}

// yanyiwu/simhash's README example: five keywords with TF-IDF weights, jenkins
// feature hashes and a weighted vote give 17831459094038722629.
TEST(JenkinsHash, ReproducesYanyiwuReadmeExample) {
    struct Keyword {
        const char *word;
        double weight;
    } keywords[] = {{"\xe8\x93\x9d\xe7\xbf\x94", 11.7392},  // 蓝翔
                    {"CEO", 11.7392},
                    {"\xe5\x8d\x87\xe8\x81\x8c", 10.8562},  // 升职
                    {"\xe5\x8a\xa0\xe8\x96\xaa", 10.6426},  // 加薪
                    {"\xe6\x89\x8b\xe6\x89\xb6\xe6\x8b\x96\xe6\x8b\x89\xe6\x9c\xba", 10.0089}};  // 手扶拖拉机
    simhash::Vote vote;
    for (const Keyword &k : keywords) {
        simhash::FixedWeight w;
        ASSERT_TRUE(simhash::to_fixed_weight(k.weight, &w));
        vote.add(jenkins_hash(k.word), w);
    }
    EXPECT_EQ(vote.fingerprint(), 17831459094038722629ULL);
}
