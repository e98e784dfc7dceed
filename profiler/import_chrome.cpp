#include "profiler/import_chrome.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "profiler/chrome_raw_event.h"
#include "profiler/clock.h"
#include "profiler/kineto_ddp.h"
#include "profiler/project.h"

namespace pacer::profiler {

namespace {

using json = nlohmann::json;

// |µs| below 2^62 / 1000 keeps every ns value, and sums of two, inside int64.
constexpr double kMaxMicros = 4.6e15;

// Reads characters for the SAX parser and counts the lines it has passed, so errors can say where they are.
template <typename Inner>
class LineCountingIterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    LineCountingIterator() = default;
    LineCountingIterator(Inner it, int* line) : it_(it), line_(line) {}
    char operator*() const { return *it_; }
    LineCountingIterator& operator++() {
        if (*it_ == '\n') ++*line_;
        ++it_;
        return *this;
    }
    LineCountingIterator operator++(int) { auto copy = *this; ++*this; return copy; }
    bool operator==(const LineCountingIterator& o) const { return it_ == o.it_; }
    bool operator!=(const LineCountingIterator& o) const { return it_ != o.it_; }

private:
    Inner it_{};
    int* line_ = nullptr;
};

// One complete span as the trace model holds it; the caller decides its kind and track.
TraceEvent toTraceEvent(const RawEvent& e, EventKind kind, int track) {
    TraceEvent te;
    te.start = e.ts;
    te.end = e.ts + e.dur;
    te.kind = kind;
    te.track = track;
    te.iteration = e.iteration;
    te.layer = e.layer;
    te.tensor = e.tensor;
    te.segment = e.segment;
    te.bytes = e.bytes;
    te.priority = e.priority;
    te.name = e.name;
    te.correlation = e.correlation;
    return te;
}

// A file read in 1 MiB blocks for the parser: a character costs an index increment, where istreambuf_iterator
// pays a virtual-looking buffer check per character (the import ran at half the speed of a DOM parse).
class ChunkedFile {
public:
    explicit ChunkedFile(std::istream& in) : in_(in), buf_(1 << 20) { refill(); }

    class Iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = char;
        using difference_type = std::ptrdiff_t;
        using pointer = const char*;
        using reference = const char&;
        Iterator() = default;
        explicit Iterator(ChunkedFile* f) : f_(f && f->len_ > 0 ? f : nullptr) {}
        char operator*() const { return f_->buf_[f_->pos_]; }
        Iterator& operator++() {
            if (++f_->pos_ == f_->len_ && !f_->refill()) f_ = nullptr;
            return *this;
        }
        bool operator==(const Iterator& o) const { return f_ == o.f_; }
        bool operator!=(const Iterator& o) const { return f_ != o.f_; }

    private:
        ChunkedFile* f_ = nullptr;
    };
    Iterator begin() { return Iterator(this); }

private:
    bool refill() {
        in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        len_ = static_cast<std::size_t>(in_.gcount());
        pos_ = 0;
        return len_ > 0;
    }
    std::istream& in_;
    std::vector<char> buf_;
    std::size_t pos_ = 0, len_ = 0;
};

struct ParsedFile {
    std::string name;
    std::vector<RawEvent> events;
    std::map<std::string, std::string> processNames;                       // pid -> name
    std::map<std::pair<std::string, std::string>, std::string> threadNames;  // (pid, tid) -> name
    json meta;  // top-level members other than traceEvents (distributedInfo, pacer, ...)
    bool bareArray = false;  // the legacy format: a JSON array of events, nothing else
};

