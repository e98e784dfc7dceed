#include "profiler/kernel_name.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace pacer::profiler {

namespace {

// Drops a trailing "(...)" parameter list (and a trailing " const"), matching parentheses from the end, so that
// "(anonymous namespace)" earlier in the name stays balanced.
std::string_view withoutParameters(std::string_view s) {
    if (s.ends_with(" const")) s.remove_suffix(6);
    if (!s.ends_with(')')) return s;
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
        if (s[i] == ')') ++depth;
        else if (s[i] == '(' && --depth == 0) return s.substr(0, i);
    }
    return s;
}

// Everything after the last top-level "::" or space: neither the return type ("void ") nor the namespaces
// ("pacer::kernels::cuda::(anonymous namespace)::") nor the class names inside template arguments.
std::string_view unqualified(std::string_view s) {
    int depth = 0;
    std::size_t begin = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '<' || c == '(') ++depth;
        else if ((c == '>' || c == ')') && depth > 0) --depth;
        else if (depth == 0 && c == ' ') begin = i + 1;
        else if (depth == 0 && c == ':' && i + 1 < s.size() && s[i + 1] == ':') begin = ++i + 1;
    }
    return begin < s.size() ? s.substr(begin) : s;
}

}  // namespace

std::string kernelDisplayName(std::string_view symbol) {
    if (!symbol.starts_with("_Z")) return std::string(symbol);
    int status = 0;
    const std::string mangled(symbol);
    const std::unique_ptr<char, decltype(&std::free)> demangled(
        abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
    if (status != 0 || !demangled) return mangled;
    const std::string_view name = unqualified(withoutParameters(demangled.get()));
    return name.empty() ? std::string(demangled.get()) : std::string(name);
}

}  // namespace pacer::profiler
