#include "driver/race_report.h"

namespace tack::driver {

namespace {

using codegen::DebugAccess;

std::string trim(std::string_view s) {
    size_t b = s.find_first_not_of(" \t");
    size_t e = s.find_last_not_of(" \t\r\n");
    return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

struct Place {
    std::string at;    // "file:line" and the device function, if any
    std::string text;  // the source line, trimmed
};

Place place_of(const ir::Kernel& typed, const ir::Span& span) {
    Place p;
    const auto& origins = typed.origins;
    if (span.origin < 0 || span.origin >= static_cast<int>(origins.size()) || !origins[span.origin].source) return p;
    const auto& origin = origins[span.origin];
    const syntax::Source& src = *origin.source;
    p.at = src.filename + ":" + std::to_string(src.first_line + span.line - 1);
    if (!origin.is_kernel) p.at += " in device function '" + origin.function + "'";
    p.text = trim(src.line_text(span.line));
    return p;
}

const char* verb(const DebugAccess& a) {
    switch (a.use) {
        case DebugAccess::RaceUse::Read: return "reads";
        case DebugAccess::RaceUse::Write: return "writes";
        case DebugAccess::RaceUse::Atomic: return "updates";
    }
    return "accesses";
}

std::string line_of(const char* who, const DebugAccess& a, const Place& p) {
    std::string s = std::string("\n  ") + who + " iteration " + verb(a) + " it";
    if (a.use == DebugAccess::RaceUse::Atomic) s += " atomically";
    if (!p.at.empty()) s += " at " + p.at;
    if (!p.text.empty()) s += ": " + p.text;
    return s;
}

std::string tuple(const std::vector<int64_t>& xs) {
    std::string t = "(";
    for (size_t i = 0; i < xs.size(); ++i) t += (i ? ", " : "") + std::to_string(xs[i]);
    return t + (xs.size() == 1 ? ",)" : ")");
}

}  // namespace

std::string atomic_rewrite(const std::string& statement) {
    // target[index] op= value, with the index's own brackets balanced.
    size_t open = statement.find('[');
    if (open == std::string::npos || open == 0) return "";
    int depth = 0;
    size_t close = std::string::npos;
    for (size_t i = open; i < statement.size(); ++i) {
        if (statement[i] == '[') ++depth;
        if (statement[i] == ']' && --depth == 0) {
            close = i;
            break;
        }
    }
    if (close == std::string::npos) return "";
    std::string rest = trim(std::string_view(statement).substr(close + 1));
    const char* fn = rest.rfind("+=", 0) == 0 ? "atomic_add" : rest.rfind("-=", 0) == 0 ? "atomic_sub" : nullptr;
    if (!fn) return "";
    std::string target = trim(std::string_view(statement).substr(0, open));
    std::string index = trim(std::string_view(statement).substr(open + 1, close - open - 1));
    std::string value = trim(std::string_view(rest).substr(2));
    size_t comment = value.find('#');
    if (comment != std::string::npos) value = trim(std::string_view(value).substr(0, comment));
    if (target.empty() || index.empty() || value.empty()) return "";
    return std::string("tack.") + fn + "(" + target + ", " + index + ", " + value + ")";
}

std::string describe_race(const std::string& kernel, const ir::Kernel& typed,
                          const std::vector<codegen::DebugAccess>& sites, int32_t first, int32_t second,
                          int64_t scalar, const std::vector<int64_t>& shape, bool overlaps_itself) {
    const DebugAccess& a = sites.at(static_cast<size_t>(first));
    const DebugAccess& b = sites.at(static_cast<size_t>(second));
    const ir::Param& p = typed.params.at(static_cast<size_t>(b.array));
    int components = p.components();
    int64_t element = scalar / components;
    std::vector<int64_t> index(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
        int64_t extent = shape[d] > 0 ? shape[d] : 1;
        index[d] = d == 0 ? element : element % extent;
        element /= extent;
    }
    std::string what = "element " + tuple(index);
    if (components > 1) what = "component " + std::to_string(scalar % components) + " of " + what;
    Place pa = place_of(typed, a.span);
    Place pb = place_of(typed, b.span);
    std::string array = "array '" + p.name + "'";
    if (a.array != b.array)
        array += " (which shares memory with array '" + typed.params.at(static_cast<size_t>(a.array)).name + "')";
    else if (overlaps_itself)
        array += " (whose elements share memory with each other)";
    std::string msg = "kernel '" + kernel + "': data race on " + what + " of " + array +
                      " between two iterations of one launch" +
                      line_of("one", a, pa) + line_of("another", b, pb);
    std::string hint;
    if (a.augmented || b.augmented) {
        std::string rewrite = atomic_rewrite(a.augmented ? pa.text : pb.text);
        hint = "an augmented store (a[j] += v) is a load and a store, not an atomic update as in Taichi: iterations "
               "that update one element lose updates; use " +
               (rewrite.empty() ? "tack.atomic_add(" + p.name + ", index, value)" : rewrite);
    } else if (a.use == DebugAccess::RaceUse::Atomic || b.use == DebugAccess::RaceUse::Atomic) {
        hint = "atomics are atomic only against other atomics: update the element with atomics only during the "
               "launch, or read it in a later launch";
    } else if (a.use == DebugAccess::RaceUse::Write && b.use == DebugAccess::RaceUse::Write) {
        hint = "give each element one writing iteration, or combine the values with an atomic (tack.atomic_add, "
               "tack.atomic_max, ...)";
    } else {
        hint = "iterations run in no order: read what other iterations write in a later launch (or from a copy)";
    }
    return msg + "\nhint: " + hint;
}

}  // namespace tack::driver