// Exact µs → ns from the number's own text ("1700000000123.456"), falling back to the double for exponents.
std::optional<std::int64_t> microsToNs(const std::string& raw, double value) {
    if (!std::isfinite(value) || std::fabs(value) >= kMaxMicros) return std::nullopt;
    if (raw.find_first_of("eE") == std::string::npos) {
        std::string_view s(raw);
        const bool neg = !s.empty() && s.front() == '-';
        if (neg) s.remove_prefix(1);
        const auto dot = s.find('.');
        std::int64_t whole = 0, frac = 0;
        const std::string_view w = s.substr(0, dot);
        if (std::from_chars(w.data(), w.data() + w.size(), whole).ec == std::errc()) {
            if (dot != std::string_view::npos) {
                std::string f(s.substr(dot + 1, 3));
                while (f.size() < 3) f += '0';
                std::from_chars(f.data(), f.data() + f.size(), frac);
            }
            const std::int64_t ns = whole * 1000 + frac;
            return neg ? -ns : ns;
        }
    }
    return static_cast<std::int64_t>(std::llround(value * 1000.0));
}

// Kineto's replay arguments, leniently: an odd value only leaves the fact unknown, the span still imports.
void readKinetoArgs(const json& args, RawEvent& e) {
    if (auto d = args.find("Input Dims"); d != args.end() && d->is_array() && !d->empty() && d->front().is_array()) {
        e.hasInputDims = true;
        for (const json& x : d->front())
            if (x.is_number_integer() && x.get<std::int64_t>() >= 0) e.firstInputDims.push_back(x.get<std::int64_t>());
            else e.hasInputDims = false;
    }
    if (auto n = args.find("In msg nelems"); n != args.end() && n->is_number_integer() && n->get<std::int64_t>() >= 0)
        e.msgElements = n->get<std::int64_t>();
    if (auto t = args.find("dtype"); t != args.end() && t->is_string()) e.dtype = t->get<std::string>();
    if (auto c = args.find("Collective name"); c != args.end() && c->is_string()) e.collective = c->get<std::string>();
    if (auto g = args.find("Group size"); g != args.end() && g->is_number_integer() && g->get<std::int64_t>() > 0 &&
                                          g->get<std::int64_t>() < 1'000'000)
        e.groupSize = static_cast<int>(g->get<std::int64_t>());
}

// The members of the event being read that the importer looks at, in fixed slots rather than a DOM object (map
// nodes, key compares and frees per member were a good part of the import's time).
struct EventMembers {
    static constexpr std::array<std::string_view, 8> kNames = {"ph", "name", "cat", "pid", "tid", "ts", "dur", "args"};
    std::array<json, kNames.size()> value;
    std::array<bool, kNames.size()> present{};

    static int slotOf(std::string_view k) {
        for (std::size_t i = 0; i < kNames.size(); ++i)
            if (kNames[i] == k) return static_cast<int>(i);
        return -1;
    }
    const json* find(std::string_view k) const {
        const int i = slotOf(k);
        return i >= 0 && present[static_cast<std::size_t>(i)] ? &value[static_cast<std::size_t>(i)] : nullptr;
    }
};

// Reads each event's members into fixed slots (arguments as a small DOM, one event at a time) and hands it over;
// everything else at the top level is kept as DOM in `meta`. Number texts of "ts"/"dur" are kept for exact conversion.
class TraceSax {
public:
    TraceSax(ParsedFile& file, const int* line) : file_(file), line_(line) {}

