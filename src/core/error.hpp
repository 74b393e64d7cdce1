// The one exception type the core throws. The glue catches it at every entry
// point and turns its kind into an SQLSTATE once no C++ object is left alive.
#pragma once
#include <stdexcept>
#include <string>

namespace simhash {

class Error : public std::runtime_error {
public:
    enum class Kind {
        invalid_argument,  // a bad option, weight or array shape: the caller's mistake
        cancelled,         // the interrupt check asked the computation to stop
        limit_exceeded,    // an input beyond a documented size limit
    };
    Error(Kind kind, const std::string &message) : std::runtime_error(message), kind_(kind) {}
    Kind kind() const noexcept { return kind_; }

private:
    Kind kind_;
};

// Long computations call this now and then; when it returns true they throw
// Error(cancelled). The glue passes a check of PostgreSQL's pending cancel/die flags.
using InterruptCheck = bool (*)();

}  // namespace simhash
