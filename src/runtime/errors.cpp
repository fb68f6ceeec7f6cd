#include "runtime/errors.h"

#include <cstdio>
#include <iterator>

namespace tack::runtime {

OutOfMemory::OutOfMemory(size_t bytes, const std::string& where) {
    static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double amount = double(bytes);
    size_t unit = 0;
    while (amount >= 1024 && unit + 1 < std::size(units)) amount /= 1024, ++unit;
    char text[64];
    std::snprintf(text, sizeof text, unit ? "%.1f %s" : "%.0f %s", amount, units[unit]);
    message_ = std::string("unable to allocate ") + text + " for an array" + (where.empty() ? "" : " " + where);
}

}  // namespace tack::runtime