    bool null() { return skipped() || value(json(nullptr)); }
    bool boolean(bool v) { return skipped() || value(json(v)); }
    bool number_integer(json::number_integer_t v) { return skipped() || value(json(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return skipped() || value(json(v)); }
    bool number_float(json::number_float_t v, const std::string& raw) {
        if (skipped()) return true;
        if (inEvent() && stack_.size() == eventDepth_) {
            if (key_ == "ts") rawTs_ = raw;
            if (key_ == "dur") rawDur_ = raw;
        }
        return value(json(v));
    }
    bool string(std::string& v) { return skipped() || value(json(std::move(v))); }
    bool binary(json::binary_t&) { return fail("binary values are not JSON"); }

    bool start_object(std::size_t) { return skipContainer() || open(json::object()); }
    bool start_array(std::size_t) { return skipContainer() || open(json::array()); }
    bool key(std::string& k) {
        if (skipDepth_ == 0) key_ = k;
        return true;
    }
    bool end_object() { return endSkipped() || close(); }
    bool end_array() { return endSkipped() || close(); }

    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
        // nlohmann's message already carries "line L, column C".
        std::string what = ex.what();
        const auto at = what.find("parse error");
        error_ = file_.name + ": " + (at != std::string::npos ? what.substr(at) : what);
        return false;
    }

    const std::string& error() const { return error_; }
    bool sawEvents() const { return sawEventsArray_; }

private:
    struct Frame {
        json value;
        std::string key;  // the key this container sits under in its parent
    };

    bool fail(const std::string& msg) {
        if (error_.empty()) error_ = file_.name + ": line " + std::to_string(*line_) + ": " + msg;
        return false;
    }
    bool inEvent() const { return eventDepth_ != 0; }

    // Inside an event only the members handleEvent reads become DOM: the rest of Kineto's arguments (grid, block,
    // stream, occupancy, External id, ...) cost a node each for nothing and were most of the import's time.
    static bool argumentRead(const std::string& k) {
        return k == "iteration" || k == "layer" || k == "tensor" || k == "segment" || k == "priority" || k == "bytes" ||
               k == "correlation" || k == "name" || k == "Input Dims" || k == "In msg nelems" || k == "dtype" ||
               k == "Collective name" || k == "Group size";
    }
    bool unread() const {
        if (!inEvent() || !stack_.back().value.is_object()) return false;
        if (stack_.size() == eventDepth_) return EventMembers::slotOf(key_) < 0;
        return stack_.size() == eventDepth_ + 1 && stack_.back().key == "args" && !argumentRead(key_);
    }
    // A scalar that is skipped, or inside a container being skipped.
    bool skipped() const { return skipDepth_ > 0 || unread(); }
    bool skipContainer() {
        if (skipDepth_ > 0 || unread()) ++skipDepth_;
        return skipDepth_ > 0;
    }
    bool endSkipped() {
        if (skipDepth_ == 0) return false;
        --skipDepth_;
        return true;
    }
    bool isEventsArray(std::size_t depth) const {
        // The top-level array (JSON array format) or the array under the top-level "traceEvents" key.
        if (depth == 1) return stack_[0].value.is_array();
        return depth == 2 && stack_[0].value.is_object() && stack_[1].key == "traceEvents" && stack_[1].value.is_array();
    }

    bool open(json container) {
        if (stack_.empty()) {
            if (!container.is_object() && !container.is_array()) return fail("expected an object or an array");
            if (container.is_array()) sawEventsArray_ = file_.bareArray = true;
        } else if (!inEvent() && isEventsArray(stack_.size())) {
            if (!container.is_object()) return fail("trace event " + std::to_string(eventCount_) + ": expected an object");
            eventDepth_ = stack_.size() + 1;
            eventLine_ = *line_;
            rawTs_.clear();
            rawDur_.clear();
            members_.present.fill(false);
        }
        if (stack_.size() == 1 && key_ == "traceEvents") {
            if (!container.is_array()) return fail("'traceEvents' must be an array");
            sawEventsArray_ = true;
        }
        stack_.push_back(Frame{std::move(container), key_});
        key_.clear();
        return true;
    }

    bool close() {
        const bool wasEventsArray = isEventsArray(stack_.size());
        Frame done = std::move(stack_.back());
        stack_.pop_back();
        if (inEvent() && stack_.size() + 1 == eventDepth_) {
            eventDepth_ = 0;
            ++eventCount_;
            return handleEvent();
        }
        if (stack_.empty()) {
            if (done.value.is_object()) {
                done.value.erase("traceEvents");
                file_.meta = std::move(done.value);
            }
            return true;
        }
        if (wasEventsArray) return true;  // its events were handed over one by one
        key_ = done.key;
        return attach(std::move(done.value));
    }

    bool value(json v) {
        if (stack_.empty()) return fail("expected an object or an array at the top level");
        if (!inEvent() && isEventsArray(stack_.size())) return fail("trace event " + std::to_string(eventCount_) + ": expected an object");
        return attach(std::move(v));
    }

    bool attach(json v) {
        if (inEvent() && stack_.size() == eventDepth_) {  // a member of the event: into its slot
            const int i = EventMembers::slotOf(key_);
            if (i < 0) return true;
            members_.value[static_cast<std::size_t>(i)] = std::move(v);
            members_.present[static_cast<std::size_t>(i)] = true;
            return true;
        }
        Frame& parent = stack_.back();
        // Nothing but events is kept from the events array; other containers under the top level stay as DOM.
        if (parent.value.is_object()) parent.value[key_] = std::move(v);
        else parent.value.push_back(std::move(v));
        return true;
    }

    static std::optional<std::string> idText(const json& v) {
        if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
        if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
        if (v.is_string()) return v.get<std::string>();
        return std::nullopt;
    }

    bool timeField(const char* field, std::int64_t* out, bool* present) {
        const json* it = members_.find(field);
        *present = it != nullptr;
        if (!*present) return true;
        if (!it->is_number()) return fail(std::string("expected number for '") + field + "'");
        std::optional<std::int64_t> ns;
        if (it->is_number_float()) {
            ns = microsToNs(std::string_view(field) == "ts" ? rawTs_ : rawDur_, it->get<double>());
        } else if (it->is_number_unsigned() ? it->get<std::uint64_t>() < 4'600'000'000'000'000ULL
                                            : it->get<std::int64_t>() > -4'600'000'000'000'000LL &&
                                                  it->get<std::int64_t>() < 4'600'000'000'000'000LL) {  // no llabs: |INT64_MIN| is UB
            ns = (it->is_number_unsigned() ? static_cast<std::int64_t>(it->get<std::uint64_t>()) : it->get<std::int64_t>()) * 1000;
        }
        if (!ns) return fail(std::string("'") + field + "' out of range");
        *out = *ns;
        return true;
    }

    bool intArg(const json& args, const char* key, std::int64_t lo, std::int64_t hi, std::int64_t* out) {
        auto it = args.find(key);
        if (it == args.end() || it->is_null()) return true;
        if (!it->is_number_integer()) return fail(std::string("expected integer for 'args.") + key + "'");
        const std::int64_t v = it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)
                                   ? INT64_MAX : it->get<std::int64_t>();
        if (v < lo || v > hi) return fail(std::string("'args.") + key + "' out of range");
        *out = v;
        return true;
    }

