// Internal to the profiler: one copy of each distinct text an importer reads (op names, categories, pids, tids),
// handed out as views that stay valid as long as the pool, wherever the pool itself is moved.
//
// A large trace repeats a few thousand names hundreds of thousands of times; an owned std::string per event cost
// an allocation and a copy each, and made every event three times its size (the 100 MB DDP import spent a fifth of
// its time moving and faulting in those events).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>

namespace pacer::profiler {

class StringPool {
public:
    StringPool() = default;
    // Views point into the pool's nodes: a copy would leave them pointing into the original.
    StringPool(const StringPool&) = delete;
    StringPool& operator=(const StringPool&) = delete;
    StringPool(StringPool&&) = default;  // nodes keep their addresses when the set moves
    StringPool& operator=(StringPool&&) = default;

    std::string_view intern(std::string_view text) {
        auto it = texts_.find(text);
        if (it == texts_.end()) it = texts_.emplace(text).first;
        return *it;
    }
    std::size_t size() const { return texts_.size(); }

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_set<std::string, Hash, std::equal_to<>> texts_;
};

}  // namespace pacer::profiler
