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
#include <span>
#include <stdexcept>
#include <string>

#include "profiler/chrome_raw_event.h"
#include "profiler/clock.h"
#include "profiler/kineto_ddp.h"
#include "profiler/project.h"
#include "profiler/string_pool.h"

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
    StringPool names;  // the texts the events' views point into
    std::vector<RawEvent> events;
    std::map<std::string, std::string, std::less<>> processNames;                    // pid -> name
    std::map<std::pair<std::string_view, std::string_view>, std::string> threadNames;  // (pid, tid) -> name
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
void readKinetoArgs(const json& args, RawEvent& e, StringPool& pool) {
    if (auto d = args.find("Input Dims"); d != args.end() && d->is_array() && !d->empty() && d->front().is_array()) {
        e.hasInputDims = true;
        for (const json& x : d->front())
            if (x.is_number_integer() && x.get<std::int64_t>() >= 0) e.firstInputDims.push_back(x.get<std::int64_t>());
            else e.hasInputDims = false;
    }
    if (auto n = args.find("In msg nelems"); n != args.end() && n->is_number_integer() && n->get<std::int64_t>() >= 0)
        e.msgElements = n->get<std::int64_t>();
    if (auto t = args.find("dtype"); t != args.end() && t->is_string()) e.dtype = pool.intern(t->get_ref<const std::string&>());
    if (auto c = args.find("Collective name"); c != args.end() && c->is_string())
        e.collective = pool.intern(c->get_ref<const std::string&>());
    if (auto g = args.find("Group size"); g != args.end() && g->is_number_integer() && g->get<std::int64_t>() > 0 &&
                                          g->get<std::int64_t>() < 1'000'000)
        e.groupSize = static_cast<int>(g->get<std::int64_t>());
}

// One member of the event being read, in a slot reused from event to event: its JSON type, and its value as text
// (strings; a float's own digits, for exact conversion) or number. No DOM node, and once the slot's text has grown,
// no allocation per member (a json value per member was a fifth of the import's time).
struct Member {
    enum class Type : std::uint8_t { Absent, String, Integer, Unsigned, Float, Other, Object };
    Type type = Type::Absent;
    std::string text;
    std::int64_t integer = 0;
    std::uint64_t unsignedValue = 0;
    double real = 0;
};

// The members of an event the importer looks at; everything else in an event is skipped unread.
enum Slot : int { kPh, kName, kCat, kPid, kTid, kTs, kDur, kArgs, kSlots, kNoSlot = -1 };

// The slot of a member's key: by length first, so most keys cost one or two character compares.
int slotOf(std::string_view k) {
    switch (k.size()) {
        case 2: return k == "ph" ? kPh : k == "ts" ? kTs : kNoSlot;
        case 3: return k == "cat" ? kCat : k == "pid" ? kPid : k == "tid" ? kTid : k == "dur" ? kDur : kNoSlot;
        case 4: return k == "name" ? kName : k == "args" ? kArgs : kNoSlot;
        default: return kNoSlot;
    }
}

// Inside an event's "args" only what handleEvent reads becomes DOM: the rest of Kineto's arguments (grid, block,
// stream, occupancy, External id, ...) cost a node each for nothing and were most of the import's time.
bool argumentRead(std::string_view k) {
    static constexpr std::array<std::string_view, 13> kRead = {
        "iteration", "layer", "tensor", "segment", "priority", "bytes", "correlation", "name", "Input Dims",
        "In msg nelems", "dtype", "Collective name", "Group size"};
    return std::find(kRead.begin(), kRead.end(), k) != kRead.end();
}

// Reads each event's members into fixed slots (arguments as a small DOM, one event at a time) and hands it over;
// everything else at the top level is kept as DOM in `meta`.
class TraceSax {
public:
    TraceSax(ParsedFile& file, const int* line) : file_(file), line_(line) {}

    bool null() { return skipped() || (atMember() ? other() : value(json(nullptr))); }
    bool boolean(bool v) { return skipped() || (atMember() ? other() : value(json(v))); }
    bool number_integer(json::number_integer_t v) { return whole(v, Member::Type::Integer, &Member::integer); }
    bool number_unsigned(json::number_unsigned_t v) { return whole(v, Member::Type::Unsigned, &Member::unsignedValue); }
    bool number_float(json::number_float_t v, const std::string& raw) {
        if (skipped()) return true;
        if (!atMember()) return value(json(v));
        Member& m = member(Member::Type::Float);
        m.real = v;
        m.text.assign(raw);
        return true;
    }
    bool string(std::string& v) {
        if (skipped()) return true;
        if (!atMember()) return value(json(v));  // a copy: moving would take the lexer's buffer, regrown per token
        member(Member::Type::String).text.assign(v);
        return true;
    }
    bool binary(json::binary_t&) { return fail("binary values are not JSON"); }