    bool handleEvent() {
        RawEvent e;
        e.line = eventLine_;
        const json* ph = members_.find("ph");
        if (!ph) return fail("trace event " + std::to_string(eventCount_ - 1) + ": missing 'ph'");
        if (!ph->is_string() || ph->get_ref<const std::string&>().size() != 1) return fail("expected one-letter string for 'ph'");
        e.ph = ph->get_ref<const std::string&>()[0];
        if (const json* n = members_.find("name")) {
            if (!n->is_string()) return fail("expected string for 'name'");
            e.name = n->get<std::string>();
        }
        if (const json* c = members_.find("cat"); c && c->is_string()) e.cat = c->get<std::string>();
        if (const json* p = members_.find("pid")) {
            auto t = idText(*p);
            if (!t) return fail("expected number or string for 'pid'");
            e.pid = *t;
        }
        if (const json* p = members_.find("tid")) {
            auto t = idText(*p);
            if (!t) return fail("expected number or string for 'tid'");
            e.tid = *t;
        }
        const json* args = nullptr;
        if (const json* a = members_.find("args")) {
            if (!a->is_object()) return fail("expected object for 'args'");
            args = a;
        }
        if (e.ph == 'M') {
            if (args && args->contains("name") && (*args)["name"].is_string()) {
                const std::string& n = (*args)["name"].get_ref<const std::string&>();
                if (e.name == "process_name") file_.processNames[e.pid] = n;
                if (e.name == "thread_name") file_.threadNames[{e.pid, e.tid}] = n;
            }
            return true;
        }
        if (e.ph != 'X' && e.ph != 'B' && e.ph != 'E') return true;  // instants, counters, flows: not spans
        bool hasTs = false;
        if (!timeField("ts", &e.ts, &hasTs)) return false;
        if (!hasTs) return fail("missing 'ts'");
        if (!timeField("dur", &e.dur, &e.hasDur)) return false;
        if (e.ph == 'X' && !e.hasDur) return fail("'X' event without 'dur'");
        if (e.dur < 0) return fail("negative 'dur'");
        if (args) {
            std::int64_t v;
            const std::int64_t kInt = INT32_MAX;
            if (v = -1; !intArg(*args, "iteration", -1, kInt, &v)) return false;
            e.iteration = static_cast<int>(v);
            e.hasIteration = args->contains("iteration");
            if (v = -1; !intArg(*args, "layer", -1, kMaxLayer, &v)) return false;
            e.layer = static_cast<int>(v);
            if (v = -1; !intArg(*args, "tensor", -1, kInt, &v)) return false;
            e.tensor = static_cast<int>(v);
            if (v = -1; !intArg(*args, "segment", -1, kInt, &v)) return false;
            e.segment = static_cast<int>(v);
            if (v = -1; !intArg(*args, "priority", -1, kInt, &v)) return false;
            e.priority = static_cast<int>(v);
            if (v = 0; !intArg(*args, "bytes", 0, INT64_MAX / 2, &v)) return false;
            e.bytes = v;
            if (v = 0; !intArg(*args, "correlation", INT64_MIN / 2, INT64_MAX / 2, &v)) return false;
            e.correlation = v;
            if (kinetoArgsWanted(e.name)) readKinetoArgs(*args, e);
        }
        file_.events.push_back(std::move(e));
        return true;
    }

