// zero_unassigned_reads: which locals start each parallel iteration at
// zero (those the body may read before the iteration assigns them) and
// which are left alone (assigned on every path before each read).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "test_support.h"

namespace tack {
namespace {

using testing::array_of;
using testing::typed_kernel;

// The names of the locals the pass sets to a zero constant of the local's
// type: the body's leading assignments placed at the parallel loop.
std::set<std::string> zeroed(const std::string& text) {
    auto k = typed_kernel(text, {array_of(DType::F32), array_of(DType::I32)});
    std::set<std::string> names;
    for (auto& s : k->body) {
        auto* a = s->as<ir::Assign>();
        if (!a || a->span.line != k->loop_span.line || a->span.col != k->loop_span.col) break;
        const ir::Var& v = k->vars[a->var];
        auto* i = a->value->as<ir::IntConst>();
        auto* f = a->value->as<ir::FloatConst>();
        bool zero = (i && i->bits == 0) || (f && f->value == 0.0 && !std::signbit(f->value));
        if (!zero) break;
        EXPECT_EQ(a->value->type, v.type) << v.name;
        names.insert(v.name);
    }
    return names;
}

TEST(ZeroUnassignedReads, LocalsAssignedBeforeEveryReadAreLeftAlone) {
    EXPECT_EQ(zeroed("def k(x, n):\n"
                     "    base = x[0]\n"
                     "    for i in range(len(x)):\n"
                     "        t = x[i] * 2.0\n"
                     "        if t > 0:\n"
                     "            s = t\n"
                     "        else:\n"
                     "            s = -t\n"
                     "        base = base + s\n"
                     "        x[i] = base\n"),
              std::set<std::string>{});
}

TEST(ZeroUnassignedReads, ALocalAssignedUnderABranchOnlyStartsAtZero) {
    EXPECT_EQ(zeroed("def k(x, n):\n"
                     "    for i in range(len(x)):\n"
                     "        if x[i] > 0:\n"
                     "            s = x[i]\n"
                     "            c = n[i]\n"
                     "        x[i] = s\n"
                     "        n[i] = c\n"),
              (std::set<std::string>{"s", "c"}));
}

TEST(ZeroUnassignedReads, AValueCarriedFromAnEarlierTripStartsAtZero) {
    // previous is read on the second trip of the sequential loop only; the
    // first trip's path has it unassigned.
    EXPECT_EQ(zeroed("def k(x, n):\n"
                     "    for i in range(len(x)):\n"
                     "        total = 0\n"
                     "        for k in range(3):\n"
                     "            if k > 0:\n"
                     "                total = total + previous\n"
                     "            previous = k\n"
                     "        n[i] = total\n"),
              std::set<std::string>{"previous"});
}

TEST(ZeroUnassignedReads, PathsThatLeaveTheIterationDoNotCount) {
    // After `continue` nothing of the iteration runs, so s is assigned on
    // every path that reaches the read.
    EXPECT_EQ(zeroed("def k(x, n):\n"
                     "    for i in range(len(x)):\n"
                     "        if x[i] > 0:\n"
                     "            s = x[i]\n"
                     "        else:\n"
                     "            continue\n"
                     "        x[i] = s\n"),
              std::set<std::string>{});
    // A loop may run no trip: what its body assigns does not count after it.
    EXPECT_EQ(zeroed("def k(x, n):\n"
                     "    for i in range(len(x)):\n"
                     "        j = 0\n"
                     "        while j < 2:\n"
                     "            u = x[i]\n"
                     "            j = j + 1\n"
                     "        x[i] = u\n"),
              std::set<std::string>{"u"});
}

}  // namespace
}  // namespace tack