    bool start_object(std::size_t) { return skipContainer() || open(true); }
    bool start_array(std::size_t) { return skipContainer() || open(false); }
    bool key(std::string& k) {
        if (skipDepth_ > 0) return true;
        key_ = k;
        // What the value under this key is, decided once here rather than at each scalar or container below it.
        keySlot_ = kNoSlot;
        keyUnread_ = false;
        if (inEvent() && stack_.size() == eventDepth_) {
            keySlot_ = slotOf(k);
            keyUnread_ = keySlot_ == kNoSlot;
        } else if (inEvent() && stack_.size() == eventDepth_ + 1 && stack_.back().key == "args") {
            keyUnread_ = !argumentRead(k);
        }
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
        bool object = false;
        json value;       // its members as DOM, made on the first one kept (an event's own frame keeps none)
        std::string key;  // the key this container sits under in its parent
    };

    bool fail(const std::string& msg) {
        if (error_.empty()) error_ = file_.name + ": line " + std::to_string(*line_) + ": " + msg;
        return false;
    }
    bool inEvent() const { return eventDepth_ != 0; }
    // A value directly under one of the event's slotted keys (key() decided which).
    bool atMember() const { return keySlot_ != kNoSlot && stack_.size() == eventDepth_; }
    Member& member(Member::Type type) {
        Member& m = members_[static_cast<std::size_t>(keySlot_)];
        m.type = type;
        return m;
    }
    bool other() {
        member(Member::Type::Other);
        return true;
    }
    template <typename T>
    bool whole(T v, Member::Type type, T Member::*field) {
        if (skipped()) return true;
        if (!atMember()) return value(json(v));
        member(type).*field = v;
        return true;
    }
    bool unread() const { return inEvent() && stack_.back().object && keyUnread_; }
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
        if (depth == 1) return !stack_[0].object;
        return depth == 2 && stack_[0].object && stack_[1].key == "traceEvents" && !stack_[1].object;
    }
    static json materialise(Frame& f) {
        if (f.value.is_null()) return f.object ? json::object() : json::array();
        return std::move(f.value);
    }

    bool open(bool object) {
        if (stack_.empty()) {
            if (!object) sawEventsArray_ = file_.bareArray = true;
        } else if (!inEvent() && isEventsArray(stack_.size())) {
            if (!object) return fail("trace event " + std::to_string(eventCount_) + ": expected an object");
            eventDepth_ = stack_.size() + 1;
            eventLine_ = *line_;
            for (Member& m : members_) m.type = Member::Type::Absent;
            args_ = json();
        }
        if (stack_.size() == 1 && key_ == "traceEvents") {
            if (object) return fail("'traceEvents' must be an array");
            sawEventsArray_ = true;
        }
        stack_.push_back(Frame{object, json(), key_});
        key_.clear();
        keySlot_ = kNoSlot;
        keyUnread_ = false;
        return true;
    }

    bool close() {
        const bool wasEventsArray = isEventsArray(stack_.size());
        Frame done = std::move(stack_.back());
        stack_.pop_back();
        keySlot_ = kNoSlot;  // the parent's next value comes with a key() of its own
        keyUnread_ = false;
        if (inEvent() && stack_.size() + 1 == eventDepth_) {
            eventDepth_ = 0;
            ++eventCount_;
            return handleEvent();
        }
        if (stack_.empty()) {
            if (done.object) {
                json meta = materialise(done);
                meta.erase("traceEvents");
                file_.meta = std::move(meta);
            }
            return true;
        }
        if (wasEventsArray) return true;  // its events were handed over one by one
        key_ = done.key;
        if (inEvent() && stack_.size() == eventDepth_) {  // a container under one of the event's members
            const int slot = slotOf(key_);
            if (slot == kNoSlot) return true;
            members_[static_cast<std::size_t>(slot)].type = done.object ? Member::Type::Object : Member::Type::Other;
            if (slot == kArgs) args_ = std::move(done.value);  // null when it holds nothing read
            return true;
        }
        return attach(materialise(done));
    }

    bool value(json v) {
        if (stack_.empty()) return fail("expected an object or an array at the top level");
        if (!inEvent() && isEventsArray(stack_.size())) return fail("trace event " + std::to_string(eventCount_) + ": expected an object");
        if (inEvent() && stack_.size() == eventDepth_) return true;  // an event's member without a slot
        return attach(std::move(v));
    }

    bool attach(json v) {
        Frame& parent = stack_.back();
        // Nothing but events is kept from the events array; other containers under the top level stay as DOM.
        if (parent.object) parent.value[key_] = std::move(v);
        else parent.value.push_back(std::move(v));
        return true;
    }

    const Member* find(Slot slot) const {
        const Member& m = members_[static_cast<std::size_t>(slot)];
        return m.type == Member::Type::Absent ? nullptr : &m;
    }

    // A pid or tid as text: numbers in decimal, strings as they are; interned, so equal ids share one copy.
    std::optional<std::string_view> idText(const Member& m) {
        char digits[24];
        std::to_chars_result r{};
        if (m.type == Member::Type::Integer) r = std::to_chars(digits, digits + sizeof digits, m.integer);
        else if (m.type == Member::Type::Unsigned) r = std::to_chars(digits, digits + sizeof digits, m.unsignedValue);
        else if (m.type == Member::Type::String) return file_.names.intern(m.text);
        else return std::nullopt;
        return file_.names.intern(std::string_view(digits, static_cast<std::size_t>(r.ptr - digits)));
    }

    bool timeField(Slot slot, const char* field, std::int64_t* out, bool* present) {
        const Member* m = find(slot);
        *present = m != nullptr;
        if (!*present) return true;
        std::optional<std::int64_t> ns;
        if (m->type == Member::Type::Float) {
            ns = microsToNs(m->text, m->real);
        } else if (m->type == Member::Type::Unsigned) {
            if (m->unsignedValue < 4'600'000'000'000'000ULL) ns = static_cast<std::int64_t>(m->unsignedValue) * 1000;
        } else if (m->type == Member::Type::Integer) {
            // no llabs: |INT64_MIN| is UB
            if (m->integer > -4'600'000'000'000'000LL && m->integer < 4'600'000'000'000'000LL) ns = m->integer * 1000;
        } else {
            return fail(std::string("expected number for '") + field + "'");
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
        const Member* ph = find(kPh);
        if (!ph) return fail("trace event " + std::to_string(eventCount_ - 1) + ": missing 'ph'");
        if (ph->type != Member::Type::String || ph->text.size() != 1) return fail("expected one-letter string for 'ph'");
        e.ph = ph->text[0];
        if (const Member* n = find(kName)) {
            if (n->type != Member::Type::String) return fail("expected string for 'name'");
            e.name = file_.names.intern(n->text);
        }
        if (const Member* c = find(kCat); c && c->type == Member::Type::String) e.cat = file_.names.intern(c->text);
        if (const Member* p = find(kPid)) {
            auto t = idText(*p);
            if (!t) return fail("expected number or string for 'pid'");
            e.pid = *t;
        }
        if (const Member* p = find(kTid)) {
            auto t = idText(*p);
            if (!t) return fail("expected number or string for 'tid'");
            e.tid = *t;
        }
        const json* args = nullptr;
        if (const Member* a = find(kArgs)) {
            if (a->type != Member::Type::Object) return fail("expected object for 'args'");
            args = &args_;
        }
        if (e.ph == 'M') {
            if (args && args->contains("name") && (*args)["name"].is_string()) {
                const std::string& n = (*args)["name"].get_ref<const std::string&>();
                if (e.name == "process_name") file_.processNames[std::string(e.pid)] = n;
                if (e.name == "thread_name") file_.threadNames[{e.pid, e.tid}] = n;
            }
            return true;
        }
        if (e.ph != 'X' && e.ph != 'B' && e.ph != 'E') return true;  // instants, counters, flows: not spans
        bool hasTs = false;
        if (!timeField(kTs, "ts", &e.ts, &hasTs)) return false;
        if (!hasTs) return fail("missing 'ts'");
        if (!timeField(kDur, "dur", &e.dur, &e.hasDur)) return false;
        if (e.ph == 'X' && !e.hasDur) return fail("'X' event without 'dur'");
        if (e.dur < 0) return fail("negative 'dur'");
        if (args && !args->empty()) {
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
            if (kinetoArgsWanted(e.name)) readKinetoArgs(*args, e, file_.names);
        }
        file_.events.push_back(std::move(e));
        return true;
    }

    ParsedFile& file_;
    const int* line_;
    std::vector<Frame> stack_;
    std::string key_;
    int keySlot_ = kNoSlot;   // the event member the next value fills
    bool keyUnread_ = false;  // the next value is an event member or argument no one reads
    std::size_t eventDepth_ = 0;  // stack depth of the event object being built; 0 when outside one
    int eventLine_ = 0;
    std::size_t eventCount_ = 0;
    std::array<Member, kSlots> members_;
    json args_;               // the event's read arguments
    int skipDepth_ = 0;       // > 0 while inside a container no one reads
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

// Whether `text` holds `lowerWord` in any case (no lower-cased copy of every event's name; ASCII only, as the words
// are, without the locale look-up of std::tolower per character).
bool containsNoCase(std::string_view text, std::string_view lowerWord) {
    return std::search(text.begin(), text.end(), lowerWord.begin(), lowerWord.end(), [](char a, char b) {
               return (a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a) == b;
           }) != text.end();
}

// What an event is, from Pacer's own category, Kineto's categories, Horovod's activity names, or the name.
EventKind classify(const RawEvent& e) {
    if (auto k = eventKindFromName(e.cat)) return *k;
    const std::string_view c = e.cat;
    const std::string_view n = e.name;
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

// What the legacy profiler's export lacks for replay, or nothing for other traces. That export is a bare array of
// PyTorch ops (aten::, autograd::, ProfilerStep#) without categories.
std::string legacyTraceMissing(const std::vector<ParsedFile>& files) {
    const bool legacy = std::all_of(files.begin(), files.end(), [](const ParsedFile& f) {
        const bool torchOps = std::any_of(f.events.begin(), f.events.end(), [](const RawEvent& e) {
            return e.name.rfind("aten::", 0) == 0 || e.name.rfind("autograd::", 0) == 0 || e.name.rfind("ProfilerStep#", 0) == 0;
        });
        return f.bareArray && torchOps && std::none_of(f.events.begin(), f.events.end(), [](const RawEvent& e) { return !e.cat.empty(); });
    });
    return legacy ? "a legacy torch.autograd.profiler trace (a bare JSON array without categories or arguments) has no gradient "
                    "or message sizes; record with torch.profiler.profile(activities=[CPU, CUDA], record_shapes=True) and "
                    "prof.export_chrome_trace() on PyTorch 1.8 or newer built with Kineto"
                  : std::string();
}

// One file's spans on their way into the trace: X events as they are (pointing into the file's events, which the
// DDP extraction reads too), B/E pairs joined, grouped by (pid, tid).
struct FileSpans {
    int rank = 0;
    std::vector<std::pair<const RawEvent*, EventKind>> spans;
    std::deque<RawEvent> joined;
    std::map<std::pair<std::string_view, std::string_view>, std::vector<std::size_t>> byTrack;  // indices into spans
};

Status collectSpans(const ParsedFile& f, FileSpans& out) {
    // B/E paired per (pid, tid) like a call stack.
    out.spans.reserve(f.events.size());
    std::map<std::pair<std::string_view, std::string_view>, std::vector<RawEvent>> open;
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
            out.joined.push_back(std::move(b));
            out.spans.emplace_back(&out.joined.back(), k);
        } else {
            out.spans.emplace_back(&e, classify(e));
        }
    }
    std::pair<const std::pair<std::string_view, std::string_view>, std::vector<std::size_t>>* last = nullptr;
    for (std::size_t i = 0; i < out.spans.size(); ++i) {
        const RawEvent& e = *out.spans[i].first;
        // Runs of one thread's events are common: no map look-up for them.
        if (!last || last->first.first != e.pid || last->first.second != e.tid) last = &*out.byTrack.try_emplace({e.pid, e.tid}).first;
        last->second.push_back(i);
    }
    return okStatus();
}

constexpr std::int64_t kMaxRanks = 1'000'000;  // as for distributedInfo's world_size

// A whole number in [lo, hi] from the 'pacer' section. get<int>() converted 1e300 to int (undefined behaviour,
// found by fuzz_chrome_import) and wraps 2^32 + 1 to 1.
std::int64_t sectionInt(const json& object, const char* key, std::int64_t lo, std::int64_t hi) {
    const json& v = object.at(key);
    const bool whole = v.is_number_integer() &&
                       (!v.is_number_unsigned() || v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX));
    if (!whole || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
        throw std::out_of_range(std::string("'") + key + "' must be a whole number from " + std::to_string(lo) +
                                " to " + std::to_string(hi));
    return v.get<std::int64_t>();
}

// Adds the time since it was made, or since the last add, to a phase.
class PhaseClock {
public:
    void addTo(ImportPhases::Time* t) {
        const std::int64_t wall = nowNs(), cpu = threadCpuNs();
        if (t) {
            t->wall += wall - wall_;
            t->cpu += cpu - cpu_;
        }
        wall_ = wall;
        cpu_ = cpu;
    }

private:
    std::int64_t wall_ = nowNs(), cpu_ = threadCpuNs();
};

Result<RunTrace> buildTrace(std::vector<ParsedFile>& files, RunInfo* info, ImportPhases* phases = nullptr) {
    PhaseClock clock;
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
            ri.segment_bytes = sectionInt(run, "segment_bytes", 0, INT64_MAX / 2);
            ri.ranks = static_cast<int>(sectionInt(run, "ranks", 0, kMaxRanks));
            ri.iterations = static_cast<int>(sectionInt(run, "iterations", 0, INT32_MAX));
            ri.started_ns = sectionInt(run, "started_ns", INT64_MIN, INT64_MAX);
            for (const json& t : p.at("tracks")) {
                auto kind = trackKindFromName(t.at("kind").get<std::string>());
                if (!kind) return errorStatus(f.name + ": 'pacer.tracks': unknown track kind");
                trace.tracks.push_back(Track{static_cast<int>(sectionInt(t, "id", 0, INT32_MAX)),
                                             static_cast<int>(sectionInt(t, "rank", 0, kMaxRanks)), *kind,
                                             t.at("name").get<std::string>()});
            }
            for (const json& t : p.at("tensors"))
                trace.tensors.push_back(TensorRecord{static_cast<int>(sectionInt(t, "id", 0, INT32_MAX)),
                                                     t.at("name").get<std::string>(),
                                                     static_cast<int>(sectionInt(t, "layer", -1, kMaxLayer)),
                                                     sectionInt(t, "elements", 0, INT64_MAX / 8)});
        } catch (const json::exception& ex) {
            return errorStatus(f.name + ": malformed 'pacer' section: " + ex.what());
        } catch (const std::out_of_range& ex) {
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
    std::vector<FileSpans> perFile(files.size());
    std::size_t spanCount = 0, trackCount = 0;
    for (std::size_t fi = 0; fi < files.size(); ++fi) {
        ParsedFile& f = files[fi];
        const int rank = rankOf(f, static_cast<int>(fi));
        if (!ranksSeen.insert(rank).second) return errorStatus(f.name + ": a second file for rank " + std::to_string(rank));
        kinetoRanks.push_back(KinetoRank{rank, &f.events});
        worldSize = std::max(worldSize, worldSizeOf(f));
        if (auto d = f.meta.find("distributedInfo"); d != f.meta.end() && d->is_object() && d->contains("backend") &&
                                                      (*d)["backend"].is_string())
            ri.backend = (*d)["backend"].get<std::string>();
        perFile[fi].rank = rank;
        PROFILER_RETURN_IF_ERROR(collectSpans(f, perFile[fi]));
        spanCount += perFile[fi].spans.size();
        trackCount += perFile[fi].byTrack.size();
    }
    clock.addTo(phases ? &phases->tracks : nullptr);
    // A DDP job's replay input, extracted while Kineto's arguments are at hand (profiler/kineto_ddp.h), goes into the
    // run as tracks of its own after the trace's. Extracted before the trace's events are made, so that one
    // allocation holds them all (appending it later moved every event once more).
    const std::string missing = legacyTraceMissing(files);
    Result<DdpReplayInput> ddp = missing.empty() ? extractKinetoDdp(kinetoRanks, static_cast<int>(trackCount))
                                                 : Result<DdpReplayInput>(errorStatus(missing));
    clock.addTo(phases ? &phases->replayInput : nullptr);
    trace.events.reserve(spanCount + (ddp.ok() ? ddp->events.size() : 0));

    for (std::size_t fi = 0; fi < files.size(); ++fi) {
        const ParsedFile& f = files[fi];
        const FileSpans& fs = perFile[fi];
        const int rank = fs.rank;
        struct StepRange {
            std::int64_t start, end;
            int number;
        };
        std::vector<StepRange> steps;
        const std::size_t firstEvent = trace.events.size();
        // Tracks in (pid, tid) order; GPU activity makes a stream track, communication alone a comm track.
        for (const auto& [key, idx] : fs.byTrack) {
            Track t;
            t.id = static_cast<int>(trace.tracks.size());
            t.rank = rank;
            bool gpu = false, comm = true;
            for (std::size_t i : idx) {
                const EventKind k = fs.spans[i].second;
                const std::string_view cat = fs.spans[i].first->cat;
                // GPU work by category (Kineto's or Pacer's), not by name: Horovod's MEMCPY_IN_FUSION_BUFFER is a host copy.
                gpu |= cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "memcpy" || cat == "memset";
                comm &= k == EventKind::AllReduce || k == EventKind::Agreement || k == EventKind::Wait ||
                        k == EventKind::Marker || k == EventKind::Memcpy;
            }
            t.kind = gpu ? TrackKind::CudaStream : comm ? TrackKind::Comm : TrackKind::Compute;
            const auto process = f.processNames.find(key.first);
            const auto thread = f.threadNames.find(key);
            const std::string pname = process != f.processNames.end() ? process->second : "pid " + std::string(key.first);
            const std::string tname = thread != f.threadNames.end() ? thread->second : "tid " + std::string(key.second);
            t.name = "rank " + std::to_string(rank) + " " + pname + " / " + tname;
            for (std::size_t i : idx) {
                const RawEvent& e = *fs.spans[i].first;
                TraceEvent te = toTraceEvent(e, fs.spans[i].second, t.id);
                if (te.kind == EventKind::Iteration) {
                    int n = -1;
                    const std::string_view digits = e.name.substr(e.name.find('#') + 1);
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
            // This file's events only: all of them per file was quadratic in the number of files.
            for (TraceEvent& te : std::span(trace.events).subspan(firstEvent)) {
                if (te.iteration >= 0) continue;
                auto it = std::upper_bound(steps.begin(), steps.end(), te.start,
                                           [](std::int64_t t, const StepRange& s) { return t < s.start; });
                if (it != steps.begin() && te.start < std::prev(it)->end) te.iteration = std::prev(it)->number;
            }
        }
    }
    if (trace.events.empty()) return errorStatus(files.front().name + ": no spans to import (no X or B/E events)");
    ri.ranks = static_cast<int>(ranksSeen.size());
    ri.iterations = maxIterations;
    attachDdpReplayInput(std::move(ddp), "chrome", worldSize, missing, trace, ri);
    clock.addTo(phases ? &phases->tracks : nullptr);
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

Result<RunTrace> parseChromeTrace(const std::vector<std::string>& paths, RunInfo* info, ImportPhases* phases) {
    if (paths.empty()) return errorStatus("import: no files given");
    PhaseClock clock;
    std::vector<ParsedFile> files(paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i) {
        files[i].name = paths[i];
        std::ifstream in(paths[i], std::ios::binary);
        if (!in) return errorStatus(paths[i] + ": cannot open");
        // Kineto's events take 150 to 400 bytes of JSON each: room for one per 128 bytes spares the copies of a
        // growing vector (capacity never written to costs address space, not memory).
        std::error_code ec;
        if (const auto size = std::filesystem::file_size(paths[i], ec); !ec) files[i].events.reserve(size / 128);
        int line = 1;
        ChunkedFile chunks(in);
        using It = LineCountingIterator<ChunkedFile::Iterator>;
        PROFILER_RETURN_IF_ERROR(parseWith(It(chunks.begin(), &line), It(ChunkedFile::Iterator(), &line), files[i], &line));
    }
    clock.addTo(phases ? &phases->parse : nullptr);
    return buildTrace(files, info, phases);
}

Result<std::int64_t> importChromeTrace(const std::vector<std::string>& files, const std::string& projectPath) {
    RunInfo info;
    PROFILER_ASSIGN_OR_RETURN(RunTrace trace, parseChromeTrace(files, &info));
    return writeRun(projectPath, trace, info, "chrome");
}

}  // namespace pacer::profiler