    ParsedFile& file_;
    const int* line_;
    std::vector<Frame> stack_;
    std::string key_;
    std::size_t eventDepth_ = 0;  // stack depth of the event object being built; 0 when outside one
    int eventLine_ = 0;
    std::size_t eventCount_ = 0;
    EventMembers members_;
    std::string rawTs_, rawDur_;  // the number texts of "ts" and "dur", for exact conversion
    int skipDepth_ = 0;           // > 0 while inside a container no one reads
    bool sawEventsArray_ = false;
    std::string error_;
};

template <typename It>
Status parseWith(It first, It last, ParsedFile& file, const int* line) {
    TraceSax sax(file, line);
    const bool ok = json::sax_parse(first, last, &sax, json::input_format_t::json, true, true);
    if (!ok) return errorStatus(sax.error().empty() ? file.name + ": malformed JSON" : sax.error());
    if (!sax.sawEvents()) return errorStatus(file.name + ": no 'traceEvents' array (not a Chrome trace)");
    return okStatus();
}

// Whether `text` holds `lowerWord` in any case (no lower-cased copy of every event's name).
bool containsNoCase(const std::string& text, std::string_view lowerWord) {
    return std::search(text.begin(), text.end(), lowerWord.begin(), lowerWord.end(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == b;
           }) != text.end();
}

// What an event is, from Pacer's own category, Kineto's categories, Horovod's activity names, or the name.
EventKind classify(const RawEvent& e) {
    if (auto k = eventKindFromName(e.cat)) return *k;
    const std::string& c = e.cat;
    const std::string& n = e.name;
    if (c == "gpu_memcpy") return EventKind::Memcpy;
    if (c == "gpu_memset") return EventKind::Memset;
    if (c == "cuda_runtime" || c == "cuda_driver") return EventKind::Runtime;
    if (c == "cuda_sync") return EventKind::Sync;
    if (n.rfind("ProfilerStep#", 0) == 0) return EventKind::Iteration;
    if (c == "user_annotation" || c == "gpu_user_annotation") return EventKind::Marker;
    if (containsNoCase(n, "allreduce") || containsNoCase(n, "all_reduce")) return EventKind::AllReduce;
    if (containsNoCase(n, "wait_for") || (n.size() == 4 && containsNoCase(n, "wait"))) return EventKind::Wait;
    if (containsNoCase(n, "memcpy")) return EventKind::Memcpy;
    if (containsNoCase(n, "backward")) return EventKind::Backward;
    if (containsNoCase(n, "optimizer")) return EventKind::Optimizer;
    if (c == "cpu_op") return EventKind::Forward;
    return EventKind::Marker;
}

