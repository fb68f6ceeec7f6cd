// Identifier encoding: keywords, builtins and Unicode names stay distinct
// bindings with legal spellings, in every dialect.
#include <gtest/gtest.h>

#include <set>

#include "codegen/cfamily/names.h"
#include "codegen_support.h"

namespace tack {
namespace {

using namespace codegen::cfamily;
using testing::array_of;
using testing::scalar_of;

bool legal_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return s.find("__") == std::string::npos;
}

TEST(Names, EncodingKeepsPlainNamesReadable) {
    EXPECT_EQ(encode_identifier("a"), "a");
    EXPECT_EQ(encode_identifier("my_var"), "my_var");
    EXPECT_EQ(encode_identifier("_t"), "Z5fZt");
    EXPECT_EQ(encode_identifier("a__b"), "a_Z5fZb");
    EXPECT_EQ(encode_identifier("x_"), "xZ5fZ");
    EXPECT_EQ(encode_identifier("Zeta"), "ZZeta");
    EXPECT_EQ(encode_identifier("λ"), "Z3bbZ");
    EXPECT_EQ(encode_identifier("変数"), "Z5909ZZ6570Z");
}

TEST(Names, EncodingIsInjectiveOnConfusableNames) {
    const char* names[] = {"a",   "a_",  "a__", "_a",   "__a", "Z",     "ZZ",    "Z3bbZ", "λ",     "Zλ",
                           "λZ",  "a_b", "a__b", "aZ5fZb", "x1", "x_1",  "xZn1",  "kernel", "Kernel", "\xff",
                           "ÿ",   "\xc3", "int",  "global", "v_a", "tk_e0", "threadIdx"};
    std::set<std::string> seen;
    for (const char* n : names) EXPECT_TRUE(seen.insert(encode_identifier(n)).second) << n;
    for (const auto& s : seen) EXPECT_TRUE(legal_identifier("v_" + s)) << s;
}

TEST(Names, RepeatedNamesGetDistinctSpellings) {
    BindingNames b;
    EXPECT_EQ(b.add("x"), "v_x");
    EXPECT_EQ(b.add("x"), "v_xZn1");
    EXPECT_EQ(b.add("x"), "v_xZn2");
    EXPECT_EQ(b.add("xZn1"), "v_xZZn1");
}

TEST(Names, EntrySymbolsEncodeTheKernelName) {
    EXPECT_EQ(entry_symbol("saxpy", "body"), "tk_saxpy_body");
    EXPECT_EQ(entry_symbol("λ_kernel", "count"), "tk_Z3bbZ_kernel_count");
    EXPECT_EQ(entry_symbol("k_", "v2result"), "tk_kZ5fZ_v2result");
    EXPECT_NE(entry_symbol("a_b", "c"), entry_symbol("a", "bc"));
    EXPECT_THROW(entry_symbol("k", "no_underscores"), std::exception);
}

// Keywords and builtins of the four languages as parameter and local names
// print as their own bindings in every dialect.
TEST(Names, KeywordAndUnicodeBindingsPrintDistinctly) {
    const std::string text =
        "def k(kernel, local, threadIdx, λ):\n"
        "    for i in range(len(kernel)):\n"
        "        int = local[i] + λ\n"
        "        変数 = int * threadIdx\n"
        "        __global__ = 変数 + 1\n"
        "        kernel[i] = __global__ + int\n";
    auto k = testing::codegen_kernel(
        text, {array_of(DType::I32), array_of(DType::I32), scalar_of(DType::I32), scalar_of(DType::I32)});
    for (Dialect d : {Dialect::Cuda, Dialect::Hip, Dialect::OpenCL, Dialect::Metal}) {
        auto src = emit_c(*k, d).text;
        for (const char* s : {"v_kernel", "v_local", "v_threadIdx", "v_Z3bbZ", "v_int", "v_Z5909ZZ6570Z",
                              "v_Z5fZZ5fZglobal_Z5fZ"})
            EXPECT_NE(src.find(s), std::string::npos) << to_string(d) << ": no " << s << " in\n" << src;
        EXPECT_EQ(src.find(" kernel["), std::string::npos) << src;
    }
}

// An inlined device function's local of the caller's name is another binding.
TEST(Names, InlinedLocalsOfOneNameStayApart) {
    auto r = std::make_shared<testing::CodegenResolver>();
    r->device_functions["f"] =
        "def f(v):\n"
        "    t = v * 2\n"
        "    return t + 1\n";
    auto k = testing::typed_kernel(
        "def k(a):\n"
        "    for i in range(len(a)):\n"
        "        t = a[i]\n"
        "        a[i] = f(t) + t\n",
        {array_of(DType::I32)}, r);
    auto src = emit_c(*k, Dialect::OpenCL).text;
    EXPECT_NE(src.find("int v_t = 0;"), std::string::npos) << src;
    EXPECT_NE(src.find("int v_tZn1 = 0;"), std::string::npos) << src;
}

}  // namespace
}  // namespace tack
