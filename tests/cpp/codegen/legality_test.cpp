// What each target refuses, with the kernel, target, construct and reason.
#include <gtest/gtest.h>

#include "codegen_support.h"

namespace tack {
namespace {

using namespace codegen::cfamily;
using testing::array_of;
using testing::scalar_of;

syntax::Diagnostic refusal(const std::string& text, const std::vector<driver::ParamFacts>& params, Dialect d) {
    auto k = testing::codegen_kernel(text, params);
    try {
        emit_c(*k, d);
    } catch (const syntax::CompileError& e) {
        return e.diagnostic();
    }
    ADD_FAILURE() << "no refusal on " << to_string(d) << " for:\n" << text;
    return {};
}

TEST(Legality, MetalRefusesF64) {
    auto d = refusal(
        "def k(a, b):\n"
        "    for i in range(len(a)):\n"
        "        a[i] = b[i] * 2.0\n",
        {array_of(DType::F64), array_of(DType::F64)}, Dialect::Metal);
    EXPECT_EQ(d.kind, syntax::ErrorKind::Type);
    EXPECT_EQ(d.function, "k");
    EXPECT_EQ(d.construct, "f64");
    EXPECT_NE(d.message.find("metal"), std::string::npos) << d.message;
    EXPECT_EQ(d.span.line, 3);
}

TEST(Legality, MetalRefusesAnUnusedF64Parameter) {
    auto d = refusal(
        "def k(a, x):\n"
        "    for i in range(len(a)):\n"
        "        a[i] = 1.0\n",
        {array_of(DType::F32), scalar_of(DType::F64)}, Dialect::Metal);
    EXPECT_NE(d.message.find("'x'"), std::string::npos) << d.message;
}

TEST(Legality, OpenCLAndMetalRefuse64BitAtomics) {
    for (Dialect dl : {Dialect::OpenCL, Dialect::Metal}) {
        auto d = refusal(
            "def k(a, n):\n"
            "    for i in range(n):\n"
            "        tack.atomic_add(a, 0, tack.i64(1))\n",
            {array_of(DType::I64), scalar_of(DType::I32)}, dl);
        EXPECT_EQ(d.kind, syntax::ErrorKind::Type);
        EXPECT_EQ(d.construct, "atomic_add");
        EXPECT_NE(d.message.find(to_string(dl)), std::string::npos) << d.message;
        EXPECT_NE(d.message.find("i64"), std::string::npos) << d.message;
        EXPECT_EQ(d.span.line, 3);
    }
}

TEST(Legality, GpuTargetsRefuseNarrowAtomics) {
    for (Dialect dl : {Dialect::Cuda, Dialect::Hip, Dialect::OpenCL, Dialect::Metal}) {
        auto d = refusal(
            "def k(a, n):\n"
            "    for i in range(n):\n"
            "        tack.atomic_max(a, 0, tack.u8(1))\n",
            {array_of(DType::U8), scalar_of(DType::I32)}, dl);
        EXPECT_EQ(d.construct, "atomic_max");
    }
}

TEST(Legality, CudaAccepts64BitAtomics) {
    auto k = testing::codegen_kernel(
        "def k(a, n):\n"
        "    for i in range(n):\n"
        "        tack.atomic_add(a, 0, tack.f64(1.0))\n",
        {array_of(DType::F64), scalar_of(DType::I32)});
    EXPECT_NO_THROW(emit_c(*k, Dialect::Cuda));
    EXPECT_NO_THROW(emit_c(*k, Dialect::Hip));
}

TEST(Legality, PrintWritesRecordsToThePrintBuffer) {
    for (Dialect dl : {Dialect::Cuda, Dialect::Hip, Dialect::OpenCL, Dialect::Metal}) {
        auto k = testing::codegen_kernel(
            "def k(a):\n"
            "    for i in range(len(a)):\n"
            "        print(a[i], i)\n"
            "        print(a[i] * 2.0)\n",
            {array_of(DType::F32)});
        auto src = emit_c(*k, dl);
        ASSERT_EQ(src.prints.size(), 2u);
        EXPECT_EQ(src.prints[0].kinds, (std::vector<uint8_t>{static_cast<uint8_t>(DType::F32),
                                                             static_cast<uint8_t>(DType::I64)}));
        EXPECT_EQ(src.prints[1].kinds, (std::vector<uint8_t>{static_cast<uint8_t>(DType::F32)}));
        EXPECT_EQ(src.slots.back().kind, ArgSlot::Kind::Print);
        EXPECT_NE(src.text.find("tk_print_claim(tk_print, 3)"), std::string::npos) << src.text;
        EXPECT_NE(src.text.find("tk_print_claim(tk_print, 2)"), std::string::npos) << src.text;
    }
}

TEST(Legality, DialectNamesRoundTrip) {
    for (Dialect d : {Dialect::Cuda, Dialect::Hip, Dialect::OpenCL, Dialect::Metal})
        EXPECT_EQ(dialect_named(to_string(d)), d);
    EXPECT_FALSE(dialect_named("vulkan"));
}

}  // namespace
}  // namespace tack