int rankOf(const ParsedFile& f, int fallback) {
    auto d = f.meta.find("distributedInfo");
    if (d != f.meta.end() && d->is_object()) {
        auto r = d->find("rank");
        if (r != d->end() && r->is_number_integer() && r->get<std::int64_t>() >= 0 && r->get<std::int64_t>() < 1'000'000)
            return static_cast<int>(r->get<std::int64_t>());
    }
    return fallback;
}

int worldSizeOf(const ParsedFile& f) {
    auto d = f.meta.find("distributedInfo");
    if (d == f.meta.end() || !d->is_object()) return 0;
    auto w = d->find("world_size");
    if (w == d->end() || !w->is_number_integer() || w->get<std::int64_t>() < 1 || w->get<std::int64_t>() > 1'000'000) return 0;
    return static_cast<int>(w->get<std::int64_t>());
}

// A DDP job's replay input, extracted while Kineto's arguments are at hand (profiler/kineto_ddp.h), goes into the
// run as tracks of its own. One rank's file stands for a symmetric job of its world size.
void addReplayInput(const std::vector<ParsedFile>& files, const std::vector<KinetoRank>& ranks, int worldSize,
                    RunTrace& trace, RunInfo& ri) {
    // The legacy profiler's export: a bare array of PyTorch ops (aten::, autograd::, ProfilerStep#) without categories.
    const bool legacy = std::all_of(files.begin(), files.end(), [](const ParsedFile& f) {
        const bool torchOps = std::any_of(f.events.begin(), f.events.end(), [](const RawEvent& e) {
            return e.name.rfind("aten::", 0) == 0 || e.name.rfind("autograd::", 0) == 0 || e.name.rfind("ProfilerStep#", 0) == 0;
        });
        return f.bareArray && torchOps && std::none_of(f.events.begin(), f.events.end(), [](const RawEvent& e) { return !e.cat.empty(); });
    });
    const std::string missing =
        legacy ? "a legacy torch.autograd.profiler trace (a bare JSON array without categories or arguments) has no gradient "
                 "or message sizes; record with torch.profiler.profile(activities=[CPU, CUDA], record_shapes=True) and "
                 "prof.export_chrome_trace() on PyTorch 1.8 or newer built with Kineto"
               : std::string();
    attachDdpReplayInput(extractKinetoDdp(ranks, static_cast<int>(trace.tracks.size())), "chrome", worldSize, missing,
                         trace, ri);
}

