// Where C++ meets PostgreSQL.
//
// ereport(ERROR) longjmps and would skip C++ destructors; a C++ exception that
// escapes into PostgreSQL aborts the backend. So C++ work runs inside
// cpp_guarded(), which catches everything and copies the message into a plain
// struct; the caller raises the PostgreSQL error afterwards, from a frame that
// holds no C++ object with a destructor.
#pragma once

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
}

#include <cstring>
#include <exception>
#include <new>

#include "error.hpp"

struct CppFailure {
    int sqlstate;
    bool cancelled;
    char message[512];
};

template <typename Body>
static inline bool cpp_guarded(Body &&body, CppFailure *failure) noexcept {
    failure->sqlstate = ERRCODE_INTERNAL_ERROR;
    failure->cancelled = false;
    failure->message[0] = '\0';
    try {
        body();
        return true;
    } catch (const simhash::Error &e) {
        switch (e.kind()) {
        case simhash::Error::Kind::invalid_argument:
            failure->sqlstate = ERRCODE_INVALID_PARAMETER_VALUE;
            break;
        case simhash::Error::Kind::cancelled:
            failure->cancelled = true;
            failure->sqlstate = ERRCODE_QUERY_CANCELED;
            break;
        case simhash::Error::Kind::limit_exceeded:
            failure->sqlstate = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
            break;
        }
        strlcpy(failure->message, e.what(), sizeof(failure->message));
    } catch (const std::bad_alloc &) {
        failure->sqlstate = ERRCODE_OUT_OF_MEMORY;
        strlcpy(failure->message, "out of memory", sizeof(failure->message));
    } catch (const std::exception &e) {
        strlcpy(failure->message, e.what(), sizeof(failure->message));
    } catch (...) {
        strlcpy(failure->message, "unknown C++ exception", sizeof(failure->message));
    }
    return false;
}

// Raises the PostgreSQL error for a failure caught by cpp_guarded(). A
// cancellation is handed to CHECK_FOR_INTERRUPTS() so the user sees the usual
// cancel or timeout message.
pg_attribute_noreturn() void report_cpp_failure(const CppFailure *failure, const char *context);

// The core's interrupt check: true when a cancel or termination is pending.
bool simhash_interrupt_pending();

// Runs `statement` (C++ code) and raises its failure as a PostgreSQL error.
#define CPP_CALL(context, ...)                                              \
    do {                                                                    \
        CppFailure cpp_failure_;                                            \
        if (!cpp_guarded([&]() { __VA_ARGS__; }, &cpp_failure_))            \
            report_cpp_failure(&cpp_failure_, (context));                   \
    } while (0)
