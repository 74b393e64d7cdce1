// The text of an HTML document, for the `html` option (docs/algorithm.md):
// tags, comments, <!...> and <?...> declarations and the contents of <script>
// and <style> are dropped, each acting as a separator; character references
// (numeric, and a small table of named ones) are decoded. One pass, no tree:
// markup cut off at the end of the input is dropped, never read past.
#pragma once
#include <string_view>

#include "error.hpp"

namespace simhash {

class HtmlSink {
public:
    // A run of text; consecutive runs may continue one word. No run ends inside
    // a valid UTF-8 sequence.
    virtual void text(std::string_view run) = 0;
    // Where a tag, comment or dropped element was.
    virtual void separator() = 0;

protected:
    ~HtmlSink() = default;
};

// Polls `interrupted` (may be null) every few kilobytes of input and throws
// Error(cancelled) when it returns true.
void strip_html(std::string_view html, HtmlSink &sink, InterruptCheck interrupted);

}  // namespace simhash