Result<RunTrace> buildTrace(std::vector<ParsedFile>& files, RunInfo* info) {
    RunTrace trace;
    RunInfo ri;
    ri.policy = "imported";
    ri.backend = "chrome";
    ri.started_ns = wallClockNs();
    ri.label = std::filesystem::path(files.front().name).stem().string();

    // Pacer's own export: tracks, tensors and settings come back exactly.
    if (files.size() == 1 && files[0].meta.contains("pacer")) {
        const json& p = files[0].meta["pacer"];
        const ParsedFile& f = files[0];
        try {
            const json& run = p.at("run");
            ri.label = run.at("label").get<std::string>();
            ri.policy = run.at("policy").get<std::string>();
            ri.backend = run.at("backend").get<std::string>();
            ri.segment_bytes = run.at("segment_bytes").get<std::int64_t>();
            ri.ranks = run.at("ranks").get<int>();
            ri.iterations = run.at("iterations").get<int>();
            ri.started_ns = run.at("started_ns").get<std::int64_t>();
            for (const json& t : p.at("tracks")) {
                auto kind = trackKindFromName(t.at("kind").get<std::string>());
                if (!kind) return errorStatus(f.name + ": 'pacer.tracks': unknown track kind");
                trace.tracks.push_back(Track{t.at("id").get<int>(), t.at("rank").get<int>(), *kind, t.at("name").get<std::string>()});
            }
            for (const json& t : p.at("tensors"))
                trace.tensors.push_back(TensorRecord{t.at("id").get<int>(), t.at("name").get<std::string>(),
                                                     t.at("layer").get<int>(), t.at("elements").get<std::int64_t>()});
        } catch (const json::exception& ex) {
            return errorStatus(f.name + ": malformed 'pacer' section: " + ex.what());
        }
        std::set<int> trackIds;
        for (const Track& t : trace.tracks) trackIds.insert(t.id);
        for (const RawEvent& e : f.events) {
            if (e.ph != 'X') continue;
            int track = -1;
            if (std::from_chars(e.tid.data(), e.tid.data() + e.tid.size(), track).ec != std::errc() || !trackIds.count(track))
                return errorStatus(f.name + ": line " + std::to_string(e.line) + ": 'tid' names no track of the run");
            TraceEvent te = toTraceEvent(e, classify(e), track);
            trace.events.push_back(std::move(te));
        }
        if (info) *info = ri;
        return trace;
    }

    // Kineto / Horovod / other Chrome traces: one file per rank; tracks are (pid, tid) pairs.
    std::set<int> ranksSeen;
    std::vector<KinetoRank> kinetoRanks;
    int worldSize = 0;
    int maxIterations = 0;
    for (std::size_t fi = 0; fi < files.size(); ++fi) {
        ParsedFile& f = files[fi];
        const int rank = rankOf(f, static_cast<int>(fi));
        if (!ranksSeen.insert(rank).second) return errorStatus(f.name + ": a second file for rank " + std::to_string(rank));
        kinetoRanks.push_back(KinetoRank{rank, &f.events});
        worldSize = std::max(worldSize, worldSizeOf(f));
        if (auto d = f.meta.find("distributedInfo"); d != f.meta.end() && d->is_object() && d->contains("backend") &&
                                                      (*d)["backend"].is_string())
            ri.backend = (*d)["backend"].get<std::string>();

        // Spans: X as they are (pointing into the file's events, which the DDP extraction reads afterwards); B/E
        // paired per (pid, tid) like a call stack.
        std::vector<std::pair<const RawEvent*, EventKind>> spans;
        std::deque<RawEvent> joined;
        std::map<std::pair<std::string, std::string>, std::vector<RawEvent>> open;
        for (const RawEvent& e : f.events) {
            if (e.ph == 'B') {
                open[{e.pid, e.tid}].push_back(e);
            } else if (e.ph == 'E') {
                auto& stack = open[{e.pid, e.tid}];
                if (stack.empty()) return errorStatus(f.name + ": line " + std::to_string(e.line) + ": 'E' without a matching 'B'");
                RawEvent b = std::move(stack.back());
                stack.pop_back();
                if (e.ts < b.ts) return errorStatus(f.name + ": line " + std::to_string(e.line) + ": 'E' before its 'B'");
                b.dur = e.ts - b.ts;
                b.ph = 'X';
                const EventKind k = classify(b);
                joined.push_back(std::move(b));
                spans.emplace_back(&joined.back(), k);
            } else {
                spans.emplace_back(&e, classify(e));
            }
        }
        // Tracks in (pid, tid) order; GPU activity makes a stream track, communication alone a comm track.
        std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> byTrack;
        std::pair<const std::pair<std::string, std::string>, std::vector<std::size_t>>* last = nullptr;
        for (std::size_t i = 0; i < spans.size(); ++i) {
            const RawEvent& e = *spans[i].first;
            // Runs of one thread's events are common: no map look-up for them.
            if (!last || last->first.first != e.pid || last->first.second != e.tid) last = &*byTrack.try_emplace({e.pid, e.tid}).first;
            last->second.push_back(i);
        }
        struct StepRange {
            std::int64_t start, end;
            int number;
        };
        std::vector<StepRange> steps;
        for (const auto& [key, idx] : byTrack) {
            Track t;
            t.id = static_cast<int>(trace.tracks.size());
            t.rank = rank;
            bool gpu = false, comm = true;
            for (std::size_t i : idx) {
                const EventKind k = spans[i].second;
                const std::string& cat = spans[i].first->cat;
                // GPU work by category (Kineto's or Pacer's), not by name: Horovod's MEMCPY_IN_FUSION_BUFFER is a host copy.
                gpu |= cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "memcpy" || cat == "memset";
                comm &= k == EventKind::AllReduce || k == EventKind::Wait || k == EventKind::Marker || k == EventKind::Memcpy;
            }
            t.kind = gpu ? TrackKind::CudaStream : comm ? TrackKind::Comm : TrackKind::Compute;
            std::string pname = f.processNames.count(key.first) ? f.processNames[key.first] : "pid " + key.first;
            std::string tname = f.threadNames.count(key) ? f.threadNames[key] : "tid " + key.second;
            t.name = "rank " + std::to_string(rank) + " " + pname + " / " + tname;
            for (std::size_t i : idx) {
                const RawEvent& e = *spans[i].first;
                TraceEvent te = toTraceEvent(e, spans[i].second, t.id);
                if (te.kind == EventKind::Iteration) {
                    int n = -1;
                    const std::string digits = e.name.substr(e.name.find('#') + 1);
                    std::from_chars(digits.data(), digits.data() + digits.size(), n);
                    te.iteration = n;
                    steps.push_back(StepRange{te.start, te.end, n});
                }
                trace.events.push_back(std::move(te));
            }
            trace.tracks.push_back(std::move(t));
        }
        // Kineto marks iterations with ProfilerStep#N ranges: events of this rank inside one take its number.
        // Steps do not overlap: the one an event starts in is the last to start by then.
        if (!steps.empty()) {
            maxIterations = std::max(maxIterations, static_cast<int>(steps.size()));
            std::sort(steps.begin(), steps.end(), [](const StepRange& a, const StepRange& b) { return a.start < b.start; });
            for (TraceEvent& te : trace.events) {
                if (te.iteration >= 0 || trace.tracks[static_cast<std::size_t>(te.track)].rank != rank) continue;
                auto it = std::upper_bound(steps.begin(), steps.end(), te.start,
                                           [](std::int64_t t, const StepRange& s) { return t < s.start; });
                if (it != steps.begin() && te.start < std::prev(it)->end) te.iteration = std::prev(it)->number;
            }
        }
    }
    if (trace.events.empty()) return errorStatus(files.front().name + ": no spans to import (no X or B/E events)");
    ri.ranks = static_cast<int>(ranksSeen.size());
    ri.iterations = maxIterations;
    addReplayInput(files, kinetoRanks, worldSize, trace, ri);
    trace.label = ri.label;
    trace.policy = ri.policy;
    trace.ranks = ri.ranks;
    trace.iterations = ri.iterations;
    if (info) *info = ri;
    return trace;
}

}  // namespace

