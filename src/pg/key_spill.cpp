#include "key_spill.hpp"

#include <new>

extern "C" {
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/logtape.h"
}

#include "run_merge.hpp"

namespace {

using KeyMerge = simhash::RunMerge<sx::EntryKey, sx::key_less>;

// Keys written per call, so that a cancel is seen within one megabyte.
constexpr Size kWriteChunk = 65536;

}  // namespace

struct KeySpill {
    LogicalTapeSet *tapes;
    // runs[sort]: that sort's runs (LogicalTape *), a queue: merge passes take
    // from the front and append their output.
    List **runs;
    // The merge being read (of sort reading_sort): its input tapes and the heap of their heads.
    int reading_sort;
    LogicalTape **reading;
    int nreading;
    simhash::RunHead<sx::EntryKey> *heads;
    KeyMerge *merge;
};

namespace {

bool read_key(LogicalTape *tape, sx::EntryKey *key) {
    size_t got = LogicalTapeRead(tape, key, sizeof(*key));
    if (got == 0) return false;
    if (got != sizeof(*key)) elog(ERROR, "simhash index build: a spilled run ends inside a key");
    return true;
}

// The finished run flushes its last block and gives back its write buffer: a
// run waiting for its merge holds one small struct and no buffer.
void finish_run(LogicalTape *tape) { LogicalTapeRewindForRead(tape, BLCKSZ); }

void open_merge(KeySpill *s, List *runs, int count) {
    s->reading = static_cast<LogicalTape **>(palloc(Max(count, 1) * sizeof(LogicalTape *)));
    s->nreading = count;
    s->heads = static_cast<simhash::RunHead<sx::EntryKey> *>(palloc(Max(count, 1) * sizeof(*s->heads)));
    s->merge = new (palloc(sizeof(KeyMerge))) KeyMerge(s->heads);
    for (int i = 0; i < count; ++i) {
        s->reading[i] = static_cast<LogicalTape *>(list_nth(runs, i));
        sx::EntryKey key;
        if (read_key(s->reading[i], &key)) s->merge->push(key, static_cast<uint32>(i));
    }
}

void close_merge(KeySpill *s) {
    // Read to the end, each tape has already released its blocks for reuse.
    for (int i = 0; i < s->nreading; ++i) LogicalTapeClose(s->reading[i]);
    pfree(s->reading);
    pfree(s->heads);
    pfree(s->merge);
    s->reading = nullptr;
    s->nreading = 0;
    s->heads = nullptr;
    s->merge = nullptr;
}

}  // namespace

KeySpill *key_spill_create(int sorts) {
    KeySpill *s = static_cast<KeySpill *>(palloc0(sizeof(KeySpill)));
    s->tapes = LogicalTapeSetCreate(false, nullptr, -1);
    s->runs = static_cast<List **>(palloc0(sorts * sizeof(List *)));
    return s;
}

void key_spill_add_run(KeySpill *s, int sort, const sx::EntryKey *keys, Size n) {
    if (n == 0) return;
    LogicalTape *tape = LogicalTapeCreate(s->tapes);
    for (Size from = 0; from < n; from += kWriteChunk) {
        CHECK_FOR_INTERRUPTS();
        Size count = Min(kWriteChunk, n - from);
        LogicalTapeWrite(tape, const_cast<sx::EntryKey *>(keys + from), count * sizeof(sx::EntryKey));
    }
    finish_run(tape);
    s->runs[sort] = lappend(s->runs[sort], tape);
}

void key_spill_begin_read(KeySpill *s, int sort, Size memory) {
    // One read buffer per run merged, and one write buffer in a pass.
    int fan_in = static_cast<int>(Min(simhash::merge_fan_in(memory, BLCKSZ), static_cast<size_t>(INT_MAX / 2)));
    int pass_width = Max(fan_in - 1, 2);
    List *runs = s->runs[sort];
    while (list_length(runs) > fan_in) {
        open_merge(s, runs, pass_width);
        LogicalTape *out = LogicalTapeCreate(s->tapes);
        sx::EntryKey key;
        Size done = 0;
        while (key_spill_next(s, &key)) {
            LogicalTapeWrite(out, &key, sizeof(key));
            if ((++done & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
        }
        finish_run(out);
        close_merge(s);
        runs = lappend(list_delete_first_n(runs, pass_width), out);
    }
    s->runs[sort] = runs;
    s->reading_sort = sort;
    open_merge(s, runs, list_length(runs));
}

bool key_spill_next(KeySpill *s, sx::EntryKey *key) {
    if (s->merge->empty()) return false;
    *key = s->merge->top().record;
    sx::EntryKey following;
    if (read_key(s->reading[s->merge->top().run], &following))
        s->merge->replace_top(following);
    else
        s->merge->pop();
    return true;
}

void key_spill_end_read(KeySpill *s) {
    close_merge(s);
    list_free(s->runs[s->reading_sort]);
    s->runs[s->reading_sort] = NIL;
}

void key_spill_close(KeySpill *s) {
    LogicalTapeSetClose(s->tapes);
    pfree(s->runs);
    pfree(s);
}