Result<RunTrace> parseChromeTraceText(std::string_view text, const std::string& name, RunInfo* info) {
    std::vector<ParsedFile> files(1);
    files[0].name = name;
    int line = 1;
    using It = LineCountingIterator<const char*>;
    PROFILER_RETURN_IF_ERROR(parseWith(It(text.data(), &line), It(text.data() + text.size(), &line), files[0], &line));
    return buildTrace(files, info);
}

Result<RunTrace> parseChromeTrace(const std::vector<std::string>& paths, RunInfo* info) {
    if (paths.empty()) return errorStatus("import: no files given");
    std::vector<ParsedFile> files(paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i) {
        files[i].name = paths[i];
        std::ifstream in(paths[i], std::ios::binary);
        if (!in) return errorStatus(paths[i] + ": cannot open");
        int line = 1;
        ChunkedFile chunks(in);
        using It = LineCountingIterator<ChunkedFile::Iterator>;
        PROFILER_RETURN_IF_ERROR(parseWith(It(chunks.begin(), &line), It(ChunkedFile::Iterator(), &line), files[i], &line));
    }
    return buildTrace(files, info);
}

Result<std::int64_t> importChromeTrace(const std::vector<std::string>& files, const std::string& projectPath) {
    RunInfo info;
    PROFILER_ASSIGN_OR_RETURN(RunTrace trace, parseChromeTrace(files, &info));
    return writeRun(projectPath, trace, info, "chrome");
}

}  // namespace pacer::profiler
